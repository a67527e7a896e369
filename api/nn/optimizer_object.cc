#include "api/nn/optimizer_object.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "runtime/errors.h"

namespace kscope::nn {
namespace {

// `options` (of `kind`) with the learning rate `rate`.
OptionSet WithLr(const OptimizerKind& kind, const OptionSet& options, double rate) {
  NamedValues values = options.Values(true);
  for (auto& [name, value] : values) {
    if (name == "lr") value = rate;
  }
  return OptionSet::Parse(kind.name, kind.options, {}, values);
}

// Checks that every parameter of `batch` can join the optimizer: a leaf, not optimized yet and
// not given twice.
void CheckNew(const torch::optim::Optimizer& optimizer, const ParameterBatch& batch) {
  absl::flat_hash_set<const void*> seen;
  for (const auto& group : optimizer.param_groups()) {
    for (const at::Tensor& p : group.params()) seen.insert(p.unsafeGetTensorImpl());
  }
  for (const auto& [name, p] : batch.parameters) {
    if (!p.is_leaf()) Fail("opt: parameter `%s is not a leaf tensor, it cannot be optimized", name);
    if (!seen.insert(p.unsafeGetTensorImpl()).second)
      Fail("opt: parameter `%s is already optimized", name);
  }
}

}  // namespace

std::shared_ptr<OptimizerObject> OptimizerObject::Make(const OptimizerKind& kind,
                                                       const OptionSet& defaults) {
  auto optimizer =
      kind.make({torch::optim::OptimizerParamGroup(std::vector<at::Tensor>{})}, defaults);
  auto spec = std::make_shared<OptimizerSpec>(OptimizerSpec{&kind, defaults, {defaults}, {{}}, {}});
  return std::make_shared<OptimizerObject>(std::move(spec), std::move(optimizer));
}

std::vector<const torch::optim::OptimizerParamState*> OptimizerObject::States() const {
  std::vector<const torch::optim::OptimizerParamState*> all;
  const auto& state = optimizer_->state();
  for (const at::Tensor& p : parameters()) {
    auto it = state.find(StateKeyOf(p));
    if (it != state.end()) all.push_back(it->second.get());
  }
  return all;
}

std::vector<OptimizerBuffers> OptimizerObject::SavedStates() const {
  std::vector<OptimizerBuffers> saved;
  const auto& state = optimizer_->state();
  for (const at::Tensor& p : parameters()) {
    auto it = state.find(StateKeyOf(p));
    saved.push_back(it == state.end() ? OptimizerBuffers{} : spec_->kind->save(*it->second));
  }
  return saved;
}

void OptimizerObject::SetStates(
    const std::vector<at::Tensor>& parameters,
    std::vector<std::unique_ptr<torch::optim::OptimizerParamState>> states) {
  auto& slots = optimizer_->state();
  for (std::size_t i = 0; i < states.size(); ++i) {
    if (states[i] != nullptr) slots[StateKeyOf(parameters[i])] = std::move(states[i]);
  }
}

std::vector<at::Tensor> OptimizerObject::tensors() const {
  std::vector<at::Tensor> all;
  for (const torch::optim::OptimizerParamState* s : States()) {
    for (at::Tensor& t : spec_->kind->state(*s)) all.push_back(std::move(t));
  }
  return all;
}

std::optional<c10::Device> OptimizerObject::device() const {
  for (const auto& group : optimizer_->param_groups()) {
    if (!group.params().empty()) return group.params().front().device();
  }
  return std::nullopt;
}

std::int64_t OptimizerObject::scalar_count() const {
  return spec_->kind->scalars * static_cast<std::int64_t>(States().size());
}

std::vector<at::Tensor> OptimizerObject::parameters() const {
  std::vector<at::Tensor> all;
  for (const auto& group : optimizer_->param_groups()) {
    all.insert(all.end(), group.params().begin(), group.params().end());
  }
  return all;
}

std::int64_t OptimizerObject::parameter_count() const {
  std::int64_t n = 0;
  for (const auto& group : optimizer_->param_groups())
    n += static_cast<std::int64_t>(group.params().size());
  return n;
}

std::string OptimizerObject::str() const {
  return absl::StrCat(spec_->kind->class_name, "(", OptionsText(spec_->groups.front().Values(true)),
                      ")");
}

void OptimizerObject::MoveTo(std::optional<c10::Device>, std::optional<c10::ScalarType>) {
  Fail("to: not implemented for optimizers, move the module they optimize");
}

std::shared_ptr<CompositeObject> OptimizerObject::share() const {
  return std::make_shared<OptimizerObject>(spec_, optimizer_);
}

const OptionSet& OptimizerObject::group_options(std::int64_t group) const {
  return group >= 0 && group < group_count() ? spec_->groups[group] : spec_->defaults;
}

void OptimizerObject::Add(std::int64_t group, ParameterBatch batch, const OptionSet* options) {
  const std::int64_t n = group_count();
  if (group < 0) Fail("opt: group %d invalid, cannot be negative", group);
  if (group > n)
    Fail("opt: group %d invalid, cannot be greater than number of groups(%d)", group, n);
  const OptimizerKind& kind = *spec_->kind;
  if (group == n && !kind.groups) Fail("opt: %s does not support parameter groups", kind.name);
  CheckNew(*optimizer_, batch);
  if (options != nullptr)
    kind.make({torch::optim::OptimizerParamGroup(std::vector<at::Tensor>{})}, *options);
  const OptionSet& settings = options != nullptr ? *options : group_options(group);

  // Checked: commit. Only the libtorch calls below allocate; they do not fail on checked input.
  std::vector<at::Tensor> tensors;
  std::vector<ParameterOrigin> origins;
  if (!batch.parameters.empty()) {
    std::size_t holder = 0;
    while (holder < spec_->holders.size() && spec_->holders[holder].module != batch.holder.module)
      ++holder;
    if (holder == spec_->holders.size()) spec_->holders.push_back(std::move(batch.holder));
    for (auto& [name, p] : batch.parameters) {
      origins.push_back(ParameterOrigin{holder, std::move(name)});
      tensors.push_back(std::move(p));
    }
  }
  if (group == n) {
    optimizer_->add_param_group(
        torch::optim::OptimizerParamGroup(tensors, kind.group_options(settings)));
    spec_->groups.push_back(settings);
    spec_->origins.push_back(std::move(origins));
  } else {
    auto& target = optimizer_->param_groups()[group];
    target.params().insert(target.params().end(), tensors.begin(), tensors.end());
    auto& targets = spec_->origins[group];
    targets.insert(targets.end(), std::make_move_iterator(origins.begin()),
                   std::make_move_iterator(origins.end()));
    if (options != nullptr) {
      target.set_options(kind.group_options(*options));
      spec_->groups[group] = *options;
    }
  }
  if (kind.initial) {
    for (const at::Tensor& p : tensors)
      optimizer_->state()[StateKeyOf(p)] = kind.initial(p, settings);
  }
}

void OptimizerObject::set_lr(std::int64_t group, double rate) {
  optimizer_->param_groups()[group].options().set_lr(rate);
  spec_->groups[group] = WithLr(*spec_->kind, spec_->groups[group], rate);
}

void OptimizerObject::set_lr(double rate) {
  for (std::int64_t g = 0; g < group_count(); ++g) set_lr(g, rate);
  optimizer_->defaults().set_lr(rate);
  spec_->defaults = WithLr(*spec_->kind, spec_->defaults, rate);
}

std::shared_ptr<OptimizerObject> OptimizerOf(const char* fn, Handle h) {
  return std::static_pointer_cast<OptimizerObject>(CompositeOf(fn, h, ObjectClass::kOptimizer));
}

}  // namespace kscope::nn
