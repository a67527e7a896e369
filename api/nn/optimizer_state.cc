#include "api/nn/optimizer_state.h"

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
std::vector<nn::OptionSet> ParamGroupOptions(const nn::OptimizerKind& kind,
                                             const std::vector<nn::NamedValues>& given) {
  std::vector<nn::OptionSet> groups;
  for (const nn::NamedValues& values : given)
    groups.push_back(nn::OptionSet::Parse(kind.name, kind.options, {}, values));
  if (groups.empty()) groups.push_back(nn::OptionSet::Parse(kind.name, kind.options, {}, {}));
  return groups;
}

// The name of each row of d, for errors.
std::vector<std::string> RowNames(const OptimizerDescription& d) {
  std::vector<std::string> names;
  for (const OptimizerParameter& row : d.parameters) names.push_back(row.name);
  return names;
}

std::string RowText(const OptimizerParameter& row) {
  return absl::StrFormat("`%s (group %d, size %s)", row.name, row.group,
                         absl::StrJoin(row.size, " "));
}

}  // namespace

OptimizerState opt_state(Handle o, bool all_options) {
  auto object = nn::OptimizerOf("state", o);
  return OptimizerState{describe_opt(o, all_options), object->SavedStates()};
}

Handle opt(const OptimizerState& state, Handle module) {
  const OptimizerDescription& d = state.description;
  const nn::OptimizerKind* kind = nn::FindOptimizerKind(d.kind);
  if (kind == nullptr) Fail("unrecognized optimizer: %s", d.kind);
  auto m = nn::ModuleOrModelsModule("opt", module);
  const std::vector<nn::OptionSet> options = ParamGroupOptions(*kind, d.options);
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
  auto states = nn::LoadStates(*kind, RowNames(d), parameters, state.buffers);

  auto object = OptimizerObject::Make(*kind, options.front());
  for (std::size_t g = 0; g < batches.size(); ++g)
    object->Add(static_cast<std::int64_t>(g), std::move(batches[g]), &options[g]);
  object->SetStates(parameters, std::move(states));
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
  const std::vector<nn::OptionSet> options = ParamGroupOptions(kind, d.options);
  for (const nn::OptionSet& group : options)  // libtorch's checks of the values, before changes
    kind.make({torch::optim::OptimizerParamGroup(std::vector<at::Tensor>{})}, group);
  const std::vector<at::Tensor> parameters = object->parameters();
  auto states = nn::LoadStates(kind, RowNames(d), parameters, state.buffers);

  // Checked: commit.
  for (std::size_t g = 0; g < options.size(); ++g)
    object->Add(static_cast<std::int64_t>(g), nn::ParameterBatch{}, &options[g]);
  auto& slots = object->optimizer().state();
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    if (i >= states.size() || states[i] == nullptr) slots.erase(nn::StateKeyOf(parameters[i]));
  }
  object->SetStates(parameters, std::move(states));
}

}  // namespace kscope
