// Device memory for users: how much each device holds (allocated, reserved, peaks, live
// allocations), peaks reset, cached memory given back, a limit per device, and a scope's
// footprint. The q plugin's devicememory, resetpeaks, emptycache, memorylimit and footprint.
//
//   for (const kscope::DeviceMemory& m : kscope::device_memory())
//     std::cout << m.device << " " << m.allocated << " bytes\n";
//
// Where the numbers come from: the CPU's from kscope's counting CPU allocator (installed with
// the handle table: runtime/cpu_memory.h), which holds no cache (reserved = allocated); each CUDA
// device's from libtorch's caching allocator, once the process uses CUDA (runtime/device_memory.h).
// Peaks are since the last reset_peak_memory() (runtime/memory_window.h). obj[]'s bytes are each
// handle's own; these are the devices', handles or not (autograd graphs, optimizer state, ...).
//
// Errors: kscope::Error naming the call for a device this build or machine lacks, or a
// negative limit. Thread-safety: every function may be called from any thread.
#ifndef KSCOPE_API_ENV_MEMORY_H_
#define KSCOPE_API_ENV_MEMORY_H_

#include <cstdint>
#include <optional>
#include <vector>

#include <c10/core/Device.h>

#include "runtime/device_memory.h"
#include "runtime/memory_window.h"
#include "scope/scope_footprint.h"

namespace kscope {

// Every device in use: the CPU, then CUDA devices by index.
std::vector<DeviceMemory> device_memory();
// One device (a CUDA device not yet in use reads all zeros). Throws for a device this build
// or machine lacks.
DeviceMemory device_memory(c10::Device device);
// Peaks start again from the bytes held now, on every device.
void reset_peak_memory();
// Gives back what the allocators keep unused: CUDA's cached blocks, the C heap's free pages.
void empty_cache();
// Allocations beyond `bytes` on `device` fail as out of memory (nullopt: no limit). On the
// CPU exact; on CUDA the caching allocator's per-process fraction of the device's memory.
void set_memory_limit(c10::Device device, std::optional<std::int64_t> bytes);
std::optional<std::int64_t> memory_limit(c10::Device device);

}  // namespace kscope

#endif  // KSCOPE_API_ENV_MEMORY_H_
