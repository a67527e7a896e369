// The libtorch 1.13/2.x bridge for CPU allocators (the third part of runtime/torch_compat.h,
// apart so that only allocators parse c10's allocator header).
//
// - A c10::Allocator's allocate() is const up to libtorch 2.2; from 2.3 it is not, and copy_data
//   must be defined. CpuAllocatorBase gives both lines one interface: a derived class implements
//   Allocate (const) and raw_deleter; copies between its blocks are memcpy.
#ifndef KSCOPE_RUNTIME_TORCH_COMPAT_ALLOCATOR_H_
#define KSCOPE_RUNTIME_TORCH_COMPAT_ALLOCATOR_H_

#include <cstddef>

#include <c10/core/Allocator.h>
#include <torch/version.h>

namespace kscope {

class CpuAllocatorBase : public c10::Allocator {
 public:
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
  c10::DataPtr allocate(std::size_t n) override { return Allocate(n); }
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
#else
  c10::DataPtr allocate(std::size_t n) const override { return Allocate(n); }
#endif

 protected:
  virtual c10::DataPtr Allocate(std::size_t n) const = 0;
};

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_TORCH_COMPAT_ALLOCATOR_H_
