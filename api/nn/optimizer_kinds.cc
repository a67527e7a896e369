// The table of optimizer kinds. Each entry restates ktorch's option names, order and defaults
// (../shared/reference/ktorch-api.md §2.3) and maps them onto libtorch's options. ktorch's
// `sgd` has a default learning rate of 0.01, where libtorch's SGDOptions has none.
#include <tuple>

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

#include "api/nn/optimizer_kind.h"

namespace kscope::nn {
namespace {

using torch::optim::Optimizer;
using torch::optim::OptimizerParamState;

// The defined tensors among `tensors` (state buffers a configuration does not use stay undefined).
std::vector<at::Tensor> Defined(std::initializer_list<at::Tensor> tensors) {
  std::vector<at::Tensor> out;
  for (const at::Tensor& t : tensors) {
    if (t.defined()) out.push_back(t);
  }
  return out;
}

OptimizerKind Sgd() {
  return OptimizerKind{
      "sgd",
      {{"lr", OptionType::kDouble, 0.01},
       {"momentum", OptionType::kDouble, 0.0},
       {"dampening", OptionType::kDouble, 0.0},
       {"decay", OptionType::kDouble, 0.0},
       {"nesterov", OptionType::kBool, false}},
      [](std::vector<at::Tensor> parameters, const OptionSet& o) -> std::shared_ptr<Optimizer> {
        return std::make_shared<torch::optim::SGD>(std::move(parameters), torch::optim::SGDOptions(o.Double("lr"))
                                                                               .momentum(o.Double("momentum"))
                                                                               .dampening(o.Double("dampening"))
                                                                               .weight_decay(o.Double("decay"))
                                                                               .nesterov(o.Bool("nesterov")));
      },
      [](const OptimizerParamState& s) {
        return Defined({dynamic_cast<const torch::optim::SGDParamState&>(s).momentum_buffer()});
      }};
}

// adam and adamw: the same options (but for the default decay) and the same state.
template <typename Impl, typename Options, typename State>
OptimizerKind AdamLike(std::string name, double decay) {
  return OptimizerKind{
      std::move(name),
      {{"lr", OptionType::kDouble, 0.001},
       {"beta1", OptionType::kDouble, 0.9},
       {"beta2", OptionType::kDouble, 0.999},
       {"eps", OptionType::kDouble, 1e-8},
       {"decay", OptionType::kDouble, decay},
       {"amsgrad", OptionType::kBool, false}},
      [](std::vector<at::Tensor> parameters, const OptionSet& o) -> std::shared_ptr<Optimizer> {
        return std::make_shared<Impl>(std::move(parameters), Options(o.Double("lr"))
                                                                 .betas(std::make_tuple(o.Double("beta1"), o.Double("beta2")))
                                                                 .eps(o.Double("eps"))
                                                                 .weight_decay(o.Double("decay"))
                                                                 .amsgrad(o.Bool("amsgrad")));
      },
      [](const OptimizerParamState& s) {
        const auto& a = dynamic_cast<const State&>(s);
        return Defined({a.exp_avg(), a.exp_avg_sq(), a.max_exp_avg_sq()});
      }};
}

std::vector<OptimizerKind> Kinds() {
  std::vector<OptimizerKind> kinds;
  kinds.push_back(Sgd());
  kinds.push_back(AdamLike<torch::optim::Adam, torch::optim::AdamOptions, torch::optim::AdamParamState>("adam", 0.0));
  kinds.push_back(
      AdamLike<torch::optim::AdamW, torch::optim::AdamWOptions, torch::optim::AdamWParamState>("adamw", 0.01));
  return kinds;
}

}  // namespace

const OptimizerKind* FindOptimizerKind(absl::string_view name) {
  // A handful of kinds: a linear search. Never destroyed, like the module table.
  static const auto* const kinds = new std::vector<OptimizerKind>(Kinds());
  for (const OptimizerKind& k : *kinds) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

}  // namespace kscope::nn
