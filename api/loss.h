// Losses: as objects (ktorch's `` loss`ce ``, options positional or by name, `reduce` last),
// queried back as `module options`, and computed on outputs and targets; and as functions
// (`ce(yhat;y)`, `mse(x;y)`) that make a loss for one call.
//
// A loss object is held like a module (class loss). Computing follows ktorch's convention:
// any handle in -> a new handle out, data in -> data out. Errors: kscope::Error naming the
// function or kind ("loss: unrecognized loss `foo", "ce: option `ignore expects long, ...");
// libtorch's messages for shape and type problems. Thread-safety: any thread.
#ifndef KSCOPE_API_LOSS_H_
#define KSCOPE_API_LOSS_H_

#include <string>
#include <vector>

#include "api/nn/options.h"
#include "api/operand.h"
#include "runtime/handle.h"

namespace kscope {

// The option names of a loss kind, in order (empty for an unknown kind).
std::vector<std::string> loss_options(const std::string& kind);

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

// The functional form: the loss `kind` with these options, computed once.
Result loss_function(const std::string& kind, const Operand& yhat, const Operand& y,
                     const std::vector<nn::OptionValue>& positional = {}, const nn::NamedValues& named = {});
inline Result ce(const Operand& yhat, const Operand& y) { return loss_function("ce", yhat, y); }
inline Result mse(const Operand& x, const Operand& y) { return loss_function("mse", x, y); }

}  // namespace kscope

#endif  // KSCOPE_API_LOSS_H_
