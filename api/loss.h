// Losses: as objects (ktorch's `` loss`ce ``, options positional or by name, `reduce` last),
// queried back as `module options`, and computed on outputs and targets; and as functions
// (`ce(yhat;y)`, `mse(x;y)`, `triplet(anchor;pos;neg)`) that make a loss for one call.
//
// Most losses take two inputs (yhat, y); cosineloss and margin take (x1, x2, y) and triplet
// (anchor, pos, neg). A loss object is held like a module (class loss). Computing follows
// ktorch's convention: any handle in -> a new handle out, data in -> data out. Errors:
// kscope::Error naming the function or kind ("loss: unrecognized loss `foo", "ce: option
// `ignore expects long, ...", "loss: `triplet expects 3 inputs, given 2"); libtorch's
// messages for shape and type problems. Thread-safety: any thread.
#ifndef KSCOPE_API_LOSS_H_
#define KSCOPE_API_LOSS_H_

#include <string>
#include <type_traits>
#include <vector>

#include "absl/types/span.h"

#include "api/nn/options.h"
#include "api/operand.h"
#include "runtime/handle.h"

namespace kscope {

// The option names of a loss kind, in order (empty for an unknown kind).
std::vector<std::string> loss_options(const std::string& kind);
// How many tensors a loss kind computes on: 2 or 3 (0 for an unknown kind).
std::size_t loss_inputs(const std::string& kind);

Handle loss(const std::string& kind, const std::vector<nn::OptionValue>& positional = {},
            const nn::NamedValues& named = {});

// ktorch's `loss l`: the loss's kind and its options (all, or those that differ from the defaults).
struct LossDescription {
  std::string kind;
  nn::NamedValues options;
};
LossDescription describe_loss(Handle l, bool all_options = true);

// loss(l;yhat;y): the loss of outputs yhat against targets y.
Result loss(Handle l, const Operand& yhat, const Operand& y);
// loss(l;x1;x2;y): a three-input loss (cosineloss, margin: x1, x2, y; triplet: anchor, pos, neg).
Result loss(Handle l, const Operand& x1, const Operand& x2, const Operand& y);

// The functional form: the loss `kind` with these options, computed once on as many inputs as
// the kind takes.
Result loss_function(const std::string& kind, absl::Span<const Operand> inputs,
                     const std::vector<nn::OptionValue>& positional = {}, const nn::NamedValues& named = {});
inline Result loss_function(const std::string& kind, const Operand& yhat, const Operand& y,
                            const std::vector<nn::OptionValue>& positional = {}, const nn::NamedValues& named = {}) {
  return loss_function(kind, {yhat, y}, positional, named);
}
// The three-input form. A template on y so that a braced option list in fourth place is always
// the two-input form's options: loss_function("hinge", x, y, {0.5}) (an Operand overload would
// make that call ambiguous).
template <typename Y, typename = std::enable_if_t<std::is_convertible_v<const Y&, Operand>>>
Result loss_function(const std::string& kind, const Operand& x1, const Operand& x2, const Y& y,
                     const std::vector<nn::OptionValue>& positional = {}, const nn::NamedValues& named = {}) {
  return loss_function(kind, {x1, x2, Operand(y)}, positional, named);
}
inline Result ce(const Operand& yhat, const Operand& y) { return loss_function("ce", yhat, y); }
inline Result mse(const Operand& x, const Operand& y) { return loss_function("mse", x, y); }

}  // namespace kscope

#endif  // KSCOPE_API_LOSS_H_
