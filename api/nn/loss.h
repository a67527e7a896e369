// Losses: as objects (ktorch's `` loss`ce ``, options positional or by name, `reduce` last),
// queried back as `module options` and recreated from that, and computed on outputs and
// targets; and as functions (`ce(yhat;y)`, `mse(x;y)`, `triplet(anchor;pos;neg)`) that make a
// loss for one call.
//
// Most losses take two inputs (yhat, y); bce and bcelogits take an optional third, a batch
// weight; cosineloss and margin take (x1, x2, y), triplet (anchor, pos, neg), ctc (log
// probabilities, targets, input lengths, target lengths). pairwise and similar are distances
// of (x1, x2) without `reduce`. A loss object is held like a module (class loss). Computing
// follows ktorch's convention: any handle in -> a new handle out, data in -> data out; CPU
// tensors are moved to the device of any other tensor in the call. Errors: kscope::Error naming
// the function or kind ("unrecognized loss function: foo", "ce: option `ignore expects long, ...",
// "loss: `triplet expects 3 inputs, given 2"); libtorch's messages for shape and type problems.
// Thread-safety: any thread.
#ifndef KSCOPE_API_NN_LOSS_H_
#define KSCOPE_API_NN_LOSS_H_

#include <string>
#include <type_traits>
#include <vector>

#include "absl/types/span.h"

#include "api/core/operand.h"
#include "api/nn/functional.h"
#include "api/nn/options.h"
#include "runtime/handle.h"

namespace kscope {

// The inputs and option names of a loss kind; kscope::Error "unrecognized loss function: foo".
Signature loss_signature(const std::string& kind);

Handle loss(const std::string& kind, const std::vector<nn::OptionValue>& positional = {},
            const nn::NamedValues& named = {});

// ktorch's `loss l`: the loss's kind and its options (all, or those that differ from the defaults).
struct LossDescription {
  std::string kind;
  nn::NamedValues options;
};
LossDescription describe_loss(Handle l, bool all_options = true);
// ktorch's `loss kdict`: a new loss from what describe_loss returned.
Handle loss(const LossDescription& description);

// loss(l;yhat;y), loss(l;yhat;y;w), loss(l;x1;x2;y), loss(l;logprobs;y;nx;ny): the loss l on
// as many inputs as its kind takes.
Result loss(Handle l, absl::Span<const Operand> inputs);
inline Result loss(Handle l, const Operand& yhat, const Operand& y) { return loss(l, {yhat, y}); }
inline Result loss(Handle l, const Operand& x1, const Operand& x2, const Operand& y) {
  return loss(l, {x1, x2, y});
}

// The functional form: the loss `kind` with these options, computed once on as many inputs as
// the kind takes.
Result loss_function(const std::string& kind, absl::Span<const Operand> inputs,
                     const std::vector<nn::OptionValue>& positional = {},
                     const nn::NamedValues& named = {});
inline Result loss_function(const std::string& kind, const Operand& yhat, const Operand& y,
                            const std::vector<nn::OptionValue>& positional = {},
                            const nn::NamedValues& named = {}) {
  return loss_function(kind, {yhat, y}, positional, named);
}
// The three-input form. A template on y so that a braced option list in fourth place is always
// the two-input form's options: loss_function("hinge", x, y, {0.5}) (an Operand overload would
// make that call ambiguous).
template <typename Y, typename = std::enable_if_t<std::is_convertible_v<const Y&, Operand>>>
Result loss_function(const std::string& kind, const Operand& x1, const Operand& x2, const Y& y,
                     const std::vector<nn::OptionValue>& positional = {},
                     const nn::NamedValues& named = {}) {
  return loss_function(kind, {x1, x2, Operand(y)}, positional, named);
}
inline Result ce(const Operand& yhat, const Operand& y) { return loss_function("ce", yhat, y); }
inline Result mse(const Operand& x, const Operand& y) { return loss_function("mse", x, y); }

}  // namespace kscope

#endif  // KSCOPE_API_NN_LOSS_H_
