#include "runtime/device_memory.h"

#include <algorithm>

#include "runtime/cpu_memory.h"
#include "runtime/errors.h"

#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

#ifdef KSCOPE_WITH_CUDA
#include <ATen/Context.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#endif

namespace kscope {
namespace {

DeviceMemory CpuReading() {
  const CpuMemoryCounters cpu = CpuMemory();
  DeviceMemory m;
  m.allocated = m.reserved = cpu.allocated;
  m.peak_allocated = m.peak_reserved = cpu.peak_allocated;
  m.allocations = cpu.allocations;
  m.allocated_total = cpu.allocated_total;
  m.freed_total = cpu.allocated_total - cpu.allocated;
  return m;
}

#ifdef KSCOPE_WITH_CUDA
namespace cuda_alloc = c10::cuda::CUDACachingAllocator;

// The CUDA devices whose allocator is initialised: none before the process uses CUDA.
c10::DeviceIndex CudaDevicesInUse() {
  return cuda_alloc::get() != nullptr && cuda_alloc::get()->initialized()
             ? c10::cuda::device_count()
             : 0;
}

DeviceMemory CudaReading(c10::DeviceIndex index) {
  const auto stats = cuda_alloc::getDeviceStats(index);
  constexpr auto kAll = static_cast<std::size_t>(c10::CachingDeviceAllocator::StatType::AGGREGATE);
  const auto& allocated = stats.allocated_bytes[kAll];
  const auto& reserved = stats.reserved_bytes[kAll];
  DeviceMemory m;
  m.device = c10::Device(c10::DeviceType::CUDA, index);
  m.allocated = allocated.current;
  m.reserved = reserved.current;
  m.peak_allocated = allocated.peak;
  m.peak_reserved = reserved.peak;
  m.allocations = stats.allocation[kAll].current;
  m.allocated_total = allocated.allocated;
  m.freed_total = allocated.freed;
  return m;
}

// A CUDA device of this machine, its allocator initialised (setting a limit may start CUDA).
c10::DeviceIndex CudaDeviceForLimit(c10::Device device) {
  const c10::DeviceIndex index = device.has_index() ? device.index() : 0;
  if (index >= c10::cuda::device_count()) {
    Fail("memory limit: no CUDA device %s on this machine (%d device(s))", device.str(),
         c10::cuda::device_count());
  }
  at::globalContext().lazyInitDevice(c10::DeviceType::CUDA);
  return index;
}
#endif

}  // namespace

std::vector<DeviceMemory> ReadDeviceMemory() {
  std::vector<DeviceMemory> readings{CpuReading()};
#ifdef KSCOPE_WITH_CUDA
  for (c10::DeviceIndex i = 0, n = CudaDevicesInUse(); i < n; ++i) {
    readings.push_back(CudaReading(i));
  }
#endif
  return readings;
}

void ResetRawPeaks() {
  ResetCpuPeak();
#ifdef KSCOPE_WITH_CUDA
  for (c10::DeviceIndex i = 0, n = CudaDevicesInUse(); i < n; ++i) cuda_alloc::resetPeakStats(i);
#endif
}

void EmptyDeviceCaches() {
#ifdef KSCOPE_WITH_CUDA
  if (CudaDevicesInUse() > 0) cuda_alloc::emptyCache();
#endif
#if __has_include(<malloc.h>) && defined(__GLIBC__)
  malloc_trim(0);
#endif
}

void SetDeviceMemoryLimit(c10::Device device, std::optional<std::int64_t> bytes) {
  if (bytes && *bytes < 0) Fail("memory limit: expecting bytes >= 0, given %d", *bytes);
  if (device.is_cpu()) return SetCpuMemoryLimit(bytes);
#ifdef KSCOPE_WITH_CUDA
  if (device.is_cuda()) {
    const c10::DeviceIndex index = CudaDeviceForLimit(device);
    const double total = static_cast<double>(cuda_alloc::get()->getMemoryInfo(index).second);
    cuda_alloc::setMemoryFraction(bytes ? std::min(1.0, *bytes / total) : 1.0, index);
    return;
  }
#endif
  Fail("memory limit: not available for %s devices in this build", device.str());
}

std::optional<std::int64_t> DeviceMemoryLimit(c10::Device device) {
  if (device.is_cpu()) return CpuMemoryLimit();
#ifdef KSCOPE_WITH_CUDA
  if (device.is_cuda()) {
    const c10::DeviceIndex index = CudaDeviceForLimit(device);
    const double fraction = cuda_alloc::getMemoryFraction(index);
    if (fraction >= 1.0) return std::nullopt;
    const double total = static_cast<double>(cuda_alloc::get()->getMemoryInfo(index).second);
    return static_cast<std::int64_t>(fraction * total);
  }
#endif
  Fail("memory limit: not available for %s devices in this build", device.str());
}

}  // namespace kscope
