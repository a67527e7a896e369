// The functional forms of layers (ktorch-api.md §1.6): `relu(x)`, `softmax(x;1)`,
// `maxpool2d(x;2)`, `pairwise(x1;x2)`... Each makes the layer of that kind with the options
// given (positionally, then by name, as the module takes them), runs its forward once on the
// inputs, and drops the layer. Any leaf module kind works; containers do not.
//
// Four forms have no layer behind them: linear(x;w[;b]) and bilinear(x1;x2;w[;b]) take their
// weights explicitly (at::linear, at::bilinear), prelu(x;w) too (at::prelu), and pdist(x[;p])
// (at::pdist, `p` 2.0) has no module at all.
//
// Results follow ktorch: a handle among the inputs -> a new handle out (a vector handle when
// the layer returns several tensors), data in -> data out. A layer's `inplace` option, when
// set, writes into an input handle's tensor and returns nothing; on data it works on a copy.
// Errors: kscope::Error naming the form ("relu: `relu expects 1 input, given 2", "functional:
// unrecognized layer `foo", "softmax: option `dim required"); libtorch's own for shapes and
// types. Nothing changes on error. Thread-safety: any thread.
#ifndef KSCOPE_API_NN_FUNCTIONAL_H_
#define KSCOPE_API_NN_FUNCTIONAL_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "api/core/operand.h"
#include "api/nn/options.h"

namespace kscope {

// What a functional form (or a loss) takes: its inputs, from the fewest to the most, and the
// names of its options in order.
struct Signature {
  std::size_t fewest_inputs;
  std::size_t most_inputs;
  std::vector<std::string> options;
};

// The signature of the functional form `kind`; kscope::Error if there is none.
Signature functional_signature(const std::string& kind);

Result functional(const std::string& kind, absl::Span<const Operand> inputs,
                  const std::vector<nn::OptionValue>& positional = {},
                  const nn::NamedValues& named = {});
// The one-input form: functional("softmax", x, {1}).
inline Result functional(const std::string& kind, const Operand& x,
                         const std::vector<nn::OptionValue>& positional = {},
                         const nn::NamedValues& named = {}) {
  return functional(kind, absl::MakeConstSpan(&x, 1), positional, named);
}

}  // namespace kscope

#endif  // KSCOPE_API_NN_FUNCTIONAL_H_
