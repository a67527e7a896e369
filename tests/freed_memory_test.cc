// api/env/freed_memory.h: after keep_freed_memory(), a loop that makes and frees large blocks
// round after round, as training steps do, reuses its pages instead of faulting them in again.
#include "api/env/freed_memory.h"
#include "tests/heap_rounds.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace freed_memory_test {

using FreedMemoryTest = testing::LeakCheckTest;
using testing::FaultsPerHeapRound;
using testing::kHeapRoundPages;

TEST_F(FreedMemoryTest, RoundsAfterTheFirstReuseTheirPages) {
  if (testing::kSanitizerAllocator)
    GTEST_SKIP() << "a sanitizer's allocator stands in for glibc's malloc: no thresholds apply";
  const std::int64_t by_default = FaultsPerHeapRound();  // the thresholds as they were
  if (!keep_freed_memory())
    GTEST_SKIP() << "the C library took no thresholds (not glibc, or KSCOPE_KEEP_FREED_MEMORY=0)";
  EXPECT_LT(FaultsPerHeapRound(), kHeapRoundPages / 10)
      << "pages faulted in per round of " << kHeapRoundPages << " written; " << by_default
      << " per round before keep_freed_memory()";
}

}  // namespace freed_memory_test
}  // namespace kscope
