// The one place where kscope bridges libtorch 1.13 and 2.x API differences.
//
// - Optional arguments of ATen ops are c10::optional in 1.13 (its own class) and std::optional
//   from 2.x (c10::optional became a deprecated alias), so kscope spells them AtOptional.
// - Multiplying a list of tensors by one scalar tensor is one multi-tensor operation from 2.1
//   (_foreach_mul_ with a Tensor); 1.13 multiplies them one by one (ScaleEach).
// - Autocast is set per device type from 2.x (set_autocast_enabled(type, on)); 1.13 has a pair of
//   functions per device (set_enabled for CUDA, set_cpu_enabled): runtime/autocast_guard.h
//   bridges them, apart from this header because autocast's header brings in all of ATen.
#ifndef KSCOPE_RUNTIME_TORCH_COMPAT_H_
#define KSCOPE_RUNTIME_TORCH_COMPAT_H_

#include <optional>

#include <ATen/core/Tensor.h>
#include <ATen/ops/_foreach_mul.h>
#include <c10/util/Optional.h>
#include <torch/version.h>

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

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_TORCH_COMPAT_H_
