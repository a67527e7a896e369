// Optimizers: defining them the way ktorch users do (`` opt`sgd ``, `opt(`adam;q;opts..)`,
// `opt(`adam;group;params;opts..)`), adding parameters and setting options group by group,
// querying them back, stepping them and reading or setting their learning rates. Resetting the
// gradients of an optimizer's (or a module's) parameters is zerograd/nograd in
// api/tensor/autograd.h; clipping them is api/nn/clip.h; saving and restoring an optimizer's state
// is api/nn/optimizer_state.h.
//
// Options are given positionally, then by name, with ktorch's names and defaults (sgd: lr
// momentum dampening decay nesterov; adam, adamw: lr beta1 beta2 eps decay amsgrad; adagrad:
// lr lrdecay decay init eps; rmsprop: lr alpha eps decay momentum centered; lbfgs: lr iter
// eval gradtol changetol history search; lamb: lr beta1 beta2 eps decay unbiased globalnorm
// trustclip trustmin trustmax). Each parameter group has its own options: a new group starts
// from the options the optimizer was defined with. An optimizer keeps every module it takes
// parameters from alive: the module's `ref` is one higher while the optimizer lives. Loose
// tensors (a tensor, vector or dictionary) are held in a parameter dictionary made for the
// optimizer, ktorch's parmdict; their handles stay the caller's.
//
// State buffers (momentum_buffer, exp_avg, square_avg, ...) appear at the first step
// (adagrad's sum when a parameter joins) and count in the optimizer's tensorcount, elements and
// bytes; parameters count in their module's. Deviation from ktorch: libtorch keeps the `step`
// count of adam, adamw, adagrad, rmsprop and lamb as an integer, not a tensor, so it is not
// counted: adamw with amsgrad over a 128->10 linear has tensorcount 6, elements 3870 and bytes
// 15480 after a step, where ktorch reports 3872 elements and 15496 bytes. lbfgs is defined and
// queried here, but its step needs a closure (ktorch's backstep), so step refuses it; it has one
// parameter group only.
//
// Every creating call registers one new handle (origin "opt") in the current scope. Errors:
// kscope::Error naming the function or kind ("unrecognized optimizer: foo",
// "sgd: option `lr expects double, given symbol", "step: expected optimizer, given module",
// "opt: group 4 invalid, cannot be greater than number of groups(3)"); libtorch's checks of
// option values ("Invalid learning rate: -1") pass through. A call that throws creates no
// handle and changes no optimizer. Thread-safety: any thread; an optimizer must not be used
// from two threads at once.
#ifndef KSCOPE_API_NN_OPTIMIZER_H_
#define KSCOPE_API_NN_OPTIMIZER_H_

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "api/nn/options.h"
#include "runtime/handle.h"

namespace kscope {

// Where opt takes parameters from, ktorch's params argument: a module or a model's module (all
// its parameters, or those `keys` name, a parameter by its full name or a submodule's every
// parameter, and those of the children at `indices`), a tensor, a vector (all, or those at
// `indices`), a dictionary (all, or those under `keys`), or nothing (a null `from`, ktorch's
// `()`). Module parameters are named as in the module (`0.weight`); loose tensors by their key,
// or by their index in a vector (a lone tensor is `0`). Errors name `opt`: an unknown child or
// key, an index out of range, another class of object ("opt: expected module, model, tensor,
// vector or dictionary, given loss").
struct ParameterSource {
  Handle from;
  std::vector<std::string> keys = {};
  std::vector<std::int64_t> indices = {};
};

// `` opt`sgd `` / `opt(`sgd;();opts..)`: an optimizer with no parameters yet (libtorch keeps
// one empty parameter group).
Handle opt(const std::string& kind, const std::vector<nn::OptionValue>& positional = {},
           const nn::NamedValues& named = {});
// opt(`adam;q;opts..): an optimizer over the parameters of module q, or of model q's module
// ("opt: expected module or model, given tensor" for anything else).
Handle opt_module(const std::string& kind, Handle module,
                  const std::vector<nn::OptionValue>& positional = {},
                  const nn::NamedValues& named = {});
// The same as opt_module, spelled opt. A template on exactly Handle so that a braced option
// list never reads as a Handle: opt("sgd", {0.1}) and opt("adam", {}, {{"lr", 0.1}}) always
// mean opt without a module (a plain Handle overload would make both calls ambiguous).
template <typename H, typename = std::enable_if_t<std::is_same_v<H, Handle>>>
Handle opt(const std::string& kind, H module, const std::vector<nn::OptionValue>& positional = {},
           const nn::NamedValues& named = {}) {
  return opt_module(kind, module, positional, named);
}

// opt(`adam;group;params;opts..): an optimizer whose parameters from `parameters` go to group
// `group` (0, or 1 leaving group 0 empty); the options are the optimizer's.
Handle opt_group(const std::string& kind, std::int64_t group, const ParameterSource& parameters,
                 const std::vector<nn::OptionValue>& positional = {},
                 const nn::NamedValues& named = {});
// opt(o;group;params;opts..): adds parameters to group `group` of o, an existing group or the
// next one (groups are consecutive), and sets the group's options when any are given (on top of
// the group's current options; a new group starts from the optimizer's).
void opt_edit(Handle o, std::int64_t group, const ParameterSource& parameters,
              const std::vector<nn::OptionValue>& positional = {},
              const nn::NamedValues& named = {});

// One row of ktorch's parms table: a parameter's group, its TensorImpl address (its `ptr`), the
// kind of the module that holds it (`parmdict` for loose tensors), its name and size.
struct OptimizerParameter {
  std::int64_t group;
  std::int64_t pointer;
  std::string module;
  std::string name;
  std::vector<std::int64_t> size;
};

// ktorch's `opt o`: the optimizer's kind, the options of each group (all, or only those that
// differ from the defaults) and its parameters, group by group. Named describe_opt because
// describe(Handle) is taken by modules.
struct OptimizerDescription {
  std::string kind;
  std::vector<nn::NamedValues> options;
  std::vector<OptimizerParameter> parameters;
};
OptimizerDescription describe_opt(Handle o, bool all_options = true);

// The option names of an optimizer kind, in order (empty for an unknown kind).
std::vector<std::string> opt_options(const std::string& kind);

// One optimization step over the gradients the parameters hold (parameters without a gradient
// are skipped). lbfgs: kscope::Error "LBFGS optimizer requires model, loss & inputs" (ktorch's).
void step(Handle o);

// Whether the steps of sgd, adam, adamw, adagrad and rmsprop update each parameter group with
// multi-tensor operations (one operation per arithmetic step for all of the group's parameters,
// libtorch's _foreach_* operators, as PyTorch's optimizers do by default) or parameter by
// parameter, as libtorch's C++ optimizers do. On by default; one setting for the process, read
// at each step (q: setting`foreach). Both give the same results: equal on the CPU, the same
// arithmetic per element on a GPU (api/nn/kinds/multi_tensor.h). Thread-safe.
bool multi_tensor_steps();
void set_multi_tensor_steps(bool on);

// Whether multi-tensor steps of adam and adamw run libtorch's fused kernels (one pass per tensor
// for the whole update, PyTorch's fused=True) where this libtorch has them for the parameters'
// device (libtorch 2: CUDA, and the CPU from 2.4; api/nn/kinds/fused_adam.h). On by default;
// without multi-tensor steps it has no effect. Results equal the unfused steps' to rounding.
// One setting for the process, read at each step (q: setting`fused). Thread-safe.
bool fused_steps();
void set_fused_steps(bool on);

// The learning rate of each parameter group of optimizer o (or of model o's optimizer); setting
// one rate for every group, or one rate per group. Rates must be non-negative (kscope::Error "lr:
// invalid learning rate -1"); one per group ("lr: 3 rates given for 2 groups").
std::vector<double> lr(Handle o);
void lr(Handle o, double rate);
void lr(Handle o, const std::vector<double>& rates);

}  // namespace kscope

#endif  // KSCOPE_API_NN_OPTIMIZER_H_
