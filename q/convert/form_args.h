// The arguments of a functional form — a layer's (relu, softmax, maxpool2d, ..) or a loss's
// (ce, bce, ctc, ..) — read as ktorch reads them: the inputs first, then the options,
// positional, then name-value pairs or a trailing dictionary. The inputs are the fewest the
// form takes, then more while it takes more and the next argument is a pointer or a k array
// (bce(yhat;y;w), linear(x;w;b)); a lone pointer or k array is the one input, and so is a
// general list whose leading items make one array, for the activations, flatten, onehot and
// pdist (relu (1 2.0;3 4.0)), as in ktorch. Errors:
// kscope::Error naming `fn` ("relu: unrecognized arg(s) - ..." when too few are given).
#ifndef KSCOPE_Q_CONVERT_FORM_ARGS_H_
#define KSCOPE_Q_CONVERT_FORM_ARGS_H_

#include <vector>

#include "api/core/operand.h"
#include "api/nn/functional.h"
#include "api/nn/options.h"
#include "q/convert/k_abi.h"

namespace kscope::q {

struct FormArgs {
  std::vector<Operand> inputs;  // handles, or views of k data valid while x lives unchanged
  std::vector<nn::OptionValue> positional;
  nn::NamedValues named;
};

FormArgs FormArgsFromK(const char* fn, kabi::K x, const Signature& signature);

// Whether the first three items (at most) of general list x are k arrays of one type and
// shape, so that ktorch's one-input forms read x as one array (its xarray(x,3)).
bool LeadingItemsMakeOneArray(kabi::K x);

}  // namespace kscope::q

#endif  // KSCOPE_Q_CONVERT_FORM_ARGS_H_
