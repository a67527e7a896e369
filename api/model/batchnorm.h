// Batch normalization statistics for stochastic weight averaging (ktorch's batchnorm, PyTorch's
// torch.optim.swa_utils.update_bn): recomputing the running mean and variance of every
// batchnorm layer from a model's training data, and saving and restoring the layers' momenta.
//
// The layers are the batchnorm1d, batchnorm2d and batchnorm3d submodules (q itself included)
// that track running statistics (`track 1b), named by their dotted path in q (`0`, `block.2`;
// empty for q itself), depth first. Instance norm layers are not among them: their momentum
// cannot be null, and update_bn leaves them alone too. A layer's momentum is a number or null
// (std::nullopt: the running statistics are the cumulative average of every batch's).
//
// Errors: kscope::Error naming `batchnorm` ("batchnorm: expected module or model, given tensor",
// "batchnorm: no batchnorm layer `foo in sequential module", "stale pointer"), and those of the
// model's forward on its data (libtorch's for shapes). A call that throws leaves the layers'
// statistics, momenta and training flags as they were. Thread-safety: any thread; the module
// must not be used by another thread meanwhile.
#ifndef KSCOPE_API_MODEL_BATCHNORM_H_
#define KSCOPE_API_MODEL_BATCHNORM_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/handle.h"

namespace kscope {

// Layer name -> momentum, in the layers' order.
using Momenta = std::vector<std::pair<std::string, std::optional<double>>>;

// batchnorm q: returns the momentum of each layer of module q (or model q's module), then
// resets the layers' running statistics and sets their momenta to null, so that the next
// training-mode forward passes accumulate the cumulative average (restore the momenta with
// batchnorm(q, momenta) afterwards). For a model with training data it also does the passes:
// a no-gradient training-mode forward on every training batch of an epoch (api/model/model_data.h:
// shuffled if the `shuffle option says so; the epoch ends with it), then puts the momenta and
// the module's training flag back; the statistics are then the mean over the batches of each
// batch's mean and (unbiased) variance. An empty result when q has no such layer (nothing
// done then).
Momenta batchnorm(Handle q);
// batchnorm(q;d): sets the momentum of each layer named in `momenta` (all validated first).
void batchnorm(Handle q, const Momenta& momenta);

}  // namespace kscope

#endif  // KSCOPE_API_MODEL_BATCHNORM_H_
