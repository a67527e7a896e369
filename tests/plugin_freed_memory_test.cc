// The plugin keeps the C heap's freed memory once loaded (q/fns.cc calls
// kscope::keep_freed_memory): a loop that makes and frees large blocks round after round in the
// process that loaded it reuses its pages. KSCOPE_KEEP_FREED_MEMORY=0 in the environment turns
// that off; the test then says so and skips.
#include <cstdlib>
#include <cstring>

#include "tests/heap_rounds.h"
#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_freed_memory_test {

using PluginFreedMemoryTest = PluginTest;

TEST_F(PluginFreedMemoryTest, TheProcessThatLoadedThePluginReusesFreedPages) {
  if (kSanitizerAllocator)
    GTEST_SKIP() << "a sanitizer's allocator stands in for glibc's malloc: no thresholds apply";
  const char* setting = std::getenv("KSCOPE_KEEP_FREED_MEMORY");
  if (setting != nullptr && std::strcmp(setting, "0") == 0)
    GTEST_SKIP() << "KSCOPE_KEEP_FREED_MEMORY=0: the plugin leaves malloc's thresholds alone";
  EXPECT_LT(FaultsPerHeapRound(), kHeapRoundPages / 10)
      << "pages faulted in per round of " << kHeapRoundPages << " written";
}

}  // namespace plugin_freed_memory_test
}  // namespace kscope::testing
