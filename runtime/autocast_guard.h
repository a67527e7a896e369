// AutocastGuard — mixed precision for one device type on this thread, as torch.autocast: the
// libtorch 1.13 / 2.x bridge for autocast (runtime/torch_compat.h lists the others).
//
// Thread-compatible: autocast's state is per thread; a guard must end on the thread it began.
#ifndef KSCOPE_RUNTIME_AUTOCAST_GUARD_H_
#define KSCOPE_RUNTIME_AUTOCAST_GUARD_H_

#include <ATen/autocast_mode.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>
#include <torch/version.h>

namespace kscope {

// Autocast (mixed precision, as torch.autocast) for the CPU or CUDA, on this thread while the
// guard lives: operators on that device's tensors run in `dtype` where autocast's lists say so.
// The previous state comes back when it ends, and the outermost guard clears the cast cache.
// Supported() is whether autocast covers `type` in `dtype` here: CPU and CUDA, but 1.13's CPU
// autocast has bf16 only.
class AutocastGuard {
 public:
  static bool Supported(c10::DeviceType type, [[maybe_unused]] at::ScalarType dtype) {
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

#endif  // KSCOPE_RUNTIME_AUTOCAST_GUARD_H_
