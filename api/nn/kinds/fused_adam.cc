#include "api/nn/kinds/fused_adam.h"

#include <atomic>
#include <memory>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/_foreach_add.h>
#include <ATen/ops/full.h>
#include <c10/core/TensorOptions.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>

#include "api/nn/optimizer.h"
#include "api/nn/optimizer_kind.h"
#include "runtime/torch_compat.h"

namespace kscope {
namespace {
std::atomic<bool> fused{true};
}  // namespace

bool fused_steps() { return fused.load(std::memory_order_relaxed); }
void set_fused_steps(bool on) { fused.store(on, std::memory_order_relaxed); }

namespace nn {
namespace {

// The dispatcher's handle of an operator, if this libtorch has it (c10::optional on 1.13).
using OptionalOperator = decltype(c10::Dispatcher::singleton().findSchema({"", ""}));

// Whether `op` has a kernel for tensors like t in this libtorch.
bool HasKernel(const OptionalOperator& op, const at::Tensor& t) {
  return op && op->hasKernelForDispatchKey(
                   c10::computeDispatchKey(t.scalar_type(), t.layout(), t.device()));
}

// The fused adam or adamw operator, looked up once per process (operators stay registered).
const OptionalOperator& Operator(bool decoupled) {
  static const auto* adam =
      new OptionalOperator(c10::Dispatcher::singleton().findSchema({"aten::_fused_adam_", ""}));
  static const auto* adamw =
      new OptionalOperator(c10::Dispatcher::singleton().findSchema({"aten::_fused_adamw_", ""}));
  return decoupled ? *adamw : *adam;
}

bool Alike(const at::Tensor& t, const at::Tensor& first) {
  return t.layout() == at::kStrided && t.device() == first.device() &&
         t.scalar_type() == first.scalar_type();
}

}  // namespace

bool CanFuseAdam(bool decoupled, const std::vector<at::Tensor>& params,
                 const std::vector<at::Tensor>& grads) {
  if (!kFusedAdamBuilt || !fused_steps() || params.empty()) return false;
  const at::Tensor& first = params.front();
  if (!at::isFloatingType(first.scalar_type())) return false;
  for (const auto* list : {&params, &grads}) {
    for (const at::Tensor& t : *list) {
      if (!Alike(t, first)) return false;
    }
  }
  return HasKernel(Operator(decoupled), first);
}

template <typename State>
at::Tensor DeviceStep(torch::optim::Optimizer& o, const at::Tensor& p) {
  auto& slot = o.state()[StateKeyOf(p)];
  auto* counted = dynamic_cast<DeviceCounted<State>*>(slot.get());
  if (counted == nullptr) {
    auto made = std::make_unique<DeviceCounted<State>>(static_cast<const State&>(*slot));
    counted = made.get();
    slot = std::move(made);
  }
  const std::int64_t before = counted->step() - 1;
  at::Tensor& step = counted->device_step;
  if (!step.defined() || step.device() != p.device()) {
    step =
        at::full({}, static_cast<double>(before), at::TensorOptions(at::kFloat).device(p.device()));
  } else if (counted->device_count != before) {
    step.fill_(static_cast<double>(before));
  }
  counted->device_count = before + 1;
  return step;
}

template at::Tensor DeviceStep<torch::optim::AdamParamState>(torch::optim::Optimizer&,
                                                             const at::Tensor&);
template at::Tensor DeviceStep<torch::optim::AdamWParamState>(torch::optim::Optimizer&,
                                                              const at::Tensor&);

void FusedAdamUpdate(bool decoupled, const std::vector<at::Tensor>& params,
                     const std::vector<at::Tensor>& grads, const std::vector<at::Tensor>& exp_avgs,
                     const std::vector<at::Tensor>& exp_avg_sqs,
                     const std::vector<at::Tensor>& max_exp_avg_sqs,
                     const std::vector<at::Tensor>& steps, double lr, double beta1, double beta2,
                     double weight_decay, double eps, bool amsgrad) {
  at::_foreach_add_(steps, 1);
  FusedAdam(decoupled, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, lr, beta1,
            beta2, weight_decay, eps, amsgrad);
}

}  // namespace nn
}  // namespace kscope
