// CPU memory accounting — libtorch's CPU allocations counted as the CUDA caching allocator
// counts a GPU's: bytes allocated now, their peak, the live allocation count and the bytes
// allocated in all, with an optional limit beyond which an allocation fails as out of memory.
//
// InstallCpuMemoryAccounting() puts kscope's CPU allocator in front of libtorch's default one
// (c10::SetCPUAllocator), for the rest of the process; the handle table does it when it is first
// made, so every kscope program counts from its first handle. Each allocation is the default
// allocator's (c10's alloc_cpu: 64-byte aligned, its fill and NUMA settings) with 64 bytes in
// front that record its size, so that its release subtracts it again; memory allocated before
// the install is not counted and, freed later, is not subtracted. Counting costs a few relaxed
// atomic operations per allocation and release. What it does not do: libtorch's profiler sees no
// CPU allocations (its CPU memory reporter is the default allocator's), and allocations that
// bypass the CPU allocator (pinned host memory: the CUDA host allocator's) are not counted.
//
// The CPU keeps no cache: memory freed goes back to the C heap at once, so reserved bytes are the
// allocated bytes.
//
// Errors: with a limit set, an allocation that would take the allocated bytes past it throws
// c10::OutOfMemoryError ("out of memory on cpu: tried to allocate N bytes ..."), as does one the
// C heap refuses; nothing is counted for it. Thread-safety: every function may be called from
// any thread; the counters are atomics, read one at a time (a reading is not a snapshot of all
// four at one instant while other threads allocate).
#ifndef KSCOPE_RUNTIME_CPU_MEMORY_H_
#define KSCOPE_RUNTIME_CPU_MEMORY_H_

#include <cstdint>
#include <optional>

namespace kscope {

struct CpuMemoryCounters {
  std::int64_t allocated = 0;        // bytes held by live allocations
  std::int64_t peak_allocated = 0;   // the most `allocated` has been since the last peak reset
  std::int64_t allocations = 0;      // live allocations
  std::int64_t allocated_total = 0;  // bytes allocated since the install (freed = total - now)
};

// Installs the counting allocator (once; later calls do nothing). Returns whether libtorch's CPU
// allocator is kscope's: false when another allocator of higher priority was installed first.
bool InstallCpuMemoryAccounting();

CpuMemoryCounters CpuMemory();
// The peak becomes the bytes allocated now.
void ResetCpuPeak();
// Allocations that would take the allocated bytes beyond `bytes` fail (nullopt: no limit, the
// default). Throws kscope::Error for a negative limit.
void SetCpuMemoryLimit(std::optional<std::int64_t> bytes);
std::optional<std::int64_t> CpuMemoryLimit();

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_CPU_MEMORY_H_
