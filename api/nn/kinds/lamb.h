// Lamb — ktorch's `lamb` optimizer (kopt/lamb.cpp): NVLAMB, layer-wise adaptive moments with
// gradient pre-normalization (You et al. 2019, "Large Batch Optimization for Deep Learning";
// NVIDIA's variant), as a libtorch optimizer.
//
// One step, for every parameter p with a gradient g, in group order:
//   globalnorm: g = g / max(1, ||all gradients of all groups||_2)  (NVIDIA's pre-normalization)
//   m = beta1*m + (1-beta1)*g;  v = beta2*v + (1-beta2)*g*g;  step += 1
//   unbiased:   m^ = m / (1-beta1^step), v^ = v / (1-beta2^step)  (else m^ = m, v^ = v)
//   u = m^ / (sqrt(v^) + eps) + decay*p
//   r = ||p|| / ||u|| when both norms are positive, else 1;  trustclip: r = clamp(r, trustmin,
//   trustmax) p = p - lr*r*u
// Gradients themselves are not changed. The state of a parameter (LambParamState: step, exp_avg,
// exp_avg_sq) is made at its first step. Options are checked at construction ("Invalid learning
// rate: -1" as c10::Error, as libtorch's optimizers do). Thread-compatible, like every libtorch
// optimizer.
#ifndef KSCOPE_API_NN_KINDS_LAMB_H_
#define KSCOPE_API_NN_KINDS_LAMB_H_

#include <tuple>
#include <vector>

#include <torch/arg.h>
#include <torch/optim/optimizer.h>

namespace kscope::nn {

struct LambOptions : public torch::optim::OptimizerCloneableOptions<LambOptions> {
  LambOptions(double lr = 1e-3) : lr_(lr) {}  // NOLINT: implicit, as libtorch's options
  TORCH_ARG(double, lr) = 1e-3;
  using betas_t = std::tuple<double, double>;
  TORCH_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(double, weight_decay) = 0;
  TORCH_ARG(bool, unbiased) = true;
  TORCH_ARG(bool, globalnorm) = true;
  TORCH_ARG(bool, trustclip) = true;
  TORCH_ARG(double, trustmin) = 0;
  TORCH_ARG(double, trustmax) = 1;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(const double lr) override { this->lr(lr); }
};

struct LambParamState : public torch::optim::OptimizerCloneableParamState<LambParamState> {
  TORCH_ARG(std::int64_t, step) = 0;
  TORCH_ARG(at::Tensor, exp_avg);
  TORCH_ARG(at::Tensor, exp_avg_sq);
};

class Lamb : public torch::optim::Optimizer {
 public:
  explicit Lamb(std::vector<torch::optim::OptimizerParamGroup> groups, LambOptions defaults = {});
  explicit Lamb(std::vector<at::Tensor> parameters, LambOptions defaults = {})
      : Lamb({torch::optim::OptimizerParamGroup(std::move(parameters))}, std::move(defaults)) {}

  // Runs `closure` (with gradients enabled) first when one is given, and returns its loss.
  at::Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace kscope::nn

#endif  // KSCOPE_API_NN_KINDS_LAMB_H_
