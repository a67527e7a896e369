// The one place where kscope bridges libtorch 1.13 and 2.x API differences.
//
// - Optional arguments of ATen ops are c10::optional in 1.13 (its own class) and std::optional
//   from 2.x (c10::optional became a deprecated alias), so kscope spells them AtOptional.
// - Multiplying a list of tensors by one scalar tensor is one multi-tensor operation from 2.1
//   (_foreach_mul_ with a Tensor); 1.13 multiplies them one by one (ScaleEach).
// - Autocast is set per device type from 2.x (set_autocast_enabled(type, on)); 1.13 has a pair of
//   functions per device (set_enabled for CUDA, set_cpu_enabled): runtime/autocast_guard.h
//   bridges them, apart from this header because autocast's header brings in all of ATen.
// - Fused adam and adamw kernels (_fused_adam_, _fused_adamw_: one pass per tensor for the whole
//   update) are used from libtorch 2 (FusedAdam); 1.13 has no adamw kernel and an adam kernel for
//   CUDA only, which Debian's CPU build cannot run: kscope leaves 1.13 on multi-tensor steps.
// - Where ktorch's releases differ, each line follows its own (kFollowsKtorch23): ktorch 1.13 on
//   libtorch 1.13, ktorch 2.3 (built for libtorch 2.2-2.3) on libtorch 2.x — run's and testrun's
//   loss metrics are reals there, floats in 1.13 (tests/differential: one oracle per line).
#ifndef KSCOPE_RUNTIME_TORCH_COMPAT_H_
#define KSCOPE_RUNTIME_TORCH_COMPAT_H_

#include <optional>

#include <ATen/core/Tensor.h>
#include <ATen/ops/_foreach_mul.h>
#include <torch/version.h>
#if TORCH_VERSION_MAJOR >= 2
#include <ATen/ops/_fused_adam.h>
#include <ATen/ops/_fused_adamw.h>
#endif
#include <c10/util/Optional.h>

namespace kscope {

#if TORCH_VERSION_MAJOR >= 2
template <typename T>
using AtOptional = std::optional<T>;
#else
template <typename T>
using AtOptional = c10::optional<T>;
#endif

// An AtOptional from a std::optional.
template <typename T>
AtOptional<T> ToAtOptional(const std::optional<T>& v) {
  return v ? AtOptional<T>(*v) : AtOptional<T>();
}

// Multiplies each of `tensors` in place by `factor`, a scalar tensor.
inline void ScaleEach(at::TensorList tensors, const at::Tensor& factor) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
  at::_foreach_mul_(tensors, factor);
#else
  for (const at::Tensor& t : tensors) t.mul_(factor);
#endif
}

// Whether FusedAdam can run on this libtorch (its kernels exist for some devices).
inline constexpr bool kFusedAdamBuilt = TORCH_VERSION_MAJOR >= 2;

inline constexpr bool kFollowsKtorch23 = TORCH_VERSION_MAJOR >= 2;

// One fused adam (decoupled false: L2 decay added to the gradient) or adamw (decoupled decay)
// update of the lists, each parameter's step count read from `steps` (float tensors on its
// device, already advanced for this step). Only when kFusedAdamBuilt; an empty
// `max_exp_avg_sqs` without amsgrad.
inline void FusedAdam(bool decoupled, at::TensorList params, at::TensorList grads,
                      at::TensorList exp_avgs, at::TensorList exp_avg_sqs,
                      at::TensorList max_exp_avg_sqs, at::TensorList steps, double lr, double beta1,
                      double beta2, double weight_decay, double eps, bool amsgrad) {
#if TORCH_VERSION_MAJOR >= 2
  if (decoupled) {
    at::_fused_adamw_(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, lr, beta1,
                      beta2, weight_decay, eps, amsgrad, /*maximize=*/false);
  } else {
    at::_fused_adam_(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, lr, beta1, beta2,
                     weight_decay, eps, amsgrad, /*maximize=*/false);
  }
#else
  (void)decoupled, (void)params, (void)grads, (void)exp_avgs, (void)exp_avg_sqs;
  (void)max_exp_avg_sqs, (void)steps, (void)lr, (void)beta1, (void)beta2, (void)weight_decay;
  (void)eps, (void)amsgrad;
#endif
}

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_TORCH_COMPAT_H_
