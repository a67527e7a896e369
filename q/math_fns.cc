// Adapters for math, with ktorch's names (q keywords capitalised: Div Neg Abs
// Exp Log Sqrt Sum Max Min View) and argument forms: k arrays in -> k arrays out, a pointer in
// -> a pointer out, a trailing output pointer -> written there and `::` returned. k data is
// read in place (InputAt): results are new tensors, or views converted back to k at once; beside
// a pointer it is copied (OwnDataBesideHandles), as the result's graph may keep it.
#include "api/math.h"
#include "q/args.h"
#include "q/convert.h"
#include "q/exports.h"
#include "q/form_args.h"
#include "q/guard.h"
#include "q/math_args.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// f x | f(x;dim[;out]): softmax logsoftmax. Without a dimension, ktorch's (its softdim): 0 for
// an input of 0, 1 or 3 dimensions, else 1.
template <Result (*Op)(const Operand&, std::int64_t, Handle)>
K WithDim(const char* fn, K x) {
  return Guard([&] {
    if (IsPointer(x) || (x->t > 0 && x->t < kabi::kSymbol) || LeadingItemsMakeOneArray(x)) {
      const Operand input = IsPointer(x) ? Operand(HandleOf(x)) : InputFromK(fn, x);
      const std::int64_t d = input.is_handle() ? TensorOf(fn, input.handle()).dim() : input.data().dim();
      return KFromResult(Op(input, d == 0 || d == 1 || d == 3 ? 0 : 1, Handle()));
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
