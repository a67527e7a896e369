#include "scope/scope_stack.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>

#include "runtime/errors.h"
#include "scope/scope_footprint.h"

namespace kscope {
namespace {

std::atomic<ScopeId> next_scope_id{1};
std::atomic<bool> strict_mode{false};
// Scopes open on all threads together. While none is (ktorch-style code at the root), a new
// handle's placement needs no look at this thread's stack (a TLS access: a call into the dynamic
// loader from a library loaded with dlopen). Relaxed is enough: a thread with a scope open has
// added its own 1, which no other thread takes away, so it never reads 0.
std::atomic<std::int64_t> scopes_open{0};

bool IsMainThread() { return ::getpid() == static_cast<pid_t>(::syscall(SYS_gettid)); }

struct ThreadStack;
// This thread's stack, or null before its first use: a plain pointer, read with one TLS access
// on every handle's creation (the stack itself has a destructor, which makes each access to it
// check its initialisation too).
thread_local const ThreadStack* current_stack = nullptr;

// One thread's open scopes, outermost first. When a thread ends with scopes still open, their
// handles are released (with a warning). The main thread's stack is destroyed only at process
// exit, when CUDA may already be gone: its handles are deliberately left alive then.
struct ThreadStack {
  std::vector<ScopeId> open;  // read anywhere; changed only through Push and Pop

  ThreadStack() { current_stack = this; }
  // Open and close the innermost scope, keeping scopes_open in step with every stack.
  void Push(ScopeId id) {
    open.push_back(id);
    scopes_open.fetch_add(1, std::memory_order_relaxed);
  }
  ScopeId Pop() {
    const ScopeId id = open.back();
    open.pop_back();
    scopes_open.fetch_sub(1, std::memory_order_relaxed);
    return id;
  }
  ~ThreadStack() {
    current_stack = nullptr;
    if (open.empty() || IsMainThread()) return;
    std::fprintf(stderr, "kscope: thread exited with %zu scope(s) open; releasing their handles\n",
                 open.size());
    while (!open.empty()) HandleTable::Global().ReleaseOwned(Pop());
  }
};

ThreadStack& Stack() {
  thread_local ThreadStack stack;
  return stack;
}

int DepthOf(const std::vector<ScopeId>& open, ScopeId id) {
  if (id == kRootScope) return 0;
  auto it = std::find(open.begin(), open.end(), id);
  return it == open.end() ? -1 : static_cast<int>(it - open.begin()) + 1;
}

// The owner and depth a handle created now gets; in strict mode, an error at the root.
struct Placement {
  ScopeId owner;
  int depth;
};

Placement PlaceNew(const char* origin) {
  const ThreadStack* stack =
      scopes_open.load(std::memory_order_relaxed) == 0 ? nullptr : current_stack;
  if (stack == nullptr || stack->open.empty()) {
    if (strict_mode.load(std::memory_order_relaxed)) {
      Fail("%s: no open scope (strict setting): wrap tensor code in a scope", origin);
    }
    return Placement{kRootScope, 0};
  }
  return Placement{stack->open.back(), static_cast<int>(stack->open.size())};
}

}  // namespace

ScopeId OpenScope(Footprint footprint) {
  ScopeId id = next_scope_id.fetch_add(1, std::memory_order_relaxed);
  ThreadStack& stack = Stack();
  scope_internal::OpenFootprint(id, static_cast<int>(stack.open.size()) + 1, footprint);
  stack.Push(id);
  return id;
}

void ValidateHandOff(ScopeId id, Handle h) {
  const std::vector<ScopeId>& open = Stack().open;
  const int scope_depth = DepthOf(open, id);
  const EntryInfo info = HandleTable::Global().Info(h);  // throws stale pointer
  const int owner_depth = DepthOf(open, info.owner);
  if (owner_depth < 0) {
    Fail("scope: cannot hand off %s, it is owned by another thread's scope",
         ClassName(info.object_class));
  }
  if (owner_depth > scope_depth) {
    Fail("scope: cannot hand off %s, it is owned by an inner scope that is still open",
         ClassName(info.object_class));
  }
}

void CloseScopeNoThrow(ScopeId id, absl::Span<const Handle> hand_off) noexcept {
  ThreadStack& stack = Stack();
  const std::vector<ScopeId>& open = stack.open;
  if (DepthOf(open, id) <= 0) return;
  while (open.back() != id) CloseScopeNoThrow(open.back(), {});  // left open inside `id`
  stack.Pop();
  const ScopeId parent = open.empty() ? kRootScope : open.back();
  const int parent_depth = static_cast<int>(open.size());
  HandleTable& table = HandleTable::Global();
  for (Handle h : hand_off) table.MoveIfOwnedBy(h, id, parent, parent_depth);
  std::vector<Object> released = table.ReleaseOwned(id);
  for (Object& o : released) o = Object();  // newest first, outside the table's lock
  scope_internal::CloseFootprint(id);
}

void CloseScope(ScopeId id, absl::Span<const Handle> hand_off) {
  const std::vector<ScopeId>& open = Stack().open;
  if (open.empty() || open.back() != id) {
    if (DepthOf(open, id) > 0) {
      Fail("endscope: scope %d is not the innermost open scope of this thread", id);
    }
    Fail("endscope: scope %d is not open on this thread", id);
  }
  for (Handle h : hand_off) ValidateHandOff(id, h);
  CloseScopeNoThrow(id, hand_off);
}

// The queries read this thread's stack without making one: a thread that never opened a scope
// has none to read.
ScopeId CurrentScope() {
  const ThreadStack* stack = current_stack;
  return stack == nullptr || stack->open.empty() ? kRootScope : stack->open.back();
}

int ScopeDepth() {
  const ThreadStack* stack = current_stack;
  return stack == nullptr ? 0 : static_cast<int>(stack->open.size());
}

std::vector<ScopeId> OpenScopes() {
  const ThreadStack* stack = current_stack;
  return stack == nullptr ? std::vector<ScopeId>() : stack->open;
}

Handle Own(Object&& object, const char* origin) {
  const Placement at = PlaceNew(origin);
  return HandleTable::Global().Add(std::move(object), at.owner, at.depth, origin);
}

Handle OwnConsuming(absl::Span<const Handle> consumed, Object&& object, const char* origin) {
  const Placement at = PlaceNew(origin);
  std::vector<Object> released;  // dropped after the table's lock is released
  return HandleTable::Global().Consume(consumed, std::move(object), at.owner, at.depth, origin,
                                       &released);
}

void ReleaseThreadHandles() {
  HandleTable& table = HandleTable::Global();
  std::vector<ScopeId> owners = Stack().open;
  owners.insert(owners.begin(), kRootScope);
  for (auto it = owners.rbegin(); it != owners.rend(); ++it) table.ReleaseOwned(*it);
}

void SetStrict(bool strict) { strict_mode.store(strict, std::memory_order_relaxed); }
bool Strict() { return strict_mode.load(std::memory_order_relaxed); }

}  // namespace kscope
