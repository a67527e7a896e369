// Adapters for softmax and logsoftmax in their math form, softmax(x;dim[;out]) (api/math/math.h):
// k arrays in -> k arrays out, a pointer in -> a pointer out, a trailing output pointer ->
// written there and `::` returned; without a dimension, ktorch's default. The rest of ktorch's
// math is the catalogue's (q/math/math_catalogue_fns.cc).
#include "api/math/math.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/convert/form_args.h"
#include "q/convert/math_args.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// f x | f(x;dim[;out]): softmax logsoftmax; without a dimension, default_softmax_dim's.
template <Result (*Op)(const Operand&, std::int64_t, Handle)>
K WithDim(const char* fn, K x) {
  return Guard([&] {
    if (IsPointer(x) || (x->t > 0 && x->t < kabi::kSymbol) || LeadingItemsMakeOneArray(x)) {
      const Operand input = IsPointer(x) ? Operand(HandleOf(x)) : InputFromK(fn, x);
      const std::int64_t d =
          input.is_handle() ? TensorOf(fn, input.handle()).dim() : input.data().dim();
      return KFromResult(Op(input, default_softmax_dim(d), Handle()));
    }
    const Args a(fn, x);
    if (a.size() < 2) a.Unrecognized();
    return KFromResult(Op(a.InputAt(0), a.LongAt(1), OutputAt(a, 2)));
  });
}
K softmax_(K x) { return WithDim<kscope::softmax>("softmax", x); }
K logsoftmax_(K x) { return WithDim<kscope::logsoftmax>("logsoftmax", x); }

}  // namespace

std::vector<Export> MathExports() {
  return {Unary("softmax", softmax_), Unary("logsoftmax", logsoftmax_)};
}

}  // namespace kscope::q
