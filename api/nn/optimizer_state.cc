#include "api/nn/optimizer_state.h"

#include <algorithm>

#include "absl/strings/str_format.h"
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

// Each parameter's state as `buffers` give it (null where they give none), for an optimizer of
// `kind` over `parameters` named as in d's rows: every buffer name checked, then loaded (its
// size checked) on the parameter's device.
std::vector<std::unique_ptr<torch::optim::OptimizerParamState>> LoadedStates(
    const nn::OptimizerKind& kind, const OptimizerDescription& d,
    const std::vector<at::Tensor>& parameters, const std::vector<OptimizerBuffers>& buffers) {
  if (!buffers.empty() && buffers.size() != d.parameters.size()) {
    Fail("opt: buffers given for %d parameter(s), expecting %d", buffers.size(),
         d.parameters.size());
  }
  for (std::size_t i = 0; i < buffers.size(); ++i)
    CheckBufferNames(kind, d.parameters[i].name, buffers[i]);
  std::vector<std::unique_ptr<torch::optim::OptimizerParamState>> states(buffers.size());
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    if (!buffers[i].empty())
      states[i] = kind.load(nn::SavedBuffers(d.parameters[i].name, parameters[i], buffers[i]));
  }
  return states;
}

std::string RowText(const OptimizerParameter& row) {
  return absl::StrFormat("`%s (group %d, size %s)", row.name, row.group,
                         absl::StrJoin(row.size, " "));
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
  auto states = LoadedStates(*kind, d, parameters, state.buffers);

  auto object = OptimizerObject::Make(*kind, options.front());
  for (std::size_t g = 0; g < batches.size(); ++g)
    object->Add(static_cast<std::int64_t>(g), std::move(batches[g]), &options[g]);
  auto& slots = object->optimizer().state();
  for (std::size_t i = 0; i < states.size(); ++i) {
    if (states[i] != nullptr) slots[nn::StateKeyOf(parameters[i])] = std::move(states[i]);
  }
  return Own(Object(std::shared_ptr<CompositeObject>(std::move(object))), "opt");
}

void opt_load(Handle o, const OptimizerState& state) {
  auto object = nn::OptimizerOf("opt", o);
  const nn::OptimizerKind& kind = *object->spec().kind;
  const OptimizerDescription& d = state.description;
  if (d.kind != kind.name) Fail("opt: state of %s given, the optimizer is %s", d.kind, kind.name);
  const OptimizerDescription now = describe_opt(o);
  if (d.options.size() != now.options.size()) {
    Fail("opt: state has %d group(s), the optimizer %d", d.options.size(), now.options.size());
  }
  if (d.parameters.size() != now.parameters.size()) {
    Fail("opt: state has %d parameter(s), the optimizer %d", d.parameters.size(),
         now.parameters.size());
  }
  for (std::size_t i = 0; i < d.parameters.size(); ++i) {
    const OptimizerParameter &given = d.parameters[i], &held = now.parameters[i];
    if (given.group != held.group || given.name != held.name || given.size != held.size)
      Fail("opt: state has parameter %d %s, the optimizer %s", i, RowText(given), RowText(held));
  }
  const std::vector<nn::OptionSet> options = GroupOptions(kind, d.options);
  for (const nn::OptionSet& group : options)  // libtorch's checks of the values, before changes
    kind.make({torch::optim::OptimizerParamGroup(std::vector<at::Tensor>{})}, group);
  const std::vector<at::Tensor> parameters = object->parameters();
  auto states = LoadedStates(kind, d, parameters, state.buffers);

  // Checked: commit.
  for (std::size_t g = 0; g < options.size(); ++g)
    object->Add(static_cast<std::int64_t>(g), nn::ParameterBatch{}, &options[g]);
  auto& slots = object->optimizer().state();
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    if (i < states.size() && states[i] != nullptr) {
      slots[nn::StateKeyOf(parameters[i])] = std::move(states[i]);
    } else {
      slots.erase(nn::StateKeyOf(parameters[i]));
    }
  }
}

}  // namespace kscope
