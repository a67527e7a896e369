// Device memory readings — what each device's allocator holds, as counters: the CPU's from
// kscope's counting allocator (runtime/cpu_memory.h), each CUDA device's from libtorch's CUDA
// caching allocator.
//
// These are the raw readings: their peaks are the allocators' own, since the last raw reset.
// Users read peaks through runtime/memory_window.h, which keeps them across the resets that scope
// footprints make; ResetRawPeaks is for that file alone.
//
// Devices: the CPU always; CUDA devices (builds with CUDA) once the CUDA caching allocator is
// initialised, i.e. once the process has used CUDA: reading never initialises CUDA.
// Thread-safety: every function may be called from any thread.
#ifndef KSCOPE_RUNTIME_DEVICE_MEMORY_H_
#define KSCOPE_RUNTIME_DEVICE_MEMORY_H_

#include <cstdint>
#include <optional>
#include <vector>

#include <c10/core/Device.h>

namespace kscope {

struct DeviceMemory {
  c10::Device device = c10::Device(c10::DeviceType::CPU);
  std::int64_t allocated = 0;  // bytes in live allocations
  std::int64_t reserved = 0;   // bytes the allocator holds, allocated or cached (CPU: allocated)
  std::int64_t peak_allocated = 0;   // the most allocated since the last peak reset
  std::int64_t peak_reserved = 0;    // the most reserved since the last peak reset
  std::int64_t allocations = 0;      // live allocations
  std::int64_t allocated_total = 0;  // bytes allocated in all (the process's lifetime)
  std::int64_t freed_total = 0;      // bytes freed in all
};

// One reading per device: the CPU first, then the CUDA devices in use, by index.
std::vector<DeviceMemory> ReadDeviceMemory();
// The allocators' peaks become their current values, on every device.
void ResetRawPeaks();
// Gives memory the allocators keep but do not use back to the system: the CUDA caching
// allocator's unused cached blocks, and the C heap's free pages (malloc_trim).
void EmptyDeviceCaches();
// A limit on a device's allocated bytes (nullopt: none): on the CPU exactly (kscope's
// allocator); on a CUDA device as the caching allocator's per-process memory fraction (bytes /
// the device's total memory). Throws kscope::Error for a negative limit, a CUDA device this
// build or machine lacks, or another device type.
void SetDeviceMemoryLimit(c10::Device device, std::optional<std::int64_t> bytes);
std::optional<std::int64_t> DeviceMemoryLimit(c10::Device device);

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_DEVICE_MEMORY_H_
