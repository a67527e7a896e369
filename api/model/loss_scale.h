// LossScale — the dynamic loss scale of fp16 training (the `amp option's fp16), with
// torch.amp.GradScaler's rules and defaults: the loss is multiplied by the scale before
// backward (65536 to begin with); before clipping and the optimizer's step the gradients are
// divided by it again and checked; a step whose gradients hold an inf or a nan is skipped and
// the scale halved; after 2000 steps in a row without one the scale doubles.
//
// Finding the infs reads one number from the device per step (as GradScaler's step does); bf16
// needs no scale and reads nothing. A value type; thread-compatible (one model's training).
#ifndef KSCOPE_API_MODEL_LOSS_SCALE_H_
#define KSCOPE_API_MODEL_LOSS_SCALE_H_

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>

namespace kscope::nn {

struct LossScale {
  static constexpr double kInitial = 65536, kGrowth = 2, kBackoff = 0.5;
  static constexpr std::int64_t kGrowthInterval = 2000;

  double scale = kInitial;
  std::int64_t good_steps = 0;  // steps since the scale last changed, none of them skipped

  // Divides the gradients of `parameters` (those that have one) by the scale in place; whether
  // every one of them is finite.
  bool Unscale(const std::vector<at::Tensor>& parameters) const;
  // The scale after a step whose gradients were `finite` (false: the step was skipped).
  void Update(bool finite);
};

}  // namespace kscope::nn

#endif  // KSCOPE_API_MODEL_LOSS_SCALE_H_
