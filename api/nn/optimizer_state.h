// Saving an optimizer's state and making an optimizer from it: ktorch's `state o` and
// `opt(state;module)`.
//
// The state is the optimizer's description (kind, every option of every group, the parms rows)
// and, for each parameter, its state buffers by name (adam: step exp_avg exp_avg_sq
// max_exp_avg_sq; sgd: momentum_buffer; adagrad: step sum; rmsprop: step square_avg momentum
// grad_avg; lamb: step exp_avg exp_avg_sq; lbfgs, under its first parameter: func_evals n_iter t
// prev_loss d H_diag prev_flat_grad and the histories old_dirs old_stps ro stacked into one
// tensor each). Counts are long scalars, values double scalars, other buffers copies of the
// optimizer's tensors. A parameter with no state yet (no step taken) has no buffers.
//
// opt(state, module) makes a new optimizer of the same kind whose groups take the module's
// parameters named in the parms rows, with each group's options and copies of the saved buffers
// (on the parameter's device, of its type where shaped as it): its next step is the step the
// saved optimizer would have taken. A group added later starts from group 0's options. Errors
// (kscope::Error naming `opt`, nothing created): an unknown kind, option or buffer, a parameter
// the module does not have or of another size, a buffer of the wrong size, a group beyond the
// options given.
//
// opt_load(o, state) makes an existing optimizer continue from `state` in place (its handles,
// and a model holding it, keep it): each group's options and each parameter's buffers are
// replaced (a parameter without buffers in the state loses any it had). The state must be of
// o's kind and describe o's parameters: the same groups, and the same parameter names and sizes
// in the same order. Errors as opt(state, module)'s, and "opt: state has parameter 2 `0.bias
// (group 0, size 16), the optimizer `1.weight (group 0, size 3 16)"; on error o is unchanged.
// Thread-safety: as api/nn/optimizer.h.
#ifndef KSCOPE_API_NN_OPTIMIZER_STATE_H_
#define KSCOPE_API_NN_OPTIMIZER_STATE_H_

#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

#include "api/nn/optimizer.h"
#include "runtime/handle.h"

namespace kscope {

// One parameter's state buffers by name, in its kind's order.
using OptimizerBuffers = std::vector<std::pair<std::string, at::Tensor>>;

struct OptimizerState {
  OptimizerDescription description;
  std::vector<OptimizerBuffers> buffers;  // one per row of description.parameters
};

// The state of optimizer o (all options, or only those that differ from the defaults).
OptimizerState opt_state(Handle o, bool all_options = true);
// A new optimizer over module's parameters that continues from `state`.
Handle opt(const OptimizerState& state, Handle module);
// Optimizer o continues from `state` (see above).
void opt_load(Handle o, const OptimizerState& state);

}  // namespace kscope

#endif  // KSCOPE_API_NN_OPTIMIZER_STATE_H_
