#include "api/nn/optimizer_state.h"

#include <algorithm>

#include "absl/strings/str_join.h"
#include "api/model/model_object.h"
#include "api/nn/module_object.h"
#include "api/nn/optimizer_kind.h"
#include "api/nn/optimizer_object.h"
#include "runtime/errors.h"
#include "scope/scope_stack.h"

namespace kscope {
namespace {

using nn::OptimizerObject;

// The options of each group, checked against the kind (one group of defaults if none given).
std::vector<nn::OptionSet> GroupOptions(const nn::OptimizerKind& kind,
                                        const std::vector<nn::NamedValues>& given) {
  std::vector<nn::OptionSet> groups;
  for (const nn::NamedValues& values : given)
    groups.push_back(nn::OptionSet::Parse(kind.name, kind.options, {}, values));
  if (groups.empty()) groups.push_back(nn::OptionSet::Parse(kind.name, kind.options, {}, {}));
  return groups;
}

void CheckBufferNames(const nn::OptimizerKind& kind, const std::string& parameter,
                      const OptimizerBuffers& buffers) {
  for (const auto& [name, value] : buffers) {
    if (std::find(kind.buffers.begin(), kind.buffers.end(), name) == kind.buffers.end()) {
      Fail("opt: unrecognized %s buffer `%s for parameter `%s", kind.name, name, parameter);
    }
  }
}

}  // namespace

OptimizerState opt_state(Handle o, bool all_options) {
  auto object = nn::OptimizerOf("state", o);
  OptimizerState s{describe_opt(o, all_options), {}};
  const auto& state = object->optimizer().state();
  for (const at::Tensor& p : object->parameters()) {
    auto it = state.find(nn::StateKeyOf(p));
    s.buffers.push_back(it == state.end() ? OptimizerBuffers{}
                                          : object->spec().kind->save(*it->second));
  }
  return s;
}

Handle opt(const OptimizerState& state, Handle module) {
  const OptimizerDescription& d = state.description;
  const nn::OptimizerKind* kind = nn::FindOptimizerKind(d.kind);
  if (kind == nullptr) Fail("unrecognized optimizer: %s", d.kind);
  if (!state.buffers.empty() && state.buffers.size() != d.parameters.size()) {
    Fail("opt: buffers given for %d parameter(s), expecting %d", state.buffers.size(),
         d.parameters.size());
  }
  auto m = nn::ModuleOrModelsModule("opt", module);
  const std::vector<nn::OptionSet> options = GroupOptions(*kind, d.options);
  const auto named = m->module().named_parameters();  // a new dictionary: keep it while reading
  std::vector<nn::ParameterBatch> batches(options.size(),
                                          nn::ParameterBatch{{m->module_ptr(), m->spec_ptr()}, {}});
  std::vector<at::Tensor> parameters;  // in row order
  for (const OptimizerParameter& row : d.parameters) {
    if (row.group < 0 || row.group >= static_cast<std::int64_t>(options.size())) {
      Fail("opt: parameter `%s is in group %d, but %d group(s) are defined", row.name, row.group,
           options.size());
    }
    const at::Tensor* p = named.find(row.name);
    if (p == nullptr) Fail("opt: no parameter `%s in %s module", row.name, m->spec().kind->name);
    if (p->sizes() != row.size) {
      Fail("opt: parameter `%s has size %s, expecting %s", row.name, absl::StrJoin(p->sizes(), " "),
           absl::StrJoin(row.size, " "));
    }
    batches[row.group].parameters.emplace_back(row.name, *p);
    parameters.push_back(*p);
  }
  for (std::size_t i = 0; i < state.buffers.size(); ++i)
    CheckBufferNames(*kind, d.parameters[i].name, state.buffers[i]);

  auto object = OptimizerObject::Make(*kind, options.front());
  for (std::size_t g = 0; g < batches.size(); ++g)
    object->Add(static_cast<std::int64_t>(g), std::move(batches[g]), &options[g]);
  auto& slots = object->optimizer().state();
  for (std::size_t i = 0; i < state.buffers.size(); ++i) {
    if (state.buffers[i].empty()) continue;
    slots[nn::StateKeyOf(parameters[i])] =
        kind->load(nn::SavedBuffers(d.parameters[i].name, parameters[i], state.buffers[i]));
  }
  return Own(Object(std::shared_ptr<CompositeObject>(std::move(object))), "opt");
}

}  // namespace kscope
