// Adapters for moving and converting (api/core/move.h): to(p;opts[;async]), to(p;tensor[;async]) in
// place -> null, and copyto with the same arguments for a tensor -> a new pointer. Options are
// ktorch's symbols (`cuda`double); the example tensor gives its device and dtype.
#include "api/core/move.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// f(p;target[;async]) with the target's two shapes: a pointer (an example tensor) or options.
template <typename Call>
K WithTarget(const char* fn, K x, Call call) {
  return Guard([&] {
    const Args a(fn, x);
    if (a.size() != 2 && a.size() != 3) a.Unrecognized();
    const Handle p = a.PointerAt(0);
    const bool async = a.size() == 3 && a.BoolAt(2);
    if (a.IsPointerAt(1)) return call(p, a.PointerAt(1), async);
    if (!a.IsSymbolAt(1) && a[1]->t != kabi::kSymbol) {
      Fail("%s: arg[1] expected tensor options or a tensor, given %s", fn, KName(a[1]));
    }
    return call(p, Options::Parse(fn, a.SymbolsAt(1)), async);
  });
}

K To(K x) {
  return WithTarget("to", x, [](Handle p, const auto& target, bool async) {
    to(p, target, async);
    return K{nullptr};
  });
}

K Copyto(K x) {
  return WithTarget("copyto", x, [](Handle p, const auto& target, bool async) {
    return Pointer(copyto(p, target, async));
  });
}

}  // namespace

std::vector<Export> MoveExports() { return {Unary("to", To), Unary("copyto", Copyto)}; }

}  // namespace kscope::q
