// census.cc — the post-call sweep, LeakScope, AllowRetained and Stats().
#include "tests/khost/census.h"

#include <algorithm>
#include <atomic>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "tests/khost/format.h"
#include "tests/khost/heap.h"
#include "tests/khost/report.h"
#include "tests/khost/validate.h"

namespace khost {
namespace {

using kabi::K;

std::atomic<int> retain_guards{0};
std::atomic<std::int64_t> retained_count{0};

struct OverOwnedLog {
  absl::Mutex mu;
  absl::flat_hash_set<std::uint64_t> reported ABSL_GUARDED_BY(mu);
};

OverOwnedLog& OverOwned() {
  static OverOwnedLog* log = new OverOwnedLog;
  return *log;
}

// The container slots of the live objects, as the objects they hold, sorted: the number of
// slots holding x is the length of x's run. (A sorted vector, not a hash map: the sweep runs
// after every call over every live object, and this is several times cheaper.)
class InEdges {
 public:
  explicit InEdges(const std::vector<internal::LiveObject>& live) {
    for (const internal::LiveObject& o : live) {
      for (K child : internal::Children(o.object)) {
        if (!internal::IsUnfilled(child) && child != nullptr) held_.push_back(child);
      }
    }
    std::sort(held_.begin(), held_.end());
  }

  // Whether a container slot holds x.
  bool Holds(K x) const { return std::binary_search(held_.begin(), held_.end(), x); }

  // Calls f(x, slots) for every object held in more than one slot: one pass over the runs.
  template <typename F>
  void ForEachShared(F f) const {
    for (auto run = held_.begin(); run != held_.end();) {
      const auto end = std::find_if(run, held_.end(), [&](K y) { return y != *run; });
      if (end - run > 1) f(*run, end - run);
      run = end;
    }
  }

 private:
  std::vector<K> held_;
};

// A short description of a leaked object for the report.
std::string Describe(K x) {
  std::string text = S1(x);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

// Over-ownership among the calling thread's objects: one held in more slots than r + 1 allows.
// (Only an object in two slots or more can be: r is never negative on a live object.)
void CheckOverOwnership(const InEdges& edges, absl::string_view name) {
  OverOwnedLog& log = OverOwned();
  const std::uint32_t thread = internal::ThreadIndex();
  edges.ForEachShared([&](K x, std::int64_t slots) {
    const internal::Status status = internal::Lookup(x);  // reads x only if it is live
    if (status.kind != internal::Kind::kLive || status.thread != thread) return;
    if (slots <= x->r + 1) return;
    {
      absl::MutexLock lock(&log.mu);
      if (!log.reported.insert(status.serial).second) return;
    }
    Emit(Check::kOverOwnership,
         absl::StrFormat(
             "after %s: object #%d (type %d) sits in %d container slots with r=%d (a reference "
             "handed over twice without r1)",
             name, status.serial, x->t, slots, x->r),
         status.serial, x->t);
  });
}

// Objects allocated after `since` that are alive, held by no live container and not `except`:
// the roots of whatever leaked.
std::vector<internal::LiveObject> Orphans(const std::vector<internal::LiveObject>& live,
                                          const InEdges& edges, std::uint64_t since, K except) {
  std::vector<internal::LiveObject> orphans;
  for (const internal::LiveObject& o : live) {
    if (o.serial > since && o.object != except && !edges.Holds(o.object)) orphans.push_back(o);
  }
  return orphans;
}

}  // namespace

namespace internal {

void SweepAfterCall(std::uint64_t since, K result, absl::string_view name) {
  const std::vector<LiveObject> live = LiveObjects(ThreadIndex());
  const InEdges edges(live);
  for (const LiveObject& o : Orphans(live, edges, since, result)) {
    if (retain_guards.load() > 0) {
      ++retained_count;
      continue;
    }
    Emit(Check::kLeak,
         absl::StrFormat("%s allocated object #%d (type %d) and neither returned nor freed it: %s",
                         name, o.serial, o.object->t, Describe(o.object)),
         o.serial, o.object->t);
  }
  CheckOverOwnership(edges, name);
}

}  // namespace internal

AllowRetained::AllowRetained() { ++retain_guards; }
AllowRetained::~AllowRetained() { --retain_guards; }

LeakScope::LeakScope() : since_(internal::LastSerial()) {}

LeakScope::~LeakScope() {
  const std::vector<internal::LiveObject> live = internal::LiveObjects();
  for (const internal::LiveObject& o : Orphans(live, InEdges(live), since_, nullptr)) {
    Emit(Check::kLeak,
         absl::StrFormat(
             "object #%d (type %d) allocated in a LeakScope is still alive at its end: %s",
             o.serial, o.object->t, Describe(o.object)),
         o.serial, o.object->t);
  }
}

std::int64_t LeakScope::Leaked() const {
  std::int64_t count = 0;
  for (const internal::LiveObject& o : internal::LiveObjects()) count += o.serial > since_;
  return count;
}

HostStats Stats() {
  const internal::Counters counters = internal::GetCounters();
  HostStats stats;
  stats.live = counters.live;
  stats.allocated = counters.allocated;
  stats.freed = counters.freed;
  stats.peak = counters.peak;
  stats.quarantined = counters.quarantined;
  stats.retained = retained_count.load();
  for (const internal::LiveObject& o : internal::LiveObjects()) ++stats.live_by_type[o.object->t];
  stats.reports = internal::RecordedReports();
  return stats;
}

}  // namespace khost
