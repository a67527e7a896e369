#include "api/env/memory.h"

#include "runtime/errors.h"
#include "runtime/out_of_memory.h"

#ifdef KSCOPE_WITH_CUDA
#include <c10/cuda/CUDAFunctions.h>
#endif

namespace kscope {
namespace {

// Throws unless `device` is the CPU or one of this machine's CUDA devices.
void CheckMemoryDevice(c10::Device device) {
  if (device.is_cpu()) return;
  int cuda_devices = 0;
#ifdef KSCOPE_WITH_CUDA
  cuda_devices = c10::cuda::device_count();
#endif
  if (device.is_cuda() && (device.has_index() ? device.index() : 0) < cuda_devices) return;
  Fail("devicememory: no device %s here (the cpu and %d CUDA device(s))", device.str(),
       cuda_devices);
}

}  // namespace

std::vector<DeviceMemory> device_memory() {
  WatchCudaOutOfMemory();
  return DeviceMemoryNow();
}

DeviceMemory device_memory(c10::Device device) {
  CheckMemoryDevice(device);
  const c10::Device wanted =
      device.is_cuda() && !device.has_index() ? c10::Device(c10::DeviceType::CUDA, 0) : device;
  for (const DeviceMemory& m : device_memory()) {
    if (m.device == wanted) return m;
  }
  DeviceMemory unused;
  unused.device = wanted;
  return unused;
}

void reset_peak_memory() { ResetPeakMemory(); }

void empty_cache() { EmptyDeviceCaches(); }

void set_memory_limit(c10::Device device, std::optional<std::int64_t> bytes) {
  CheckMemoryDevice(device);
  SetDeviceMemoryLimit(device, bytes);
}

std::optional<std::int64_t> memory_limit(c10::Device device) {
  CheckMemoryDevice(device);
  return DeviceMemoryLimit(device);
}

}  // namespace kscope
