#include "scope/scope_footprint.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/const_init.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "runtime/errors.h"

namespace kscope {
namespace {

std::atomic<bool> reports_on{false};
// Tracked scopes open on all threads: while none is, closing a scope looks at nothing more.
std::atomic<std::int64_t> tracked_open{0};

ABSL_CONST_INIT absl::Mutex reporter_mu(absl::kConstInit);
FootprintReporter* reporter ABSL_GUARDED_BY(reporter_mu) = nullptr;  // null: stderr

struct TrackedScope {
  ScopeId id;
  int depth;
  bool report;
  std::unique_ptr<MemoryWindow> window;
};

// This thread's tracked scopes, outermost first, and the footprint of the last one closed. A
// thread that ends with tracked scopes open (their handles released by the scope stack) takes
// them out of the count.
struct ThreadFootprints {
  std::vector<TrackedScope> open;
  std::optional<ClosedFootprint> last_closed;

  ~ThreadFootprints() {
    tracked_open.fetch_sub(static_cast<std::int64_t>(open.size()), std::memory_order_relaxed);
  }
};
ThreadFootprints& ThisThreadsFootprints() {
  thread_local ThreadFootprints footprints;
  return footprints;
}

void WriteToStderr(const ClosedFootprint& f) {
  std::string line = absl::StrFormat("kscope: scope %d (depth %d) closed:", f.scope, f.depth);
  for (const MemoryFootprint& d : f.devices) {
    absl::StrAppendFormat(&line, "%s %s start %d allocated %d freed %d peak %d bytes",
                          &d == &f.devices.front() ? "" : ";", d.device.str(), d.start, d.allocated,
                          d.freed, d.peak);
  }
  std::fprintf(stderr, "%s\n", line.c_str());
}

// Calls the reporter outside the lock: it may open and close scopes of its own.
void ReportFootprint(const ClosedFootprint& f) {
  FootprintReporter report;
  {
    absl::MutexLock lock(&reporter_mu);
    if (reporter != nullptr) report = *reporter;
  }
  if (report) {
    report(f);
  } else {
    WriteToStderr(f);
  }
}

}  // namespace

std::vector<MemoryFootprint> ScopeFootprint(ScopeId id) {
  for (const TrackedScope& s : ThisThreadsFootprints().open) {
    if (s.id == id) return s.window->Read();
  }
  const std::vector<ScopeId> open = OpenScopes();
  if (std::find(open.begin(), open.end(), id) == open.end()) {
    Fail("footprint: scope %d is not open on this thread", id);
  }
  Fail("footprint: scope %d does not track its footprint (open it with footprint tracked)", id);
}

std::optional<ClosedFootprint> LastClosedFootprint() { return ThisThreadsFootprints().last_closed; }

void SetFootprintReports(bool on) { reports_on.store(on, std::memory_order_relaxed); }
bool FootprintReports() { return reports_on.load(std::memory_order_relaxed); }

void SetFootprintReporter(FootprintReporter r) {
  absl::MutexLock lock(&reporter_mu);
  delete reporter;
  reporter = r ? new FootprintReporter(std::move(r)) : nullptr;
}

namespace scope_internal {

void OpenFootprint(ScopeId id, int depth, Footprint footprint) {
  const bool report = FootprintReports();
  if (footprint != Footprint::kTracked && !report) return;
  ThisThreadsFootprints().open.push_back(
      TrackedScope{id, depth, report, std::make_unique<MemoryWindow>()});
  tracked_open.fetch_add(1, std::memory_order_relaxed);
}

void CloseFootprint(ScopeId id) noexcept {
  if (tracked_open.load(std::memory_order_relaxed) == 0) return;
  ThreadFootprints& footprints = ThisThreadsFootprints();
  if (footprints.open.empty() || footprints.open.back().id != id) return;
  TrackedScope closing = std::move(footprints.open.back());
  footprints.open.pop_back();
  tracked_open.fetch_sub(1, std::memory_order_relaxed);
  try {
    footprints.last_closed = ClosedFootprint{closing.id, closing.depth, closing.window->Read()};
    if (closing.report) ReportFootprint(*footprints.last_closed);
  } catch (...) {
    // a reading or a reporter that failed: the scope is closed all the same
  }
}

}  // namespace scope_internal

}  // namespace kscope
