// api/env/freed_memory.h: after keep_freed_memory(), a loop that makes and frees large tensors
// round after round, as training steps do, reuses its pages instead of faulting them in again.
#include <sys/resource.h>

#include <cstdint>
#include <vector>

#include <ATen/ops/empty.h>

#include "api/env/freed_memory.h"
#include "tests/test_fixture.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KSCOPE_TEST_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define KSCOPE_TEST_SANITIZER_ALLOCATOR 1
#endif
#endif

namespace kscope {
namespace freed_memory_test {

using FreedMemoryTest = testing::LeakCheckTest;

constexpr std::int64_t kBlockBytes = 30 << 20, kBlocks = 3, kPageBytes = 4096;
constexpr std::int64_t kPagesPerRound = kBlocks * kBlockBytes / kPageBytes;
constexpr int kRounds = 4;

std::int64_t MinorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// One round: three 30 MiB tensors written through, then freed: 90 MiB at the heap's top, more
// than glibc's default trim threshold can ever be (twice its largest mmap threshold, 64 MiB).
void Round() {
  std::vector<at::Tensor> blocks;
  for (int i = 0; i < kBlocks; ++i)
    blocks.push_back(at::empty({kBlockBytes}, at::kByte).fill_(i + 1));
}

// The minor page faults per round of kRounds rounds after a first one.
std::int64_t FaultsPerRound() {
  Round();
  const std::int64_t before = MinorFaults();
  for (int i = 0; i < kRounds; ++i) Round();
  return (MinorFaults() - before) / kRounds;
}

TEST_F(FreedMemoryTest, RoundsAfterTheFirstReuseTheirPages) {
#ifdef KSCOPE_TEST_SANITIZER_ALLOCATOR
  GTEST_SKIP()
      << "a sanitizer's allocator stands in for glibc's malloc: its thresholds do not apply";
#else
  const std::int64_t by_default = FaultsPerRound();  // the process's thresholds as they were
  if (!keep_freed_memory())
    GTEST_SKIP() << "the C library took no thresholds (not glibc, or KSCOPE_KEEP_FREED_MEMORY=0)";
  const std::int64_t kept = FaultsPerRound();
  EXPECT_LT(kept, kPagesPerRound / 10)
      << "pages faulted in per round of " << kPagesPerRound << " written; " << by_default
      << " per round before keep_freed_memory()";
#endif
}

}  // namespace freed_memory_test
}  // namespace kscope
