// Helpers shared by the optimizer and clipping tests: small modules, gradients through them,
// and copies of a module's parameter values.
#ifndef KSCOPE_TESTS_OPTIMIZER_TEST_UTIL_H_
#define KSCOPE_TESTS_OPTIMIZER_TEST_UTIL_H_

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include "api/nn/module.h"
#include "api/nn/module_object.h"

namespace kscope::testing {

inline Handle Linear(std::int64_t in, std::int64_t out) {
  return module(ModuleDefinition{"linear", "", {in, out}, {}, {}});
}

// (`sequential; (`linear;in;hidden); `relu; (`linear;hidden;out)): children 0 1 2.
inline Handle Sequential(std::int64_t in, std::int64_t hidden, std::int64_t out) {
  return module(ModuleDefinition{"sequential",
                                 "",
                                 {},
                                 {},
                                 {ModuleDefinition{"linear", "", {in, hidden}, {}, {}},
                                  ModuleDefinition{"relu", "", {}, {}, {}},
                                  ModuleDefinition{"linear", "", {hidden, out}, {}, {}}}});
}

// (`sequential; (`linear;in;hidden); `relu; (`linear;hidden;hidden); `relu; (`linear;hidden;out)).
inline Handle Mlp(std::int64_t in, std::int64_t hidden, std::int64_t out) {
  return module(ModuleDefinition{"sequential",
                                 "",
                                 {},
                                 {},
                                 {ModuleDefinition{"linear", "", {in, hidden}, {}, {}},
                                  ModuleDefinition{"relu", "", {}, {}, {}},
                                  ModuleDefinition{"linear", "", {hidden, hidden}, {}, {}},
                                  ModuleDefinition{"relu", "", {}, {}, {}},
                                  ModuleDefinition{"linear", "", {hidden, out}, {}, {}}}});
}

// Gradients of sum(q(x)) accumulated on q's parameters.
inline void Backward(Handle q, const at::Tensor& x) { forward(q, x).tensor().sum().backward(); }

// Copies the values of `from`'s parameters into those of `to` (same definition).
inline void CopyParameters(Handle from, Handle to) {
  c10::NoGradGuard no_grad;
  const auto source = nn::ModuleOf("test", from, ObjectClass::kModule)->module().named_parameters();
  for (auto& item : nn::ModuleOf("test", to, ObjectClass::kModule)->module().named_parameters()) {
    item.value().copy_(*source.find(item.key()));
  }
}

// A leaf copy of t's values that requires grad, with a copy of t's gradient.
inline at::Tensor WithGrad(const at::Tensor& values, const at::Tensor& gradient) {
  at::Tensor t = values.detach().clone().requires_grad_();
  t.mutable_grad() = gradient.clone();
  return t;
}

}  // namespace kscope::testing

#endif  // KSCOPE_TESTS_OPTIMIZER_TEST_UTIL_H_
