#include "api/autograd.h"

#include <array>
#include <utility>

#include <torch/csrc/autograd/autograd.h>

#include "api/nn/model_object.h"
#include "api/nn/module_object.h"
#include "api/nn/optimizer_object.h"
#include "api/values.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "runtime/torch_compat.h"

namespace kscope {
namespace {

constexpr std::array<BackwardModeInfo, 4> kModes = {{
    {"free", BackwardMode::kFree, false, false, "free graph, no higher order derivatives"},
    {"retain", BackwardMode::kRetain, true, false, "retain graph, no higher order derivatives"},
    {"create", BackwardMode::kCreate, true, true, "retain graph, create graph for higher order derivatives"},
    {"createfree", BackwardMode::kCreateFree, false, true, "free graph & create graph for higher order derivatives"},
}};

const BackwardModeInfo& FlagsOf(BackwardMode mode) {
  for (const auto& m : kModes) {
    if (m.mode == mode) return m;
  }
  return kModes[0];
}

// The tensors of a tensor, vector or dictionary handle; error otherwise.
std::vector<at::Tensor> TensorsOf(const char* fn, Handle h) {
  Object o = HandleTable::Global().Get(h);
  if (o.composite() != nullptr) {
    Fail("%s: expected tensor, vector or dictionary, given %s", fn, ClassName(o.object_class()));
  }
  return o.tensors();
}

// The tensors whose gradients zerograd/nograd reset: those of a tensor, vector or dictionary,
// or the parameters of a module, an optimizer or a model's optimizer; error otherwise.
std::vector<at::Tensor> GradientHoldersOf(const char* fn, Handle h) {
  const ObjectClass c = HandleTable::Global().Info(h).object_class;
  switch (c) {
    case ObjectClass::kTensor:
    case ObjectClass::kVector:
    case ObjectClass::kDictionary:
      return HandleTable::Global().Get(h).tensors();
    case ObjectClass::kModule:
      return nn::ModuleOf(fn, h, ObjectClass::kModule)->module().parameters();
    case ObjectClass::kOptimizer:
      return nn::OptimizerOf(fn, h)->parameters();
    case ObjectClass::kModel:  // as its optimizer: every parameter it steps (seed 004)
      return nn::ModelOf(fn, h)->model().optimizer->parameters();
    default:
      Fail("%s: expected tensor, vector, dictionary, module, optimizer or model, given %s", fn, ClassName(c));
  }
}

void Backward(Handle h, const Operand* gradient, BackwardMode mode) {
  const BackwardModeInfo& flags = FlagsOf(mode);
  std::vector<at::Tensor> outputs = TensorsOf("backward", h);
  std::vector<at::Tensor> gradients;
  if (gradient != nullptr) {
    if (outputs.size() != 1) Fail("backward: a gradient is given for a single tensor only");
    at::Tensor g = Resolve("backward", {gradient}).tensors[0];
    // ktorch's backward(y;1e): a scalar gradient stands for every element of the output.
    if (g.dim() == 0 && outputs[0].dim() > 0) g = g.expand(outputs[0].sizes());
    gradients.push_back(std::move(g));
  }
  torch::autograd::backward(outputs, gradients, AtOptional<bool>(flags.retain), flags.create);
}

}  // namespace

absl::Span<const BackwardModeInfo> backward_modes() { return kModes; }

std::optional<BackwardMode> BackwardModeFromName(absl::string_view name) {
  for (const auto& m : kModes) {
    if (m.name == name) return m.mode;
  }
  return std::nullopt;
}

void backward(Handle h, BackwardMode mode) { Backward(h, nullptr, mode); }

void backward(Handle h, const Operand& gradient, BackwardMode mode) { Backward(h, &gradient, mode); }

at::Tensor grad(Handle h) { return HostCopy(TensorOf("grad", h).grad()); }

void zerograd(Handle h) {
  for (const at::Tensor& t : GradientHoldersOf("zerograd", h)) {
    if (t.grad().defined()) t.grad().detach().zero_();
  }
}

void nograd(Handle h) {
  for (at::Tensor& t : GradientHoldersOf("nograd", h)) t.mutable_grad().reset();
}

Result detach(const Operand& x) {
  return Compute("detach", {&x}, Handle(), [](const TensorList& t) { return t[0].detach(); });
}

bool gradflag(Handle h) { return TensorOf("gradflag", h).requires_grad(); }

void gradflag(Handle h, bool requires_grad) {
  for (at::Tensor& t : TensorsOf("gradflag", h)) t.set_requires_grad(requires_grad);
}

}  // namespace kscope
