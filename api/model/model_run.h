// Calculation on models (ktorch's forward/nforward/eforward/evaluate, loss, backward, step,
// backstep, run and testrun on a model): the model's module, loss and optimizer applied to its
// training data (the current batch, api/model/model_data.h) or to data given with the call.
//
// Inputs and targets of several tensors (api/model/model_data.h): the module's forward takes the
// input's tensors in order; the loss takes the output's first part, then the target's tensors.
// A training step: gradients zeroed, forward on the input, loss against the target, backward,
// a device sync under the `sync option, gradients clipped per the training options (clipnorm, per
// optimizer group with clipgroup, or clipvalue), then the optimizer's step — given this sequence as
// its closure, so optimizers that evaluate the model several times (lbfgs) work. run goes through
// every training batch (an epoch of api/model/model_data.h, shuffled if the options say so) doing a
// step per batch; testrun goes through the test batches in evaluation mode without gradients
// (each batch on the module's device: data held elsewhere — host tensors of a model on a GPU — is
// copied a batch ahead, api/model/batch_feed.h; forward, backward and backstep copy it too). Both
// return the metrics the mode's options name, in order: loss (the sum of the batch losses over the
// number of batches of all tasks: the mean of batch means for one task, as ktorch), batchloss,
// accuracy (percent of target values matched by the output's highest class, argmax over the
// last dimension), matches (matched and total counts), predict (that class, per row), output
// (the module's output, rows of all batches), hidden and hiddencell (a recurrent module's
// state after each batch: the output's second and third parts, concatenated along the first
// dimension as ktorch does), grouploss, groupaccuracy and groupmatches (the same over every task
// of the model's process group; this process's own without one). Nothing is read back from the
// device within an epoch (api/model/epoch_metrics.h: the losses and counts stay there until the
// epoch's one read; clipping by norm reads nothing, api/nn/clip.h) unless the `sync option asks for
// it. Under the `graph option run replays a captured step for its full-size batches
// (api/model/graphed_steps.h). Under the `hidden option the state a batch leaves is fed (detached)
// with the next batch's input; each epoch starts without one. A model bound to a process group
// (api/distributed/distribute.h) averages its gradients over the ranks in every step of run and
// backstep, and run/testrun exchange what the group metrics need: every rank must make the same
// calls.
//
// Errors: kscope::Error naming the function ("run: expected model, given tensor", "run: no
// training data", "run: metric `hidden needs a recurrent model", libtorch's for shapes).
// Thread-safety: a model must not be used from two threads at once.
#ifndef KSCOPE_API_MODEL_MODEL_RUN_H_
#define KSCOPE_API_MODEL_MODEL_RUN_H_

#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

#include "api/core/operand.h"
#include "api/model/epoch_metrics.h"
#include "api/model/model_data.h"
#include "api/model/model_options.h"
#include "api/nn/module.h"
#include "runtime/handle.h"

namespace kscope {

// forward m / nforward m: the module on the training input (kForward, kNoGrad); eforward m /
// evaluate m: on the test input in evaluation mode (kEval, kEvaluate: data out). A new handle
// otherwise.
Result model_forward(Handle m, ForwardMode mode);
// loss(m;yhat;y): the model's loss.
Result model_loss(Handle m, const Operand& yhat, const Operand& y);
// backward m / backward(m;x;y): forward, loss and backward (no zeroing, no step); the loss, a
// detached scalar of the loss's dtype. Data given here is not batched: scalars will do.
at::Tensor model_backward(Handle m);
at::Tensor model_backward(Handle m, const DataParts& x, const DataParts& y);
// step m: the optimizer's step.
void model_step(Handle m);
// backstep m / backstep(m;x;y): a training step (see above); the loss, as for backward.
at::Tensor model_backstep(Handle m);
at::Tensor model_backstep(Handle m, const DataParts& x, const DataParts& y);

// run m / testrun m.
RunMetrics run(Handle m);
RunMetrics testrun(Handle m);
// The metrics as one new handle, as ktorch gives them when the `tensor option is set: a tensor
// for one metric, else a vector, or, with the `dictionary option, a dictionary by metric name.
Handle metrics_handle(const RunMetrics& metrics);

}  // namespace kscope

#endif  // KSCOPE_API_MODEL_MODEL_RUN_H_
