#include "api/model/loss_scale.h"

#include <ATen/ops/_foreach_mul.h>
#include <ATen/ops/isfinite.h>
#include <ATen/ops/stack.h>

namespace kscope::nn {

bool LossScale::Unscale(const std::vector<at::Tensor>& parameters) const {
  std::vector<at::Tensor> grads;
  for (const at::Tensor& p : parameters) {
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  if (grads.empty()) return true;
  at::_foreach_mul_(grads, 1.0 / scale);
  std::vector<at::Tensor> finite;
  for (const at::Tensor& g : grads) finite.push_back(at::isfinite(g).all());
  return at::stack(finite).all().item<bool>();  // the step's one read from the device
}

void LossScale::Update(bool finite) {
  if (!finite) {
    scale *= kBackoff;
    good_steps = 0;
  } else if (++good_steps == kGrowthInterval) {
    scale *= kGrowth;
    good_steps = 0;
  }
}

}  // namespace kscope::nn
