// The one place where kscope bridges libtorch 1.13 and 2.x API differences.
//
// - Optional arguments of ATen ops are c10::optional in 1.13 (its own class) and std::optional
//   from 2.x (c10::optional became a deprecated alias), so kscope spells them AtOptional.
// - Multiplying a list of tensors by one scalar tensor is one multi-tensor operation from 2.1
//   (_foreach_mul_ with a Tensor); 1.13 multiplies them one by one (ScaleEach).
// - Autocast is set per device type from 2.x (set_autocast_enabled(type, on)); 1.13 has a pair of
//   functions per device (set_enabled for CUDA, set_cpu_enabled): AutocastGuard hides which.
#ifndef KSCOPE_RUNTIME_TORCH_COMPAT_H_
#define KSCOPE_RUNTIME_TORCH_COMPAT_H_

#include <optional>

#include <ATen/autocast_mode.h>
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

// Autocast (mixed precision, as torch.autocast) for the CPU or CUDA, on this thread while the
// guard lives: operators on that device's tensors run in `dtype` where autocast's lists say so.
// The previous state comes back when it ends, and the outermost guard clears the cast cache.
// Supported() is whether autocast covers `type` in `dtype` here: CPU and CUDA, but 1.13's CPU
// autocast has bf16 only.
class AutocastGuard {
 public:
  static bool Supported(c10::DeviceType type, at::ScalarType dtype) {
    if (type == c10::DeviceType::CUDA) return true;
#if TORCH_VERSION_MAJOR >= 2
    return type == c10::DeviceType::CPU;
#else
    return type == c10::DeviceType::CPU && dtype == at::kBFloat16;
#endif
  }
  AutocastGuard(c10::DeviceType type, at::ScalarType dtype)
      : type_(type), enabled_(Enabled(type)), dtype_(Dtype(type)) {
    Set(type_, true, dtype);
    at::autocast::increment_nesting();
  }
  ~AutocastGuard() {
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    Set(type_, enabled_, dtype_);
  }
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
#if TORCH_VERSION_MAJOR >= 2
  static bool Enabled(c10::DeviceType type) { return at::autocast::is_autocast_enabled(type); }
  static at::ScalarType Dtype(c10::DeviceType type) {
    return at::autocast::get_autocast_dtype(type);
  }
  static void Set(c10::DeviceType type, bool on, at::ScalarType dtype) {
    at::autocast::set_autocast_dtype(type, dtype);
    at::autocast::set_autocast_enabled(type, on);
  }
#else
  static bool Enabled(c10::DeviceType type) {
    return type == c10::DeviceType::CPU ? at::autocast::is_cpu_enabled()
                                        : at::autocast::is_enabled();
  }
  static at::ScalarType Dtype(c10::DeviceType type) {
    return type == c10::DeviceType::CPU ? at::autocast::get_autocast_cpu_dtype()
                                        : at::autocast::get_autocast_gpu_dtype();
  }
  static void Set(c10::DeviceType type, bool on, at::ScalarType dtype) {
    if (type == c10::DeviceType::CPU) {
      at::autocast::set_autocast_cpu_dtype(dtype);
      at::autocast::set_cpu_enabled(on);
    } else {
      at::autocast::set_autocast_gpu_dtype(dtype);
      at::autocast::set_enabled(on);
    }
  }
#endif

  c10::DeviceType type_;
  bool enabled_;
  at::ScalarType dtype_;
};

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_TORCH_COMPAT_H_
