// keep_freed_memory — the C heap keeps the memory a training step frees, for the next step.
//
// glibc's malloc gives memory back to the system as soon as a large block is freed: blocks at
// or above its mmap threshold (128 KiB at first, then the largest block freed so far, up to
// 32 MiB) are unmapped, and the heap's free top is trimmed once it exceeds twice that. A
// training step that frees megabytes of gradients and activations then faults the same pages in
// again at the next step. Whether a process is hit depends on its heap's history: on a 16-core
// host, a kscope process training the 784-1024-1024-10 MLP of bench/distributed_bench took
// about 2,200 page faults per step and 1.4-1.65x the epoch time of a process with the memory
// kept, while a Python process doing the same work was not hit (docs/benchmarks.md).
//
// keep_freed_memory() fixes the thresholds for the rest of the process: blocks below 32 MiB
// come from the heap, and free memory at its top is given back only beyond 128 MiB. What the
// process once used stays mapped, as with a caching allocator: its resident size keeps its
// peak. Blocks of 32 MiB and more (a tensor of 8M floats) are still mapped and unmapped each
// time, as by default: kept on the heap, one-off large blocks could not be given back. glibc keeps
// fixed thresholds once set, so there is no undo. The q plugin calls it when loaded; C++ programs
// call it themselves (the benchmarks do). With KSCOPE_KEEP_FREED_MEMORY=0 in the environment it
// changes nothing.
//
// Returns whether the C library took the thresholds: false where the environment turns it off,
// where the C library is not glibc, or where an allocator standing in for malloc refuses them
// (AddressSanitizer's; ThreadSanitizer's takes them through glibc but allocates by its own
// rules). Thread-safe; the first call decides, later calls return its result.
#ifndef KSCOPE_API_ENV_FREED_MEMORY_H_
#define KSCOPE_API_ENV_FREED_MEMORY_H_

namespace kscope {

bool keep_freed_memory();

}  // namespace kscope

#endif  // KSCOPE_API_ENV_FREED_MEMORY_H_
