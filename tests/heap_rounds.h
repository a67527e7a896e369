// Rounds of large heap blocks made, written through and freed, as a training step's gradients
// are, and the minor page faults they cost: how the tests see api/env/freed_memory.h's effect
// (tests/freed_memory_test.cc on kscope::keep_freed_memory, tests/plugin_freed_memory_test.cc on
// the plugin, which calls it when loaded).
//
// One round makes three 30 MiB blocks with malloc, writes every page and frees them: 90 MiB at
// the heap's top, more than glibc's default trim threshold can ever be (twice its largest mmap
// threshold, 64 MiB), so with glibc's default thresholds every round faults all its pages in
// again, and with the memory kept the rounds after the first fault none. Not thread-safe in what
// it measures: faults other threads take at the same time count too.
#ifndef KSCOPE_TESTS_HEAP_ROUNDS_H_
#define KSCOPE_TESTS_HEAP_ROUNDS_H_

#include <sys/resource.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace kscope::testing {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KSCOPE_TESTS_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define KSCOPE_TESTS_SANITIZER_ALLOCATOR 1
#endif
#endif

// True where a sanitizer's allocator stands in for glibc's malloc (its thresholds do not apply).
#ifdef KSCOPE_TESTS_SANITIZER_ALLOCATOR
inline constexpr bool kSanitizerAllocator = true;
#else
inline constexpr bool kSanitizerAllocator = false;
#endif

inline constexpr std::int64_t kHeapRoundBlockBytes = 30 << 20, kHeapRoundBlocks = 3;
inline constexpr std::int64_t kHeapRoundPages = kHeapRoundBlocks * kHeapRoundBlockBytes / 4096;

inline std::int64_t MinorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

inline void HeapRound() {
  void* blocks[kHeapRoundBlocks];
  for (std::int64_t i = 0; i < kHeapRoundBlocks; ++i) {
    blocks[i] = std::malloc(kHeapRoundBlockBytes);
    std::memset(blocks[i], static_cast<int>(i + 1), kHeapRoundBlockBytes);
    asm volatile("" : : "r"(blocks[i]) : "memory");  // the writes are not optimized away
  }
  for (void* block : blocks) std::free(block);
}

// The minor page faults per round of four rounds after a first one.
inline std::int64_t FaultsPerHeapRound() {
  constexpr int kRounds = 4;
  HeapRound();
  const std::int64_t before = MinorFaults();
  for (int i = 0; i < kRounds; ++i) HeapRound();
  return (MinorFaults() - before) / kRounds;
}

}  // namespace kscope::testing

#endif  // KSCOPE_TESTS_HEAP_ROUNDS_H_
