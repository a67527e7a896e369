// kscope's own q functions, on the scope layer: scope endscope withscope leaks.
//
//   s:scope[]            open a scope on this thread; its id
//   s:scope`footprint    the same, the scope tracking its memory footprint (footprint s while it
//                        is open, footprint[] after it closes: q/env/memory_fns.cc)
//   endscope s           close it, freeing everything it owns
//   endscope(s;r)        close it, handing every pointer found anywhere in r (atom, list,
//                        dictionary, table) to the parent scope; returns r
//   withscope(f;x)       open a scope, apply f to x (withscope(f;x;y;..): to x;y;..) through
//                        the host's dot, hand off the pointers in the result, close; on an
//                        error the scope is closed all the same and the error re-signalled
//   c:leaks[]            a leak checkpoint (api/core/leak_check.h): the last pointer id so far
//   leaks c              obj[]'s rows of the pointers made since c and still alive
//   leaks(c;`free)       frees them; how many it freed
//   leaks(c;`check)      frees them and signals 'leaks: ... naming each (class and origin) and
//                        the bytes they held per device if there were any; `::` if none
//                        (q/kscope.q's .kscope.leaks.check)
#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "api/core/leak_check.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/convert/k_obj_rows.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"
#include "runtime/names.h"
#include "scope/scope_stack.h"

namespace kscope::q {
namespace {

using kabi::K;

// Every pointer anywhere in x.
void CollectPointers(K x, std::vector<Handle>* out) {
  if (x == nullptr) return;
  if (IsPointer(x)) {
    out->push_back(HandleOf(x));
  } else if (x->t == kabi::kMixed || x->t == kabi::kDictionary) {
    for (long long i = 0; i < x->n; ++i) CollectPointers(kabi::Items(x)[i], out);
  } else if (x->t == kabi::kTable) {
    CollectPointers(kabi::TableDict(x), out);
  }
}

ScopeId ScopeIdOf(const Args& a) {
  const std::int64_t id = a.LongAt(0);
  if (id <= 0) Fail("endscope: expecting a scope id from scope[], given %d", id);
  return static_cast<ScopeId>(id);
}

K OpenScope_(K x) {
  return Guard([&] {
    const Args a("scope", x);
    Footprint footprint = Footprint::kUntracked;
    if (!a.empty()) {
      if (a.size() != 1 || !a.IsSymbolAt(0) || a.SymbolAt(0) != "footprint") {
        Fail("scope: expecting no argument or `footprint, given %s", KName(x));
      }
      footprint = Footprint::kTracked;
    }
    return kabi::kj(static_cast<long long>(OpenScope(footprint)));
  });
}

K EndScope(K x) {
  return Guard([&] {
    const Args a("endscope", x);
    if (a.size() == 1) {
      CloseScope(ScopeIdOf(a));
      return K{nullptr};
    }
    if (a.size() != 2) a.Unrecognized();
    std::vector<Handle> handles;
    CollectPointers(a[1], &handles);
    CloseScope(ScopeIdOf(a), handles);
    return kabi::r1(a[1]);
  });
}

// The message of the error dot left pending, as a string.
std::string PendingError() {
  K e = kabi::ee(nullptr);
  std::string message =
      e != nullptr && e->t == kabi::kError && e->s != nullptr ? e->s : "withscope: error";
  if (e != nullptr) kabi::r0(e);
  return message;
}

K WithScope(K x) {
  return Guard([&] {
    const Args a("withscope", x);
    if (a.size() < 2) Fail("withscope: expecting (function; argument(s)), given %s", KName(x));
    const int f = a[0]->t;
    if (f != kabi::kLambda && (f < 104 || f > kabi::kDynamicLoad)) {
      Fail("withscope: 1st arg must be a function, given %s", KName(a[0]));
    }
    const ScopeId id = OpenScope();
    auto close = absl::MakeCleanup([&] { CloseScopeNoThrow(id, {}); });
    K args = kabi::ktn(kabi::kMixed, static_cast<long long>(a.size() - 1));
    for (std::size_t i = 1; i < a.size(); ++i) kabi::Items(args)[i - 1] = kabi::r1(a[i]);
    K result = kabi::dot(a[0], args);
    kabi::r0(args);
    if (result == nullptr) Fail("%s", PendingError());
    auto drop = absl::MakeCleanup([&] { kabi::r0(result); });
    std::vector<Handle> handles;
    CollectPointers(result, &handles);
    for (Handle h : handles) ValidateHandOff(id, h);
    std::move(close).Cancel();
    std::move(drop).Cancel();
    CloseScopeNoThrow(id, handles);
    return result;
  });
}

K Leaks(K x) {
  return Guard([&] {
    const Args a("leaks", x);
    if (a.empty()) return kabi::kj(static_cast<long long>(LeakCheck().checkpoint_id()));
    if (a.size() > 2 || a.IsPointerAt(0)) a.Unrecognized();
    const std::int64_t id = a.LongAt(0);
    if (id < 0) Fail("leaks: expecting a checkpoint from leaks[], given %d", id);
    LeakCheck check = LeakCheck::After(static_cast<std::uint64_t>(id));
    if (a.size() == 1) return KFromObjectRows(check.Leaks());
    const std::string mode = a.SymbolAt(1);
    if (mode != "free" && mode != "check")
      Fail("leaks: expecting `free or `check, given `%s", mode);
    const std::vector<ObjectRow> leaks = check.Leaks();
    check.Release();
    if (mode == "free") return kabi::kj(static_cast<long long>(leaks.size()));
    if (leaks.empty()) return K{nullptr};
    Fail("leaks: %d pointer(s) left behind, now freed: %s; bytes left: %s", leaks.size(),
         absl::StrJoin(leaks, ", ",
                       [](std::string* out, const ObjectRow& row) {
                         absl::StrAppend(out, ClassName(row.object_class), " from ", row.origin);
                       }),
         BytesText(LeakCheck::BytesByDevice(leaks)));
  });
}

}  // namespace

std::vector<Export> ScopeExports() {
  return {Unary("scope", OpenScope_), Unary("endscope", EndScope), Unary("withscope", WithScope),
          Unary("leaks", Leaks)};
}

}  // namespace kscope::q
