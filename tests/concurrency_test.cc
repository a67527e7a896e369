// Threads against the handle table and the scope stacks (issue 20, scope-rules.md rule 12):
// workers creating, handing off, freeing and addref-ing in scopes of their own while other
// threads read obj[], free root-owned handles, free and try to keep the workers' handles, and
// use stale ids. Every build runs these; the ThreadSanitizer build (KSCOPE_SANITIZE=thread,
// .ci/run) runs them to find data races. Each test is bounded by a Watchdog, not by a time.
#include <algorithm>
#include <atomic>
#include <deque>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "tests/test_fixture.h"
#include "tests/watchdog.h"

namespace kscope {
namespace concurrency_test {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using testing::Watchdog;

using ConcurrencyTest = testing::LeakCheckTest;

constexpr int kWorkers = 4;
constexpr int kReaders = 2;
constexpr int kRounds = 400;
constexpr int kRootHandles = 64;

// True if e is kscope's stale-pointer error.
bool IsStale(const Error& e) {
  return std::string(e.what()).find(kStalePointer) != std::string::npos;
}

// Handles that workers offer from inside their open scopes, for readers to take.
class Mailbox {
 public:
  void Post(Handle h) {
    absl::MutexLock lock(&mu_);
    posted_.push_back(h);
  }
  // The oldest posted handle, or an empty one.
  Handle Take() {
    absl::MutexLock lock(&mu_);
    if (posted_.empty()) return Handle();
    Handle h = posted_.front();
    posted_.pop_front();
    return h;
  }

 private:
  absl::Mutex mu_;
  std::deque<Handle> posted_ ABSL_GUARDED_BY(mu_);
};

// What the threads counted; compared exactly once they have all joined.
struct Tally {
  std::atomic<int> kept{0};               // rounds whose result reached the worker's outer scope
  std::atomic<int> root_reads{0};         // a worker read a root handle's values
  std::atomic<int> root_reads_stale{0};   // ... after a reader had freed it
  std::atomic<int> roots_freed{0};        // readers' successful frees of root handles
  std::atomic<int> taken{0};              // posted handles a reader took
  std::atomic<int> taken_freed{0};        // ... and freed while the worker's scope was open
  std::atomic<int> stale_uses{0};         // uses of the stale id, each refused
  std::atomic<int> unexpected_errors{0};  // anything else: a failure
};

// One worker: kRounds rounds, each in a scope of its own, inside one outer scope.
void WorkerRounds(const std::vector<Handle>& roots, Mailbox& mailbox, Tally& tally) {
  auto outer = Scope::Open();
  std::vector<Handle> kept;
  for (int round = 0; round < kRounds; ++round) {
    kept.push_back(with_scope([&] {
      Handle a = ones({3});
      Handle b = addref(a);
      Handle sum = kscope::add(a, b);  // 2 2 2
      kscope::free(b);
      mailbox.Post(addref(sum));  // owned by this open scope: readers may free it, not keep it
      const Handle root = roots[static_cast<std::size_t>(round) % roots.size()];
      try {
        EXPECT_EQ(values<float>(root), std::vector<float>(2, 1.0f));
        ++tally.root_reads;
      } catch (const Error& e) {
        if (!IsStale(e)) ADD_FAILURE() << "reading a root handle: " << e.what();
        ++tally.root_reads_stale;
      }
      return kscope::mul(sum, sum);  // 4 4 4, handed to `outer`
    }));
    ++tally.kept;
  }
  // (Reference counts are not checked here: a reader's obj[] holds each object while it reads.)
  for (Handle h : kept) EXPECT_EQ(values<float>(h), std::vector<float>(3, 4.0f));
}

// One reader: until the workers finish, frees root handles (each exactly once across the
// readers), takes posted handles (keeping one must fail; freeing one succeeds unless its scope
// has closed), reads obj[], and uses a stale id.
void ReaderRounds(const std::vector<Handle>& roots, std::atomic<int>& next_root, Handle stale,
                  Mailbox& mailbox, const std::atomic<bool>& workers_done, Tally& tally) {
  while (!workers_done.load()) {
    const int i = next_root.fetch_add(1);
    if (i < static_cast<int>(roots.size())) {
      kscope::free(roots[static_cast<std::size_t>(i)]);
      ++tally.roots_freed;
    }
    if (Handle h = mailbox.Take(); !h.is_null()) {
      ++tally.taken;
      try {
        (void)with_scope([&] { return h; });
        ADD_FAILURE() << "kept a handle owned by another thread's scope";
      } catch (const Error& e) {
        EXPECT_THAT(e.what(),
                    AnyOf(HasSubstr("owned by another thread's scope"), HasSubstr(kStalePointer)));
      }
      try {
        kscope::free(h);
        ++tally.taken_freed;
      } catch (const Error& e) {
        if (!IsStale(e)) ++tally.unexpected_errors;
      }
    }
    for (const ObjectRow& row : obj()) {
      EXPECT_EQ(row.object_class, ObjectClass::kTensor);
      std::int64_t product = 1;
      for (std::int64_t d : row.size) product *= d;
      EXPECT_EQ(row.elements, product);
    }
    EXPECT_FALSE(mapped(stale));
    try {
      kscope::free(stale);
      ++tally.unexpected_errors;
    } catch (const Error& e) {
      if (IsStale(e)) ++tally.stale_uses;
    }
  }
}

TEST_F(ConcurrencyTest, WorkersInTheirOwnScopesWhileOthersReadFreeAndUseStaleIds) {
  Watchdog watchdog("ConcurrencyTest.WorkersInTheirOwnScopesWhileOthersReadFreeAndUseStaleIds");
  std::vector<Handle> roots;
  for (int i = 0; i < kRootHandles; ++i) roots.push_back(ones({2}));  // owned by the root
  const Handle stale = zeros({1});
  kscope::free(stale);

  Mailbox mailbox;
  Tally tally;
  std::atomic<int> next_root{0};
  std::atomic<bool> workers_done{false};
  std::vector<std::thread> readers;
  for (int r = 0; r < kReaders; ++r) {
    readers.emplace_back(
        [&] { ReaderRounds(roots, next_root, stale, mailbox, workers_done, tally); });
  }
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&] { WorkerRounds(roots, mailbox, tally); });
  }
  for (std::thread& t : workers) t.join();
  workers_done.store(true);
  for (std::thread& t : readers) t.join();
  // Root handles the readers had not reached yet.
  for (int i = next_root.load(); i < kRootHandles; ++i) {
    kscope::free(roots[static_cast<std::size_t>(i)]);
    ++tally.roots_freed;
  }
  for (Handle h = mailbox.Take(); !h.is_null(); h = mailbox.Take()) {
    EXPECT_FALSE(mapped(h));  // died with their scopes
  }

  EXPECT_EQ(tally.kept.load(), kWorkers * kRounds);
  EXPECT_EQ(tally.root_reads.load() + tally.root_reads_stale.load(), kWorkers * kRounds);
  EXPECT_EQ(tally.roots_freed.load(), kRootHandles);
  EXPECT_LE(tally.taken_freed.load(), tally.taken.load());
  EXPECT_GT(tally.stale_uses.load(), 0);
  EXPECT_EQ(tally.unexpected_errors.load(), 0);
  EXPECT_EQ(live_handles(), 0u);
}

TEST_F(ConcurrencyTest, ConsumingConstructionAndAFreeOfItsInputRacingMeetOnce) {
  // vector(a, b) consumes a and b (validate, build, commit) while another thread frees b: exactly
  // one of the two wins, and the loser changes nothing.
  Watchdog watchdog("ConcurrencyTest.ConsumingConstructionAndAFreeOfItsInputRacingMeetOnce");
  constexpr int kTries = 200;
  int vectors_made = 0, frees_won = 0;
  for (int i = 0; i < kTries; ++i) {
    const Handle a = ones({2});
    const Handle b = zeros({2});
    std::atomic<bool> go{false};
    bool freed = false;
    std::thread freer([&] {
      while (!go.load()) {
      }
      try {
        kscope::free(b);
        freed = true;
      } catch (const Error& e) {
        EXPECT_THAT(e.what(), HasSubstr(kStalePointer));
      }
    });
    Handle v;
    go.store(true);
    try {
      v = vector({a, b});
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr(kStalePointer));
    }
    freer.join();
    ASSERT_NE(!v.is_null(), freed) << "try " << i;
    if (!v.is_null()) {
      ++vectors_made;
      EXPECT_FALSE(mapped(a));
      EXPECT_EQ(vector(v).size(), 2u);
      kscope::free(v);
    } else {
      ++frees_won;
      EXPECT_TRUE(mapped(a));  // the failed construction left its other input alone
      EXPECT_EQ(ref(a).single(), 1);
      kscope::free(a);
    }
  }
  EXPECT_EQ(vectors_made + frees_won, kTries);
  EXPECT_EQ(live_handles(), 0u);
}

TEST_F(ConcurrencyTest, ThreadsCreateAndFreeThroughOneTableWithExactCounts) {
  // Many short-lived handles from every thread at once: ids stay unique and the table's count
  // returns to zero.
  Watchdog watchdog("ConcurrencyTest.ThreadsCreateAndFreeThroughOneTableWithExactCounts");
  constexpr int kThreads = 6;
  constexpr int kHandles = 400;
  std::vector<std::vector<std::uint64_t>> ids(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&ids, t] {
      std::vector<Handle> mine;
      for (int i = 0; i < kHandles; ++i) {
        mine.push_back(zeros({1}));
        if (i % 3 == 2) mine.push_back(addref(mine.back()));
      }
      for (Handle h : mine) ids[static_cast<std::size_t>(t)].push_back(h.id());
      kscope::free(absl::MakeConstSpan(mine));
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<std::uint64_t> all;
  for (const auto& v : ids) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "an id was handed out twice";
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kThreads) * (kHandles + kHandles / 3));
  EXPECT_EQ(live_handles(), 0u);
}

}  // namespace concurrency_test
}  // namespace kscope
