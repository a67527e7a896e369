// refcount.cc — r1, and r0 with its recursive free.
//
// r0 at r == 0 frees the object and drops one reference from each child (general-list items,
// a dictionary's keys and values, a table's dictionary), iteratively so deep lists cannot
// overflow the stack. Unfilled, freed or foreign children are reported and skipped, never read.
#include <vector>

#include "absl/strings/str_format.h"
#include "q/convert/k_abi.h"
#include "tests/khost/heap.h"
#include "tests/khost/report.h"
#include "tests/khost/validate.h"

namespace khost::internal {
namespace {

void CheckFreeingThread(K x) {
  const Status s = Lookup(x);
  if (s.thread != ThreadIndex()) {
    Emit(Check::kThread,
         absl::StrFormat("r0 frees object #%d (type %d) on thread %d; thread %d allocated it",
                         s.serial, s.type, ThreadIndex(), s.thread),
         s.serial, s.type);
  }
}

// Whether a child slot may be released; reports the slots that may not.
bool ReleasableChild(K parent, K child) {
  if (IsUnfilled(child)) {
    Emit(Check::kUnfilledSlot,
         absl::StrFormat("r0 of object #%d found a slot that was never filled",
                         Lookup(parent).serial));
    return false;
  }
  return CheckEntry(child, "r0 (child)", kAllowError);
}

void ReportUnfilledSymbols(K x) {
  for (std::int64_t i = 0; i < x->n; ++i) {
    if (IsUnfilled(kabi::Symbols(x)[i])) {
      const Status s = Lookup(x);
      Emit(Check::kUnfilledSlot,
           absl::StrFormat("r0 of symbol vector #%d: item %d was never filled", s.serial, i),
           s.serial, s.type);
      return;
    }
  }
}

void FreeTree(K root) {
  std::vector<K> pending{root};
  while (!pending.empty()) {
    K x = pending.back();
    pending.pop_back();
    CheckFreeingThread(x);
    if (x->t == kabi::kSymbol) ReportUnfilledSymbols(x);
    for (K child : Children(x)) {
      if (!ReleasableChild(x, child)) continue;
      if (child->r > 0) {
        --child->r;
      } else {
        pending.push_back(child);
      }
    }
    if (x->t == kabi::kLambda) delete *static_cast<OwnedPayload**>(kabi::Payload(x));
    Free(x);
  }
}

}  // namespace
}  // namespace khost::internal

void kabi::r0(K x) {
  if (!khost::internal::CheckEntry(x, "r0", khost::internal::kAllowError)) return;
  if (x->r > 0) {
    --x->r;
    return;
  }
  khost::internal::FreeTree(x);
}

kabi::K kabi::r1(K x) {
  if (khost::internal::CheckEntry(x, "r1")) ++x->r;
  return x;
}
