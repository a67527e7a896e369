// Scope footprints — what a scope's span allocated and freed on each device and the most each
// device held meanwhile (runtime/memory_window.h), readable while the scope is open and kept
// for its thread when it closes, so that the call holding memory is found without bisecting.
//
//   auto scope = kscope::Scope::Open(GradPolicy::kInherit, Footprint::kTracked);
//   ... kscope::ScopeFootprint(scope.id()) ...     // while open
//   // after it closes: kscope::LastClosedFootprint() on the same thread
//
// A scope tracks its footprint when opened with Footprint::kTracked (q: scope`footprint), or
// when footprint reports are on (SetFootprintReports(true); q: setting`footprint): then every
// scope opened tracks it and, as it closes (after releasing its handles), hands its footprint to
// the reporter, by default one line on stderr (devices separated by ';'):
//   kscope: scope 7 (depth 1) closed: cpu start 1024 allocated 8192 freed 8192 peak 9216 bytes
// Untracked scopes cost nothing more than before; opening a tracked one reads every device's
// counters and resets their raw peaks (see memory_window.h).
//
// Errors: ScopeFootprint throws kscope::Error for a scope that is not open on this thread or
// does not track its footprint. Closing never throws: a reporter that throws is ignored.
// Thread-safety: footprints belong to the thread that opened the scope; the settings are
// process-wide and may be changed from any thread.
#ifndef KSCOPE_SCOPE_SCOPE_FOOTPRINT_H_
#define KSCOPE_SCOPE_SCOPE_FOOTPRINT_H_

#include <functional>
#include <optional>
#include <vector>

#include "runtime/memory_window.h"
#include "scope/scope_stack.h"

namespace kscope {

struct ClosedFootprint {
  ScopeId scope = kRootScope;
  int depth = 0;
  std::vector<MemoryFootprint> devices;
};

// The footprint so far of `id`, an open scope of this thread that tracks it.
std::vector<MemoryFootprint> ScopeFootprint(ScopeId id);
// The footprint of the tracked scope this thread closed last (nullopt: none yet).
std::optional<ClosedFootprint> LastClosedFootprint();

// Footprint reports: every scope opened while on tracks its footprint and reports it at close.
void SetFootprintReports(bool on);
bool FootprintReports();
// Where reports go (null: back to the default, stderr). Called on the closing thread, outside
// kscope's locks: it may use scopes itself.
using FootprintReporter = std::function<void(const ClosedFootprint&)>;
void SetFootprintReporter(FootprintReporter reporter);

namespace scope_internal {
// The scope stack's hooks: a scope opened (tracked when asked or when reports are on) and one
// closed (its footprint kept, and reported if it was opened with reports on).
void OpenFootprint(ScopeId id, int depth, Footprint footprint);
void CloseFootprint(ScopeId id) noexcept;
}  // namespace scope_internal

}  // namespace kscope

#endif  // KSCOPE_SCOPE_SCOPE_FOOTPRINT_H_
