// Optimizers: defining them the way ktorch users do (`` opt`sgd ``, `opt(`adam;q;opts..)`),
// querying them back, stepping them and reading or setting their learning rates. Resetting
// the gradients of an optimizer's (or a module's) parameters is zerograd/nograd in
// api/autograd.h.
//
// Options are given positionally, then by name, with ktorch's names and defaults (sgd: lr
// momentum dampening decay nesterov; adam, adamw: lr beta1 beta2 eps decay amsgrad; adagrad:
// lr lrdecay decay init eps; rmsprop: lr alpha eps decay momentum centered; lbfgs: lr iter
// eval gradtol changetol history search). An optimizer over a module keeps the module alive:
// the module's `ref` is one higher while the optimizer lives. State buffers (momentum_buffer,
// exp_avg, square_avg, ...) appear at the first step (adagrad's sum when the optimizer is
// made) and count in the optimizer's tensorcount, elements and bytes; parameters count in the
// module's. lbfgs is defined and queried here, but its step needs a closure (ktorch's
// backstep), so step refuses it.
//
// Every creating call registers one new handle (origin "opt") in the current scope. Errors:
// kscope::Error naming the function or kind ("opt: unrecognized optimizer `foo",
// "sgd: option `lr expects double, given symbol", "step: expected optimizer, given module");
// libtorch's checks of option values ("Invalid learning rate: -1") pass through. A call that
// throws creates no handle. Thread-safety: any thread; an optimizer must not be used from two
// threads at once.
#ifndef KSCOPE_API_OPTIMIZER_H_
#define KSCOPE_API_OPTIMIZER_H_

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "api/nn/options.h"
#include "runtime/handle.h"

namespace kscope {

// `` opt`sgd `` / `opt(`sgd;();opts..)`: an optimizer with no parameters yet (libtorch keeps
// one empty parameter group).
Handle opt(const std::string& kind, const std::vector<nn::OptionValue>& positional = {},
           const nn::NamedValues& named = {});
// opt(`adam;q;opts..): an optimizer over the parameters of module q.
Handle opt_module(const std::string& kind, Handle module, const std::vector<nn::OptionValue>& positional = {},
                  const nn::NamedValues& named = {});
// The same as opt_module, spelled opt. A template on exactly Handle so that a braced option
// list never reads as a Handle: opt("sgd", {0.1}) and opt("adam", {}, {{"lr", 0.1}}) always
// mean opt without a module (a plain Handle overload would make both calls ambiguous).
template <typename H, typename = std::enable_if_t<std::is_same_v<H, Handle>>>
Handle opt(const std::string& kind, H module, const std::vector<nn::OptionValue>& positional = {},
           const nn::NamedValues& named = {}) {
  return opt_module(kind, module, positional, named);
}

// ktorch's `opt o`: the optimizer's kind, its options (all, or only those that differ from the
// defaults) and how many parameters it optimizes. Named describe_opt because describe(Handle)
// is taken by modules.
struct OptimizerDescription {
  std::string kind;
  nn::NamedValues options;
  std::int64_t parameters;
};
OptimizerDescription describe_opt(Handle o, bool all_options = true);

// The option names of an optimizer kind, in order (empty for an unknown kind).
std::vector<std::string> opt_options(const std::string& kind);

// One optimization step over the gradients the parameters hold (parameters without a gradient
// are skipped). lbfgs: kscope::Error "LBFGS optimizer requires model, loss & inputs" (ktorch's).
void step(Handle o);

// The learning rate of each parameter group; setting one rate for every group (it must be
// non-negative: kscope::Error "lr: invalid learning rate -1").
std::vector<double> lr(Handle o);
void lr(Handle o, double rate);

}  // namespace kscope

#endif  // KSCOPE_API_OPTIMIZER_H_
