// The per-thread scope stack: which scope owns a handle created now, hand-off to the parent,
// strict mode.
//
// Every thread has its own stack of open scopes; the process-wide root scope (id 0, depth 0)
// lies under every stack and never closes. A handle created by a thread is owned by that
// thread's innermost open scope, or by the root when none is open (an error in strict mode).
//
// These are the non-RAII primitives: the q plugin's scope[]/endscope use them directly, and
// kscope::Scope (scope/scope.h) is the guard C++ code should use. Only the thread that opened
// a scope can close it, and only while it is that thread's innermost scope.
//
// Thread-safety: all functions act on the calling thread's stack and the shared handle table;
// they are safe to call concurrently from different threads.
#ifndef KSCOPE_SCOPE_SCOPE_STACK_H_
#define KSCOPE_SCOPE_SCOPE_STACK_H_

#include <vector>

#include "absl/types/span.h"
#include "runtime/handle.h"
#include "runtime/handle_table.h"
#include "runtime/object.h"

namespace kscope {

using ScopeId = OwnerId;
inline constexpr ScopeId kRootScope = kRootOwner;

// Whether a scope tracks its memory footprint (scope/scope_footprint.h).
enum class Footprint { kUntracked, kTracked };

// Opens a new scope on this thread; it becomes the innermost. Returns its id (never reused).
// It tracks its footprint when asked or when footprint reports are on.
ScopeId OpenScope(Footprint footprint = Footprint::kUntracked);

// Closes `id`, which must be this thread's innermost scope: handles in `hand_off` that `id`
// owns move to the parent scope (same id, same reference count); handles owned by an
// enclosing scope or the root are left where they are; then every handle `id` still owns is
// released, newest first. Throws kscope::Error with nothing changed if `id` is not this
// thread's innermost scope, or if a hand-off handle is stale or owned by another thread's
// scope or an inner scope.
void CloseScope(ScopeId id, absl::Span<const Handle> hand_off = {});

// Checks that `h` may be handed off by scope `id` (see CloseScope). Throws kscope::Error.
void ValidateHandOff(ScopeId id, Handle h);

// CloseScope without validation, for destructors and error paths: never throws; hand-off
// handles that are no longer owned by `id` are skipped; scopes still open inside `id` are
// closed first (their handles released); an `id` not open on this thread is ignored.
void CloseScopeNoThrow(ScopeId id, absl::Span<const Handle> hand_off) noexcept;

// This thread's innermost scope (kRootScope when none is open) and its depth (0 = root).
ScopeId CurrentScope();
int ScopeDepth();
// This thread's open scopes, outermost first (the root not included).
std::vector<ScopeId> OpenScopes();

// Registers `object` as a new handle owned by this thread's innermost scope. `origin` (a
// static string, the API call's name) is recorded and names the call in the strict-mode error.
// Throws kscope::Error in strict mode when no scope is open.
Handle Own(Object&& object, const char* origin);
// Consuming construction (validate, build, commit): `consumed` handles become stale and
// `object` is registered as one new handle owned by the innermost scope. Throws with nothing
// changed if any consumed handle is stale or if strict mode refuses the creation.
Handle OwnConsuming(absl::Span<const Handle> consumed, Object&& object, const char* origin);

// Releases every handle owned by the root and by this thread's scopes; scopes stay open.
void ReleaseThreadHandles();

// Strict mode (process-wide, default off): creating a handle with only the root open fails.
void SetStrict(bool strict);
bool Strict();

}  // namespace kscope

#endif  // KSCOPE_SCOPE_SCOPE_STACK_H_
