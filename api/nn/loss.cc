#include "api/nn/loss.h"

#include "api/nn/forward_io.h"
#include "api/nn/module_kind.h"
#include "api/nn/module_object.h"
#include "runtime/errors.h"
#include "scope/scope_stack.h"

namespace kscope {
namespace {

const nn::ModuleKind& LossKind(const std::string& kind) {
  const nn::ModuleKind* k = nn::FindLossKind(kind);
  if (k == nullptr) Fail("unrecognized loss function: %s", kind);
  return *k;
}

// The loss module of `kind` with these options (not yet registered anywhere).
std::shared_ptr<nn::ModuleObject> MakeLoss(const std::string& kind,
                                           const std::vector<nn::OptionValue>& positional,
                                           const nn::NamedValues& named) {
  const nn::ModuleKind& k = LossKind(kind);
  auto spec = std::make_shared<nn::ModuleSpec>(
      nn::ModuleSpec{&k, nn::OptionSet::Parse(kind, k.options, positional, named), "", {}});
  auto module = k.make(spec->options);
  return std::make_shared<nn::ModuleObject>(ObjectClass::kLoss, std::move(spec), std::move(module));
}

// The loss l on `operands`, as many as its kind takes.
Result Compute(const char* fn, const nn::ModuleObject& l, absl::Span<const Operand> operands) {
  const nn::ModuleKind& kind = *l.spec().kind;
  nn::CheckInputCount(fn, kind, operands.size());
  Resolved in = Resolve(fn, operands);
  std::vector<at::Tensor> inputs(in.tensors.begin(), in.tensors.end());
  // CPU tensors go to the device of the others (targets are often left on the CPU).
  for (const at::Tensor& t : inputs) {
    if (!t.device().is_cpu()) {
      for (at::Tensor& u : inputs) u = u.to(t.device());
      break;
    }
  }
  return nn::EmitOutput(fn, kind.forward(l.module(), inputs), in.any_handle);
}

}  // namespace

Signature loss_signature(const std::string& kind) {
  const nn::ModuleKind& k = LossKind(kind);
  return {k.inputs, k.max_inputs, nn::OptionNames(k.options)};
}

Handle loss(const std::string& kind, const std::vector<nn::OptionValue>& positional,
            const nn::NamedValues& named) {
  return Own(Object(MakeLoss(kind, positional, named)), "loss");
}

Handle loss(const LossDescription& description) {
  return loss(description.kind, {}, description.options);
}

LossDescription describe_loss(Handle l, bool all_options) {
  auto object = nn::ModuleOf("loss", l, ObjectClass::kLoss);
  return LossDescription{object->spec().kind->name, object->spec().options.Values(all_options)};
}

Result loss(Handle l, absl::Span<const Operand> inputs) {
  return Compute("loss", *nn::ModuleOf("loss", l, ObjectClass::kLoss), inputs);
}

Result loss_function(const std::string& kind, absl::Span<const Operand> inputs,
                     const std::vector<nn::OptionValue>& positional, const nn::NamedValues& named) {
  const auto l = MakeLoss(kind, positional, named);
  return Compute(l->spec().kind->name.c_str(), *l, inputs);
}

}  // namespace kscope
