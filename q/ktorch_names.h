// KtorchNames() — the 429 names ktorch's fns exports, in its order (ktorch's repository at its
// current release: ktorch.cpp's fns, then tensorfn, mathfn, nnfn, lossfn, optfn and modelfn).
// fns (q/fns.cc) lists kscope's functions in this order, then kscope's own names. A constant
// table: safe from any thread.
#ifndef KSCOPE_Q_KTORCH_NAMES_H_
#define KSCOPE_Q_KTORCH_NAMES_H_

#include "absl/types/span.h"

namespace kscope::q {

absl::Span<const char* const> KtorchNames();

}  // namespace kscope::q

#endif  // KSCOPE_Q_KTORCH_NAMES_H_
