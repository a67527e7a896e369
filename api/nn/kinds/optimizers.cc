// The table of optimizer kinds, with sgd adam adamw adagrad rmsprop defined here, lbfgs in
// lbfgs.cc and lamb (ktorch's own optimizer) in lamb.cc. Each entry restates ktorch's option
// names, order and defaults (../shared/reference/ktorch-api.md §2.3), maps them onto
// libtorch's options, and names the state buffers of one parameter. ktorch's `sgd` has a
// default learning rate of 0.01, where libtorch's SGDOptions has none.
#include <tuple>

#include <ATen/ATen.h>
#include <torch/optim/adagrad.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/rmsprop.h>
#include <torch/optim/sgd.h>

#include "absl/types/span.h"
#include "api/nn/kind_names.h"
#include "api/nn/kinds/optimizer_families.h"
#include "api/nn/optimizer_kind.h"
#include "runtime/errors.h"

namespace kscope::nn {

std::vector<at::Tensor> DefinedTensors(absl::Span<const at::Tensor> tensors) {
  std::vector<at::Tensor> out;
  for (const at::Tensor& t : tensors) {
    if (t.defined()) out.push_back(t);
  }
  return out;
}

at::Tensor CountBuffer(std::int64_t n) { return at::scalar_tensor(n, at::kLong); }
at::Tensor ValueBuffer(double v) { return at::scalar_tensor(v, at::kDouble); }
void PutBuffer(OptimizerBuffers* buffers, const char* name, const at::Tensor& t) {
  if (t.defined()) buffers->emplace_back(name, t.detach().clone());
}

namespace {

using torch::optim::OptimizerParamState;

torch::optim::SGDOptions SgdOptions(const OptionSet& o) {
  return torch::optim::SGDOptions(o.Double("lr"))
      .momentum(o.Double("momentum"))
      .dampening(o.Double("dampening"))
      .weight_decay(o.Double("decay"))
      .nesterov(o.Bool("nesterov"));
}

OptimizerKind Sgd() {
  using State = torch::optim::SGDParamState;
  OptimizerKind k =
      MakeOptimizerKind<MultiTensor<torch::optim::SGD>>("sgd",
                                                        {{"lr", OptionType::kDouble, 0.01},
                                                         {"momentum", OptionType::kDouble, 0.0},
                                                         {"dampening", OptionType::kDouble, 0.0},
                                                         {"decay", OptionType::kDouble, 0.0},
                                                         {"nesterov", OptionType::kBool, false}},
                                                        {"momentum_buffer"}, &SgdOptions);
  k.state = [](const OptimizerParamState& s) {
    return DefinedTensors({static_cast<const State&>(s).momentum_buffer()});
  };
  k.save = [](const OptimizerParamState& s) {
    OptimizerBuffers b;
    PutBuffer(&b, "momentum_buffer", static_cast<const State&>(s).momentum_buffer());
    return b;
  };
  k.load = [](const SavedBuffers& saved) -> std::unique_ptr<OptimizerParamState> {
    auto s = std::make_unique<State>();
    s->momentum_buffer(saved.Like("momentum_buffer"));
    return s;
  };
  return k;
}

// adam and adamw: the same options (but for the default decay) and the same state.
template <typename Options>
Options AdamOptions(const OptionSet& o) {
  return Options(o.Double("lr"))
      .betas(std::make_tuple(o.Double("beta1"), o.Double("beta2")))
      .eps(o.Double("eps"))
      .weight_decay(o.Double("decay"))
      .amsgrad(o.Bool("amsgrad"));
}

template <typename Impl, typename Options, typename State>
OptimizerKind AdamLike(std::string name, double decay) {
  OptimizerKind k = MakeOptimizerKind<MultiTensor<Impl>>(
      std::move(name),
      {{"lr", OptionType::kDouble, 0.001},
       {"beta1", OptionType::kDouble, 0.9},
       {"beta2", OptionType::kDouble, 0.999},
       {"eps", OptionType::kDouble, 1e-8},
       {"decay", OptionType::kDouble, decay},
       {"amsgrad", OptionType::kBool, false}},
      {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}, &AdamOptions<Options>);
  k.state = [](const OptimizerParamState& s) {
    const auto& a = static_cast<const State&>(s);
    return DefinedTensors({a.exp_avg(), a.exp_avg_sq(), a.max_exp_avg_sq()});
  };
  k.scalars = 1;  // step
  k.save = [](const OptimizerParamState& s) {
    const auto& a = static_cast<const State&>(s);
    OptimizerBuffers b{{"step", CountBuffer(a.step())}};
    PutBuffer(&b, "exp_avg", a.exp_avg());
    PutBuffer(&b, "exp_avg_sq", a.exp_avg_sq());
    PutBuffer(&b, "max_exp_avg_sq", a.max_exp_avg_sq());
    return b;
  };
  k.load = [](const SavedBuffers& saved) -> std::unique_ptr<OptimizerParamState> {
    auto s = std::make_unique<State>();
    s->step(saved.Long("step"));
    s->exp_avg(saved.Like("exp_avg"));
    s->exp_avg_sq(saved.Like("exp_avg_sq"));
    s->max_exp_avg_sq(saved.Like("max_exp_avg_sq", /*required=*/false));
    return s;
  };
  return k;
}

torch::optim::AdagradOptions AdagradOptions(const OptionSet& o) {
  return torch::optim::AdagradOptions(o.Double("lr"))
      .lr_decay(o.Double("lrdecay"))
      .weight_decay(o.Double("decay"))
      .initial_accumulator_value(o.Double("init"))
      .eps(o.Double("eps"));
}

// The sum of squared gradients is made with the parameter's place in the optimizer (libtorch's
// Adagrad fills it with `init` in its constructor), so adagrad's buffers exist before a step.
OptimizerKind Adagrad() {
  using State = torch::optim::AdagradParamState;
  OptimizerKind k =
      MakeOptimizerKind<MultiTensor<torch::optim::Adagrad>>("adagrad",
                                                            {{"lr", OptionType::kDouble, 0.01},
                                                             {"lrdecay", OptionType::kDouble, 0.0},
                                                             {"decay", OptionType::kDouble, 0.0},
                                                             {"init", OptionType::kDouble, 0.0},
                                                             {"eps", OptionType::kDouble, 1e-10}},
                                                            {"step", "sum"}, &AdagradOptions);
  k.state = [](const OptimizerParamState& s) {
    return DefinedTensors({static_cast<const State&>(s).sum()});
  };
  k.scalars = 1;  // step
  k.save = [](const OptimizerParamState& s) {
    const auto& a = static_cast<const State&>(s);
    OptimizerBuffers b{{"step", CountBuffer(a.step())}};
    PutBuffer(&b, "sum", a.sum());
    return b;
  };
  k.load = [](const SavedBuffers& saved) -> std::unique_ptr<OptimizerParamState> {
    auto s = std::make_unique<State>();
    s->step(saved.Long("step"));
    s->sum(saved.Like("sum"));
    return s;
  };
  k.initial = [](const at::Tensor& p,
                 const OptionSet& group) -> std::unique_ptr<OptimizerParamState> {
    auto s = std::make_unique<State>();
    s->sum(at::full_like(p.detach(), group.Double("init"), at::MemoryFormat::Preserve));
    return s;
  };
  return k;
}

torch::optim::RMSpropOptions RmspropOptions(const OptionSet& o) {
  return torch::optim::RMSpropOptions(o.Double("lr"))
      .alpha(o.Double("alpha"))
      .eps(o.Double("eps"))
      .weight_decay(o.Double("decay"))
      .momentum(o.Double("momentum"))
      .centered(o.Bool("centered"));
}

// square_avg always; momentum_buffer only with momentum > 0, grad_avg only when centered.
OptimizerKind Rmsprop() {
  using State = torch::optim::RMSpropParamState;
  OptimizerKind k = MakeOptimizerKind<MultiTensor<torch::optim::RMSprop>>(
      "rmsprop",
      {{"lr", OptionType::kDouble, 0.01},
       {"alpha", OptionType::kDouble, 0.99},
       {"eps", OptionType::kDouble, 1e-8},
       {"decay", OptionType::kDouble, 0.0},
       {"momentum", OptionType::kDouble, 0.0},
       {"centered", OptionType::kBool, false}},
      {"step", "square_avg", "momentum_buffer", "grad_avg"}, &RmspropOptions);
  k.state = [](const OptimizerParamState& s) {
    const auto& r = static_cast<const State&>(s);
    return DefinedTensors({r.square_avg(), r.momentum_buffer(), r.grad_avg()});
  };
  k.scalars = 1;  // step
  k.save = [](const OptimizerParamState& s) {
    const auto& r = static_cast<const State&>(s);
    OptimizerBuffers b{{"step", CountBuffer(r.step())}};
    PutBuffer(&b, "square_avg", r.square_avg());
    PutBuffer(&b, "momentum_buffer", r.momentum_buffer());
    PutBuffer(&b, "grad_avg", r.grad_avg());
    return b;
  };
  k.load = [](const SavedBuffers& saved) -> std::unique_ptr<OptimizerParamState> {
    auto s = std::make_unique<State>();
    s->step(saved.Long("step"));
    s->square_avg(saved.Like("square_avg"));
    s->momentum_buffer(saved.Like("momentum_buffer", /*required=*/false));
    s->grad_avg(saved.Like("grad_avg", /*required=*/false));
    return s;
  };
  return k;
}

std::vector<OptimizerKind> Kinds() {
  std::vector<OptimizerKind> kinds;
  kinds.push_back(Sgd());
  kinds.push_back(
      AdamLike<torch::optim::Adam, torch::optim::AdamOptions, torch::optim::AdamParamState>("adam",
                                                                                            0.0));
  kinds.push_back(
      AdamLike<torch::optim::AdamW, torch::optim::AdamWOptions, torch::optim::AdamWParamState>(
          "adamw", 0.01));
  kinds.push_back(Adagrad());
  kinds.push_back(Rmsprop());
  kinds.push_back(LbfgsKind());
  kinds.push_back(LambKind());
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

const std::vector<std::string>& OptimizerKindNames() {
  static const auto* const names = new std::vector<std::string>([] {
    std::vector<std::string> out;
    for (const OptimizerKind& k : Kinds()) out.push_back(k.name);
    return out;
  }());
  return *names;
}

}  // namespace kscope::nn
