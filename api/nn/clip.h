// Clipping gradients, ktorch's clip (by norm) and clipv (by value), over the tensors of a
// tensor, vector or dictionary handle, the parameters of a module, or those of an optimizer or
// a model's optimizer; and `clip m`, clipping as a model's training options say (also the
// clipping step of a training step, api/model/model_run.h). Tensors without a gradient are skipped.
// Clipping by norm computes as libtorch's torch::nn::utils::clip_grad_norm_ does (each gradient's
// norm and the scaling as one multi-tensor operation each) and reads the norm back from the
// device only where it is returned: a training step's clipping never waits for the device.
// Clipping by value is libtorch's clip_grad_value_. Both run on the gradients in place.
//
// Errors: kscope::Error naming the function for another class of object ("clip: expected
// tensor, vector, dictionary, module, optimizer or model, given loss"; "clip: expected model,
// given tensor" for clip_by_options); nothing is clipped then. Thread-safety: any thread; the
// gradients must not be in use by another thread.
#ifndef KSCOPE_API_NN_CLIP_H_
#define KSCOPE_API_NN_CLIP_H_

#include <vector>

#include "api/model/model_object.h"
#include "runtime/handle.h"

namespace kscope {

// Scales the gradients so that their total norm (of order norm_type; infinity: the largest
// magnitude) is at most max_norm; returns the norm they had (0 when none has a gradient).
double clip(Handle h, double max_norm, double norm_type = 2);
// The same for each parameter group of an optimizer (or a model's optimizer) separately: one
// previous norm per group. Any other object is one group.
std::vector<double> clip_groups(Handle h, double max_norm, double norm_type = 2);
// Clamps every gradient to [-value, value].
void clipv(Handle h, double value);

// clip m: clips the gradients of model m's optimizer's parameters as its training options say:
// by norm (`clipnorm: max norm and order) across all of them, or per optimizer parameter group
// under `clipgroup; by value (`clipvalue); not at all when neither is set. Returns the previous
// norms: one, or one per group under `clipgroup; none when clipping by value or not at all.
std::vector<double> clip_by_options(Handle m);
// The same on a model's parts, for the training step: appends the previous norms to *norms when
// it is given (reading them from the device); with no `norms` nothing is read back. Throws only
// what libtorch throws.
void clip_by_options(const nn::Model& model, std::vector<double>* norms = nullptr);

}  // namespace kscope

#endif  // KSCOPE_API_NN_CLIP_H_
