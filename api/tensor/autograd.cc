#include "api/tensor/autograd.h"

#include <array>
#include <string>
#include <utility>
#include <vector>

#include <torch/csrc/autograd/autograd.h>

#include "api/core/selection.h"
#include "api/core/values.h"
#include "api/model/model_object.h"
#include "api/nn/module_object.h"
#include "api/nn/optimizer_object.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "runtime/out_of_memory.h"
#include "runtime/torch_compat.h"
#include "scope/scope_stack.h"

namespace kscope {
namespace {

constexpr std::array<BackwardModeInfo, 4> kModes = {{
    {"free", BackwardMode::kFree, false, false, "free graph, no higher order derivatives"},
    {"retain", BackwardMode::kRetain, true, false, "retain graph, no higher order derivatives"},
    {"create", BackwardMode::kCreate, true, true,
     "retain graph, create graph for higher order derivatives"},
    {"createfree", BackwardMode::kCreateFree, false, true,
     "free graph & create graph for higher order derivatives"},
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
    case ObjectClass::kDictionary: return HandleTable::Global().Get(h).tensors();
    case ObjectClass::kModule:
      return nn::ModuleOf(fn, h, ObjectClass::kModule)->module().parameters();
    case ObjectClass::kOptimizer: return nn::OptimizerOf(fn, h)->parameters();
    case ObjectClass::kModel:  // as its optimizer: every parameter it steps (seed 004)
      return nn::ModelOf(fn, h)->model().optimizer->parameters();
    default:
      Fail("%s: expected tensor, vector, dictionary, module, optimizer or model, given %s", fn,
           ClassName(c));
  }
}

// The named parameters of a module, or of a model's module (gradflag's module forms).
torch::OrderedDict<std::string, at::Tensor> NamedParametersOf(Handle h) {
  if (HandleTable::Global().Info(h).object_class == ObjectClass::kModel) {
    return nn::ModelOf("gradflag", h)->model().module->module().named_parameters();
  }
  return nn::ModuleOf("gradflag", h, ObjectClass::kModule)->module().named_parameters();
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

// Detaches every tensor in place, or none: libtorch refuses views, so all are checked before the
// first is detached.
void DetachEach(const std::vector<Selected>& selected) {
  for (const Selected& s : selected) {
    if (s.tensor.is_view()) {
      Fail(
          "detach: %s is a view, and views can't be detached in place (detach(x) makes a detached "
          "tensor)",
          s.where);
    }
  }
  for (const Selected& s : selected) s.tensor.detach_();
}

}  // namespace

absl::Span<const BackwardModeInfo> backward_modes() { return kModes; }

std::optional<BackwardMode> BackwardModeFromName(absl::string_view name) {
  for (const auto& m : kModes) {
    if (m.name == name) return m.mode;
  }
  return std::nullopt;
}

void backward(Handle h, BackwardMode mode) {
  NamingOutOfMemory("backward", [&] { Backward(h, nullptr, mode); });
}

void backward(Handle h, const Operand& gradient, BackwardMode mode) {
  NamingOutOfMemory("backward", [&] { Backward(h, &gradient, mode); });
}

at::Tensor grad(Handle h) { return HostCopy(TensorOf("grad", h).grad()); }

Handle gradtensor(Handle h) {
  const at::Tensor g = TensorOf("grad", h).grad();
  if (!g.defined()) Fail("grad: no gradient defined");
  return Own(Object(g), "grad");
}

void zerograd(Handle h) {
  const ObjectClass c = HandleTable::Global().Info(h).object_class;
  // An optimizer's zero_grad sets the gradients to none from libtorch 2 (ktorch 2.3's zerograd).
  const bool to_none =
      kFollowsKtorch23 && (c == ObjectClass::kOptimizer || c == ObjectClass::kModel);
  for (at::Tensor& t : GradientHoldersOf("zerograd", h)) {
    if (to_none) {
      t.mutable_grad().reset();
    } else if (t.grad().defined()) {
      t.grad().detach().zero_();
    }
  }
}

void nograd(Handle h) {
  for (at::Tensor& t : GradientHoldersOf("nograd", h)) t.mutable_grad().reset();
}

Result detach(const Operand& x) {
  return Compute("detach", {&x}, Handle(), [](const TensorList& t) { return t[0].detach(); });
}

void detach_(Handle h) {
  switch (HandleTable::Global().Info(h).object_class) {
    case ObjectClass::kVector: return detach_(h, absl::Span<const std::int64_t>());
    case ObjectClass::kDictionary: return detach_(h, absl::Span<const std::string>());
    default: DetachEach({Selected{TensorsOf("detach", h).front(), "the tensor"}});
  }
}

void detach_(Handle v, absl::Span<const std::int64_t> indices) {
  DetachEach(SelectElements("detach", v, indices));
}

void detach_(Handle d, absl::Span<const std::string> keys) {
  DetachEach(SelectElements("detach", d, keys));
}

bool gradflag(Handle h) { return TensorOf("gradflag", h).requires_grad(); }

PerElement<bool> gradflags(Handle h) {
  const ObjectClass c = HandleTable::Global().Info(h).object_class;
  if (c == ObjectClass::kModule || c == ObjectClass::kModel) {
    PerElement<bool>::Named flags;
    for (const auto& p : NamedParametersOf(h))
      flags.emplace_back(p.key(), p.value().requires_grad());
    return flags;
  }
  const Object o = HandleTable::Global().Get(h);
  if (const TensorDict* d = o.dict()) {
    PerElement<bool>::Named flags;
    for (const auto& item : *d) flags.emplace_back(item.key(), item.value().requires_grad());
    return flags;
  }
  if (const TensorVector* v = o.vector()) {
    PerElement<bool>::List flags;
    for (const at::Tensor& t : *v) flags.push_back(t.requires_grad());
    return flags;
  }
  if (const at::Tensor* t = o.tensor()) return t->requires_grad();
  Fail("gradflag: expected tensor, vector, dictionary, module or model, given %s", ClassName(c));
}

PerElement<bool> gradflags(Handle v, absl::Span<const std::int64_t> indices) {
  PerElement<bool>::List flags;
  for (const at::Tensor& t : VectorElements("gradflag", v, indices))
    flags.push_back(t.requires_grad());
  return flags;
}

PerElement<bool> gradflags(Handle d, absl::Span<const std::string> keys) {
  PerElement<bool>::Named flags;
  for (const auto& [key, t] : DictElements("gradflag", d, keys))
    flags.emplace_back(key, t.requires_grad());
  return flags;
}

void gradflag(Handle h, bool requires_grad) {
  const ObjectClass c = HandleTable::Global().Info(h).object_class;
  if (c == ObjectClass::kModule || c == ObjectClass::kModel) {
    for (auto& p : NamedParametersOf(h)) p.value().set_requires_grad(requires_grad);
    return;
  }
  if (c != ObjectClass::kTensor && c != ObjectClass::kVector && c != ObjectClass::kDictionary) {
    Fail("gradflag: expected tensor, vector, dictionary, module or model, given %s", ClassName(c));
  }
  for (at::Tensor& t : HandleTable::Global().Get(h).tensors()) t.set_requires_grad(requires_grad);
}

void gradflag(Handle v, absl::Span<const std::int64_t> indices, bool requires_grad) {
  for (at::Tensor& t : VectorElements("gradflag", v, indices)) t.set_requires_grad(requires_grad);
}

void gradflag(Handle d, absl::Span<const std::string> keys, bool requires_grad) {
  for (auto& [key, t] : DictElements("gradflag", d, keys)) t.set_requires_grad(requires_grad);
}

}  // namespace kscope
