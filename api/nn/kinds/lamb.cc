#include "api/nn/kinds/lamb.h"

#include <cmath>

#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/grad_mode.h>

#include "api/nn/kinds/optimizer_families.h"
#include "api/nn/optimizer_kind.h"

namespace kscope::nn {
namespace {

// The factor every gradient is divided by: the global L2 norm of all gradients, at least 1.
double GlobalScale(const std::vector<torch::optim::OptimizerParamGroup>& groups) {
  double sum = 0;
  for (const auto& group : groups) {
    for (const at::Tensor& p : group.params()) {
      if (p.grad().defined()) sum += p.grad().detach().pow(2).sum().item<double>();
    }
  }
  return std::max(1.0, std::sqrt(sum));
}

}  // namespace

Lamb::Lamb(std::vector<torch::optim::OptimizerParamGroup> groups, LambOptions defaults)
    : Optimizer(std::move(groups), std::make_unique<LambOptions>(defaults)) {
  TORCH_CHECK(defaults.lr() >= 0, "Invalid learning rate: ", defaults.lr());
  TORCH_CHECK(defaults.eps() >= 0, "Invalid epsilon value: ", defaults.eps());
  const auto [beta1, beta2] = defaults.betas();
  TORCH_CHECK(0 <= beta1 && beta1 < 1, "Invalid beta parameter at index 0: ", beta1);
  TORCH_CHECK(0 <= beta2 && beta2 < 1, "Invalid beta parameter at index 1: ", beta2);
  TORCH_CHECK(defaults.weight_decay() >= 0,
              "Invalid weight_decay value: ", defaults.weight_decay());
  TORCH_CHECK(defaults.trustmin() >= 0 && defaults.trustmin() <= defaults.trustmax(),
              "Invalid trust ratio range: ", defaults.trustmin(), " to ", defaults.trustmax());
}

at::Tensor Lamb::step(LossClosure closure) {
  at::NoGradGuard no_grad;
  at::Tensor loss;
  if (closure != nullptr) {
    at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  bool global_needed = false;
  for (const auto& group : param_groups_)
    global_needed |= static_cast<const LambOptions&>(group.options()).globalnorm();
  const double scale = global_needed ? GlobalScale(param_groups_) : 1.0;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const LambOptions&>(group.options());
    const auto [beta1, beta2] = o.betas();
    for (const at::Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      const at::Tensor g = o.globalnorm() ? p.grad() / scale : p.grad();
      auto& slot = state_[StateKeyOf(p)];
      if (slot == nullptr) {
        auto fresh = std::make_unique<LambParamState>();
        fresh->exp_avg(at::zeros_like(p, at::MemoryFormat::Preserve));
        fresh->exp_avg_sq(at::zeros_like(p, at::MemoryFormat::Preserve));
        slot = std::move(fresh);
      }
      auto& s = static_cast<LambParamState&>(*slot);
      s.step(s.step() + 1);
      s.exp_avg().mul_(beta1).add_(g, 1 - beta1);
      s.exp_avg_sq().mul_(beta2).addcmul_(g, g, 1 - beta2);
      const double c1 = o.unbiased() ? 1 - std::pow(beta1, s.step()) : 1;
      const double c2 = o.unbiased() ? 1 - std::pow(beta2, s.step()) : 1;
      at::Tensor update = (s.exp_avg() / c1) / ((s.exp_avg_sq() / c2).sqrt() + o.eps());
      if (o.weight_decay() != 0) update.add_(p, o.weight_decay());
      const double w = p.norm().item<double>();
      const double u = update.norm().item<double>();
      double ratio = w > 0 && u > 0 ? w / u : 1.0;
      if (o.trustclip()) ratio = std::min(std::max(ratio, o.trustmin()), o.trustmax());
      p.add_(update, -o.lr() * ratio);
    }
  }
  return loss;
}

namespace {

using torch::optim::OptimizerParamState;

LambOptions LambOptionsOf(const OptionSet& o) {
  return LambOptions(o.Double("lr"))
      .betas(std::make_tuple(o.Double("beta1"), o.Double("beta2")))
      .eps(o.Double("eps"))
      .weight_decay(o.Double("decay"))
      .unbiased(o.Bool("unbiased"))
      .globalnorm(o.Bool("globalnorm"))
      .trustclip(o.Bool("trustclip"))
      .trustmin(o.Double("trustmin"))
      .trustmax(o.Double("trustmax"));
}

}  // namespace

OptimizerKind LambKind() {
  OptimizerKind k = MakeOptimizerKind<Lamb>("lamb",
                                            {{"lr", OptionType::kDouble, 0.001},
                                             {"beta1", OptionType::kDouble, 0.9},
                                             {"beta2", OptionType::kDouble, 0.999},
                                             {"eps", OptionType::kDouble, 1e-8},
                                             {"decay", OptionType::kDouble, 0.0},
                                             {"unbiased", OptionType::kBool, true},
                                             {"globalnorm", OptionType::kBool, true},
                                             {"trustclip", OptionType::kBool, true},
                                             {"trustmin", OptionType::kDouble, 0.0},
                                             {"trustmax", OptionType::kDouble, 1.0}},
                                            {"step", "exp_avg", "exp_avg_sq"}, &LambOptionsOf);
  k.state = [](const OptimizerParamState& s) {
    const auto& l = static_cast<const LambParamState&>(s);
    return DefinedTensors({l.exp_avg(), l.exp_avg_sq()});
  };
  k.scalars = 1;  // step
  k.save = [](const OptimizerParamState& s) {
    const auto& l = static_cast<const LambParamState&>(s);
    OptimizerBuffers b{{"step", CountBuffer(l.step())}};
    PutBuffer(&b, "exp_avg", l.exp_avg());
    PutBuffer(&b, "exp_avg_sq", l.exp_avg_sq());
    return b;
  };
  k.load = [](const SavedBuffers& saved) -> std::unique_ptr<OptimizerParamState> {
    auto s = std::make_unique<LambParamState>();
    s->step(saved.Long("step"));
    s->exp_avg(saved.Like("exp_avg"));
    s->exp_avg_sq(saved.Like("exp_avg_sq"));
    return s;
  };
  return k;
}

}  // namespace kscope::nn
