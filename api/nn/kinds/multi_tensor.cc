#include "api/nn/kinds/multi_tensor.h"

#include <atomic>
#include <cmath>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include <ATen/ops/_foreach_add.h>
#include <ATen/ops/_foreach_addcdiv.h>
#include <ATen/ops/_foreach_addcmul.h>
#include <ATen/ops/_foreach_div.h>
#include <ATen/ops/_foreach_maximum.h>
#include <ATen/ops/_foreach_mul.h>
#include <ATen/ops/_foreach_sqrt.h>
#include <ATen/ops/full_like.h>
#include <ATen/ops/zeros_like.h>
#include <c10/core/GradMode.h>

#include "api/nn/kinds/fused_adam.h"
#include "api/nn/optimizer.h"
#include "api/nn/optimizer_kind.h"

namespace kscope {
namespace {
std::atomic<bool> multi_tensor{true};
}  // namespace

bool multi_tensor_steps() { return multi_tensor.load(std::memory_order_relaxed); }
void set_multi_tensor_steps(bool on) { multi_tensor.store(on, std::memory_order_relaxed); }

namespace nn {
namespace {

using torch::optim::Optimizer;
using torch::optim::OptimizerParamGroup;
using Tensors = std::vector<at::Tensor>;
using Scalars = std::vector<at::Scalar>;

// The parameters of a group that have a gradient, and their gradients, in the group's order.
struct Stepped {
  Tensors params, grads;
};

Stepped WithGradients(const OptimizerParamGroup& group) {
  Stepped s;
  for (const at::Tensor& p : group.params()) {
    if (!p.grad().defined()) continue;
    s.params.push_back(p);
    s.grads.push_back(p.grad());
  }
  return s;
}

bool AnySparseGradient(const std::vector<OptimizerParamGroup>& groups) {
  for (const OptimizerParamGroup& group : groups) {
    for (const at::Tensor& p : group.params()) {
      if (p.grad().defined() && p.grad().is_sparse()) return true;
    }
  }
  return false;
}

// The state of parameter p, of type State, made by `make` (as Base makes it) where p has none.
template <typename State, typename Make>
State& StateOf(Optimizer& o, const at::Tensor& p, Make make) {
  auto& slot = o.state()[StateKeyOf(p)];
  if (slot == nullptr) slot = make();
  return static_cast<State&>(*slot);
}

at::Tensor Zeros(const at::Tensor& p) { return at::zeros_like(p, at::MemoryFormat::Preserve); }

// A buffer an option needs: made as zeros if the state was made without it.
at::Tensor& Needed(const at::Tensor& p, at::Tensor& buffer) {
  if (!buffer.defined()) buffer = Zeros(p);
  return buffer;
}

// The gradient with L2 weight decay added (new tensors), or the gradients themselves.
Tensors Decayed(const Stepped& s, double decay) {
  return decay != 0 ? at::_foreach_add(s.grads, s.params, decay) : s.grads;
}

// libtorch's SGD: d = g (+ decay p); with momentum, buf = d on the first step, then
// buf = momentum buf + (1 - dampening) d, and d = d + momentum buf (nesterov) or buf; p -= lr d.
void Update(torch::optim::SGD& o, const OptimizerParamGroup& group, const Stepped& s) {
  const auto& options = static_cast<const torch::optim::SGDOptions&>(group.options());
  using State = torch::optim::SGDParamState;
  Tensors d = Decayed(s, options.weight_decay());
  const double momentum = options.momentum();
  if (momentum != 0) {
    Tensors buffers, running, running_d;
    for (std::size_t i = 0; i < s.params.size(); ++i) {
      bool fresh = false;
      State& state = StateOf<State>(o, s.params[i], [&] {
        fresh = true;
        auto made = std::make_unique<State>();
        made->momentum_buffer(d[i].clone());
        return made;
      });
      buffers.push_back(state.momentum_buffer());
      if (!fresh) {
        running.push_back(state.momentum_buffer());
        running_d.push_back(d[i]);
      }
    }
    if (!running.empty()) {
      at::_foreach_mul_(running, momentum);
      at::_foreach_add_(running, running_d, 1 - options.dampening());
    }
    d = options.nesterov() ? at::_foreach_add(d, buffers, momentum) : std::move(buffers);
  }
  at::_foreach_add_(s.params, d, -1 * options.lr());
}

// libtorch's Adam (decoupled false: decay added to the gradient) and AdamW (decoupled: p scaled
// by 1 - lr decay first): the moments' running averages, then p -= lr / c1 * m / (sqrt(v) /
// sqrt(c2) + eps), c1 and c2 the bias corrections of each parameter's own step count. In one
// fused kernel where libtorch has one for the parameters (fused_adam.h).
template <typename State, typename Options>
void AdamUpdate(Optimizer& o, const Options& options, const Stepped& s, bool decoupled) {
  const double lr = options.lr(), decay = options.weight_decay();
  const auto [beta1, beta2] = options.betas();
  const bool fuse = CanFuseAdam(decoupled, s.params, s.grads);
  if (decoupled && decay != 0 && !fuse) at::_foreach_mul_(s.params, 1 - lr * decay);
  Tensors m, v, highest, steps;
  Scalars root_c2, step_size;
  for (const at::Tensor& p : s.params) {
    State& state = StateOf<State>(o, p, [&] {
      auto made = std::make_unique<State>();
      made->step(0);
      made->exp_avg(Zeros(p));
      made->exp_avg_sq(Zeros(p));
      if (options.amsgrad()) made->max_exp_avg_sq(Zeros(p));
      return made;
    });
    state.step(state.step() + 1);
    m.push_back(state.exp_avg());
    v.push_back(state.exp_avg_sq());
    if (options.amsgrad()) highest.push_back(Needed(p, state.max_exp_avg_sq()));
    if (fuse) {
      steps.push_back(DeviceStep<State>(o, p));
      continue;
    }
    root_c2.emplace_back(std::sqrt(1 - std::pow(beta2, state.step())));
    step_size.emplace_back(-(lr / (1 - std::pow(beta1, state.step()))));
  }
  if (fuse) {
    return FusedAdamUpdate(decoupled, s.params, s.grads, m, v, highest, steps, lr, beta1, beta2,
                           decay, options.eps(), options.amsgrad());
  }
  const Tensors g = decoupled ? s.grads : Decayed(s, decay);
  at::_foreach_mul_(m, beta1);
  at::_foreach_add_(m, g, 1 - beta1);
  at::_foreach_mul_(v, beta2);
  at::_foreach_addcmul_(v, g, g, 1 - beta2);
  if (options.amsgrad()) at::_foreach_maximum_(highest, v);
  Tensors denominator = at::_foreach_sqrt(options.amsgrad() ? highest : v);
  at::_foreach_div_(denominator, root_c2);
  at::_foreach_add_(denominator, options.eps());
  at::_foreach_addcdiv_(s.params, m, denominator, step_size);
}

void Update(torch::optim::Adam& o, const OptimizerParamGroup& group, const Stepped& s) {
  AdamUpdate<torch::optim::AdamParamState>(
      o, static_cast<const torch::optim::AdamOptions&>(group.options()), s, /*decoupled=*/false);
}

void Update(torch::optim::AdamW& o, const OptimizerParamGroup& group, const Stepped& s) {
  AdamUpdate<torch::optim::AdamWParamState>(
      o, static_cast<const torch::optim::AdamWOptions&>(group.options()), s, /*decoupled=*/true);
}

// libtorch's Adagrad: sum += g g; p -= clr g / (sqrt(sum) + eps), clr = lr / (1 + (step - 1)
// lrdecay). Its sum is made when a parameter joins (as the kind's `initial` does for later ones).
void Update(torch::optim::Adagrad& o, const OptimizerParamGroup& group, const Stepped& s) {
  const auto& options = static_cast<const torch::optim::AdagradOptions&>(group.options());
  using State = torch::optim::AdagradParamState;
  Tensors sums;
  Scalars step_size;
  for (const at::Tensor& p : s.params) {
    State& state = StateOf<State>(o, p, [&] {
      auto made = std::make_unique<State>();
      made->step(0);
      made->sum(at::full_like(p, options.initial_accumulator_value(), at::MemoryFormat::Preserve));
      return made;
    });
    state.step(state.step() + 1);
    sums.push_back(state.sum());
    step_size.emplace_back(
        -(options.lr() / (1 + static_cast<double>(state.step() - 1) * options.lr_decay())));
  }
  const Tensors g = Decayed(s, options.weight_decay());
  at::_foreach_addcmul_(sums, g, g, 1.0);
  Tensors deviation = at::_foreach_sqrt(sums);
  at::_foreach_add_(deviation, options.eps());
  at::_foreach_addcdiv_(s.params, g, deviation, step_size);
}

// libtorch's RMSprop: sq = alpha sq + (1 - alpha) g g; centered: ga = alpha ga + (1 - alpha) g and
// avg = sqrt(sq - ga ga) + eps, else sqrt(sq) + eps; with momentum buf = momentum buf + g / avg
// and p -= lr buf, else p -= lr g / avg.
void Update(torch::optim::RMSprop& o, const OptimizerParamGroup& group, const Stepped& s) {
  const auto& options = static_cast<const torch::optim::RMSpropOptions&>(group.options());
  using State = torch::optim::RMSpropParamState;
  const double alpha = options.alpha(), momentum = options.momentum();
  Tensors square_avg, grad_avg, buffers;
  for (const at::Tensor& p : s.params) {
    State& state = StateOf<State>(o, p, [&] {
      auto made = std::make_unique<State>();
      made->step(0);
      made->square_avg(Zeros(p));
      if (momentum > 0) made->momentum_buffer(Zeros(p));
      if (options.centered()) made->grad_avg(Zeros(p));
      return made;
    });
    state.step(state.step() + 1);
    square_avg.push_back(state.square_avg());
    if (options.centered()) grad_avg.push_back(Needed(p, state.grad_avg()));
    if (momentum > 0) buffers.push_back(Needed(p, state.momentum_buffer()));
  }
  const Tensors g = Decayed(s, options.weight_decay());
  at::_foreach_mul_(square_avg, alpha);
  at::_foreach_addcmul_(square_avg, g, g, 1 - alpha);
  Tensors average;
  if (options.centered()) {
    at::_foreach_mul_(grad_avg, alpha);
    at::_foreach_add_(grad_avg, g, 1 - alpha);
    average = at::_foreach_addcmul(square_avg, grad_avg, grad_avg, -1);
    at::_foreach_sqrt_(average);
  } else {
    average = at::_foreach_sqrt(square_avg);
  }
  at::_foreach_add_(average, options.eps());
  if (momentum > 0) {
    at::_foreach_mul_(buffers, momentum);
    at::_foreach_addcdiv_(buffers, g, average);
    at::_foreach_add_(s.params, buffers, -options.lr());
  } else {
    at::_foreach_addcdiv_(s.params, g, average, -options.lr());
  }
}

// Adds n to the step count of `state` if it is a State (and to its count on the device if it
// keeps one); whether it was.
template <typename State>
bool Advance(torch::optim::OptimizerParamState& state, std::int64_t n) {
  auto* s = dynamic_cast<State*>(&state);
  if (s == nullptr) return false;
  s->step(s->step() + n);
  if (auto* counted = dynamic_cast<DeviceCounted<State>*>(s)) counted->device_count += n;
  return true;
}

}  // namespace

void AdvanceStepCounts(Optimizer& o, const std::vector<at::Tensor>& params, std::int64_t n) {
  using torch::optim::AdagradParamState, torch::optim::AdamParamState,
      torch::optim::AdamWParamState, torch::optim::RMSpropParamState;
  for (const at::Tensor& p : params) {
    const auto it = o.state().find(StateKeyOf(p));
    if (it == o.state().end()) continue;
    torch::optim::OptimizerParamState& state = *it->second;
    Advance<AdamParamState>(state, n) || Advance<AdamWParamState>(state, n) ||
        Advance<AdagradParamState>(state, n) || Advance<RMSpropParamState>(state, n);
  }
}

template <typename Base>
at::Tensor MultiTensor<Base>::step(torch::optim::Optimizer::LossClosure closure) {
  at::Tensor loss;
  if (closure != nullptr) {
    at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  if (!multi_tensor_steps() || AnySparseGradient(this->param_groups())) {
    Base::step(nullptr);
    return loss;
  }
  at::NoGradGuard no_grad;
  for (OptimizerParamGroup& group : this->param_groups()) {
    const Stepped s = WithGradients(group);
    if (s.params.empty()) continue;
    Update(static_cast<Base&>(*this), group, s);
  }
  return loss;
}

template class MultiTensor<torch::optim::SGD>;
template class MultiTensor<torch::optim::Adam>;
template class MultiTensor<torch::optim::AdamW>;
template class MultiTensor<torch::optim::Adagrad>;
template class MultiTensor<torch::optim::RMSprop>;

}  // namespace nn
}  // namespace kscope
