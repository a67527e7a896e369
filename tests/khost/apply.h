// apply.h — applying functions the way q does, with the plugin-boundary checks.
//
// Two kinds of function objects exist in the host: dl(f, n) makes a type-112 object wrapping a
// plugin's C function of n K arguments; Function(rank, body) makes a type-100 object (a stand-in
// for a q lambda) whose body is test code. Both are applied by Call() (from tests), by dot()
// (from plugins) and by k(0, ".", f, args) / k(0, "@", f, x).
//
// Argument shapes follow q: f[] passes `::` to a rank-1 function, f(a;b) on a rank-1 function
// passes the one list (a;b), and a rank-n function (n > 1) needs exactly n arguments.
//
// Calling a 112 function runs the checks of k-abi.md §4.4/§4.7: arguments validated before and
// after (their refcounts must not drop; one returned, or put into the result, needs an r1 per
// new reference), the result validated, a C++ exception caught and reported, krr-then-result and
// unstable messages reported, and objects allocated during the call that end up unreachable and
// unfreed reported as leaks (see census.h).
//
// Thread-safety: calls may run on any thread; each call's error state is thread-local.
#ifndef KSCOPE_TESTS_KHOST_APPLY_H_
#define KSCOPE_TESTS_KHOST_APPLY_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "q/convert/k_abi.h"
#include "tests/khost/kref.h"

namespace khost {

// The outcome of one application.
struct Result {
  KRef value;         // owned result; null when the function returned 0 with no error (`::`)
  std::string error;  // the error text (q's 'msg) when failed
  bool failed = false;
  bool ok() const { return !failed; }
};

// The body of a host function: receives borrowed arguments, returns an owned K, or krr(...)'s 0
// to signal an error (the text must stay valid, as for a plugin). It may call the plugin.
using Body = std::function<kabi::K(const std::vector<kabi::K>& args)>;

// A new type-100 function object of `rank` (1..8) arguments, owned by the caller.
kabi::K Function(int rank, Body body);

// Applies f (type 112 or 100) to borrowed `args`; `name` labels the reports.
Result Call(kabi::K f, const std::vector<kabi::K>& args, absl::string_view name = "function");

// The C function pointer inside a type-112 object made by dl (e.g. Library::Function's), or
// nullptr for anything else. It lets a benchmark call a plugin function directly, as q does,
// without the host's per-call checks (Call's argument, result and leak checks); the caller then
// owns what it returns and must look for a pending krr error itself.
void* NativeFunction(kabi::K f);

namespace internal {
// The rank of a type-112 or type-100 object.
int RankOf(kabi::K f);
// Call() in dot's terms: the owned result (`::` for a bare 0), or 0 with the error pending.
kabi::K ApplyForPlugin(kabi::K f, const std::vector<kabi::K>& args, absl::string_view name);
}  // namespace internal

}  // namespace khost

#endif  // KSCOPE_TESTS_KHOST_APPLY_H_
