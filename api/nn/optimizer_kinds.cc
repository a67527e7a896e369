// The table of optimizer kinds. Each entry restates ktorch's option names, order and defaults
// (../shared/reference/ktorch-api.md §2.3) and maps them onto libtorch's options. ktorch's
// `sgd` has a default learning rate of 0.01, where libtorch's SGDOptions has none. lbfgs can
// be defined and queried but not stepped (its step needs a closure: ktorch's backstep/run,
// which need models). Not here: lamb, ktorch's own optimizer with no libtorch counterpart.
#include <tuple>

#include <torch/optim/adagrad.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/lbfgs.h>
#include <torch/optim/rmsprop.h>
#include <torch/optim/sgd.h>

#include "absl/types/span.h"
#include "api/nn/optimizer_kind.h"
#include "runtime/errors.h"

namespace kscope::nn {
namespace {

using torch::optim::Optimizer;
using torch::optim::OptimizerParamState;

// The defined tensors among `tensors` (state buffers a configuration does not use stay undefined).
std::vector<at::Tensor> Defined(absl::Span<const at::Tensor> tensors) {
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

// The sum of squared gradients is made when the optimizer is (libtorch's Adagrad fills it with
// `init` in its constructor), so adagrad's buffers exist before the first step.
OptimizerKind Adagrad() {
  return OptimizerKind{
      "adagrad",
      {{"lr", OptionType::kDouble, 0.01},
       {"lrdecay", OptionType::kDouble, 0.0},
       {"decay", OptionType::kDouble, 0.0},
       {"init", OptionType::kDouble, 0.0},
       {"eps", OptionType::kDouble, 1e-10}},
      [](std::vector<at::Tensor> parameters, const OptionSet& o) -> std::shared_ptr<Optimizer> {
        return std::make_shared<torch::optim::Adagrad>(std::move(parameters),
                                                       torch::optim::AdagradOptions(o.Double("lr"))
                                                           .lr_decay(o.Double("lrdecay"))
                                                           .weight_decay(o.Double("decay"))
                                                           .initial_accumulator_value(o.Double("init"))
                                                           .eps(o.Double("eps")));
      },
      [](const OptimizerParamState& s) {
        return Defined({dynamic_cast<const torch::optim::AdagradParamState&>(s).sum()});
      }};
}

// square_avg always; momentum_buffer only with momentum > 0, grad_avg only when centered.
OptimizerKind Rmsprop() {
  return OptimizerKind{
      "rmsprop",
      {{"lr", OptionType::kDouble, 0.01},
       {"alpha", OptionType::kDouble, 0.99},
       {"eps", OptionType::kDouble, 1e-8},
       {"decay", OptionType::kDouble, 0.0},
       {"momentum", OptionType::kDouble, 0.0},
       {"centered", OptionType::kBool, false}},
      [](std::vector<at::Tensor> parameters, const OptionSet& o) -> std::shared_ptr<Optimizer> {
        return std::make_shared<torch::optim::RMSprop>(std::move(parameters),
                                                       torch::optim::RMSpropOptions(o.Double("lr"))
                                                           .alpha(o.Double("alpha"))
                                                           .eps(o.Double("eps"))
                                                           .weight_decay(o.Double("decay"))
                                                           .momentum(o.Double("momentum"))
                                                           .centered(o.Bool("centered")));
      },
      [](const OptimizerParamState& s) {
        const auto& r = dynamic_cast<const torch::optim::RMSpropParamState&>(s);
        return Defined({r.square_avg(), r.momentum_buffer(), r.grad_avg()});
      }};
}

// A null `eval` is left to libtorch, which makes it iter*5/4. `search` is null (no line search)
// or strong_wolfe, the one line search libtorch has. libtorch keeps lbfgs's state under the
// first parameter only: the search direction, the curvature history, the last flat gradient and
// the scratch coefficients of the two-loop recursion.
OptimizerKind Lbfgs() {
  return OptimizerKind{
      "lbfgs",
      {{"lr", OptionType::kDouble, 1.0},
       {"iter", OptionType::kLong, std::int64_t{20}},
       {"eval", OptionType::kLongOrNull, {}},
       {"gradtol", OptionType::kDouble, 1e-7},
       {"changetol", OptionType::kDouble, 1e-9},
       {"history", OptionType::kLong, std::int64_t{100}},
       {"search", OptionType::kSymbolOrNull, {}}},
      [](std::vector<at::Tensor> parameters, const OptionSet& o) -> std::shared_ptr<Optimizer> {
        auto options = torch::optim::LBFGSOptions(o.Double("lr"))
                           .max_iter(o.Long("iter"))
                           .tolerance_grad(o.Double("gradtol"))
                           .tolerance_change(o.Double("changetol"))
                           .history_size(o.Long("history"));
        if (!o.IsNull("eval")) options.max_eval(o.Long("eval"));
        if (!o.IsNull("search")) {
          if (o.Symbol("search") != "strong_wolfe") {
            Fail("lbfgs: unrecognized search `%s, expecting strong_wolfe", o.Symbol("search"));
          }
          options.line_search_fn(o.Symbol("search"));
        }
        return std::make_shared<torch::optim::LBFGS>(std::move(parameters), options);
      },
      [](const OptimizerParamState& s) {
        const auto& l = dynamic_cast<const torch::optim::LBFGSParamState&>(s);
        std::vector<at::Tensor> all = Defined({l.d(), l.H_diag(), l.prev_flat_grad()});
        for (const auto* history : {&l.old_dirs(), &l.old_stps(), &l.ro()}) {
          all.insert(all.end(), history->begin(), history->end());
        }
        if (l.al()) {
          const std::vector<at::Tensor> al = Defined(*l.al());
          all.insert(all.end(), al.begin(), al.end());
        }
        return all;
      },
      "LBFGS optimizer requires model, loss & inputs"};
}

std::vector<OptimizerKind> Kinds() {
  std::vector<OptimizerKind> kinds;
  kinds.push_back(Sgd());
  kinds.push_back(AdamLike<torch::optim::Adam, torch::optim::AdamOptions, torch::optim::AdamParamState>("adam", 0.0));
  kinds.push_back(
      AdamLike<torch::optim::AdamW, torch::optim::AdamWOptions, torch::optim::AdamWParamState>("adamw", 0.01));
  kinds.push_back(Adagrad());
  kinds.push_back(Rmsprop());
  kinds.push_back(Lbfgs());
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
