// The plugin called from several threads at once through the k host, as q runs it on its
// secondary threads (q -s N, peach): every thread in scopes of its own (scope[]/endscope),
// reading a pointer the main thread owns, computing, handing off and freeing, while others read
// obj[] and use a stale pointer. The ThreadSanitizer build (.ci/run) runs these to find races
// in the plugin's adapters and its error text; a Watchdog bounds each test.
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "tests/plugin_fixture.h"
#include "tests/watchdog.h"

namespace kscope::testing {
namespace plugin_concurrency_test {

using ::testing::HasSubstr;

constexpr int kThreads = 4;
constexpr int kRounds = 150;

// A pointer k object of this thread's own for pointer id `id`: q threads share values, but the
// host's reference counts, like q's, must not be changed by two threads at once.
KRef PointerTo(std::int64_t id) { return KRef(kq::List({kq::Long(id)})); }

class PluginConcurrencyTest : public PluginTest {
 protected:
  // q interns symbols under a lock once secondary threads run (setm(1) on the main thread).
  void SetUp() override {
    PluginTest::SetUp();
    was_locked_ = kabi::setm(1);
  }
  void TearDown() override {
    kabi::setm(was_locked_);
    PluginTest::TearDown();
  }

 private:
  int was_locked_ = 0;
};

TEST_F(PluginConcurrencyTest, ThreadsComputeInTheirOwnScopesWhileOthersReadAndUseStalePointers) {
  Watchdog watchdog(
      "PluginConcurrencyTest.ThreadsComputeInTheirOwnScopesWhileOthersReadAndUseStalePointers");
  KRef shared = Call("tensor", "1 2 3e");
  const std::int64_t shared_id = PointerId(shared);
  KRef gone = Call("tensor", "0e");
  const std::int64_t stale_id = PointerId(gone);
  Call("free", gone);

  std::atomic<int> kept{0}, stale_refused{0}, tables_read{0};
  std::atomic<bool> workers_done{false};
  std::thread reader([&] {
    while (!workers_done.load()) {
      KRef rows = Call("obj");
      if (rows) ++tables_read;
      EXPECT_EQ(S1(Call("mapped", PointerTo(stale_id))), "0b");
      EXPECT_THAT(Error("free", PointerTo(stale_id)), HasSubstr("stale pointer"));
      ++stale_refused;
    }
  });
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&] {
      KRef outer = Call("scope");
      std::vector<KRef> results;
      for (int round = 0; round < kRounds; ++round) {
        KRef inner = Call("scope");
        KRef mine = Call("tensor", "4 5 6e");
        KRef sum = Call("add", List({mine.share(), PointerTo(shared_id).release()}));
        EXPECT_EQ(Reals(Call("tensor", sum)), (std::vector<float>{5, 7, 9}));
        KRef product = Call("mul", List({sum.share(), sum.share()}));
        EXPECT_THAT(Error("add", List({mine.share(), kq::Sym("x")})), HasSubstr("add"));
        results.push_back(Call("endscope", List({inner.share(), product.share()})));
        EXPECT_EQ(S1(Call("mapped", mine)), "0b");  // released by endscope
        ++kept;
      }
      for (const KRef& r : results) {
        EXPECT_EQ(Reals(Call("tensor", r)), (std::vector<float>{25, 49, 81}));
      }
      EXPECT_FALSE(Call("endscope", outer));
      for (const KRef& r : results) EXPECT_EQ(S1(Call("mapped", r)), "0b");
    });
  }
  for (std::thread& w : workers) w.join();
  workers_done.store(true);
  reader.join();

  EXPECT_EQ(kept.load(), kThreads * kRounds);
  EXPECT_GT(stale_refused.load(), 0);
  EXPECT_EQ(tables_read.load(), stale_refused.load());
  EXPECT_EQ(Reals(Call("tensor", shared)), (std::vector<float>{1, 2, 3}));  // read, never changed
  Call("free", shared);
}

}  // namespace plugin_concurrency_test
}  // namespace kscope::testing
