// Clipping gradients, ktorch's clip (by norm) and clipv (by value), over the tensors of a
// tensor, vector or dictionary handle, or the parameters of a module or an optimizer. Tensors
// without a gradient are skipped. Both are libtorch's torch::nn::utils::clip_grad_norm_ and
// clip_grad_value_, run on the gradients in place.
//
// Errors: kscope::Error naming the function for another class of object ("clip: expected
// tensor, vector, dictionary, module or optimizer, given loss"); nothing is clipped then.
// Thread-safety: any thread; the gradients must not be in use by another thread.
#ifndef KSCOPE_API_CLIP_H_
#define KSCOPE_API_CLIP_H_

#include <vector>

#include "runtime/handle.h"

namespace kscope {

// Scales the gradients so that their total norm (of order norm_type; infinity: the largest
// magnitude) is at most max_norm; returns the norm they had (0 when none has a gradient).
double clip(Handle h, double max_norm, double norm_type = 2);
// The same for each parameter group of an optimizer separately: one previous norm per group.
// Any other object is one group.
std::vector<double> clip_groups(Handle h, double max_norm, double norm_type = 2);
// Clamps every gradient to [-value, value].
void clipv(Handle h, double value);

}  // namespace kscope

#endif  // KSCOPE_API_CLIP_H_
