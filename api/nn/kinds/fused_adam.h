// Fused adam and adamw steps: libtorch's `_fused_adam_` and `_fused_adamw_` kernels update a
// whole list of parameters, their moments and (amsgrad) maxima in one pass per tensor, where the
// multi-tensor step (multi_tensor.h) runs eight list operations. PyTorch's `fused=True`.
//
// The kernels read each parameter's step count from a float32 scalar tensor on the parameter's
// device. kscope keeps that tensor in the parameter's state (DeviceCounted<State>: libtorch's
// state with the device count beside its int64 one) and advances it on the device, so a step
// copies nothing from the host (as a CUDA graph's replay needs); it is made again from libtorch's
// count whenever that count moved without it (a state loaded or cloned: clones are plain State).
// libtorch's count stays the truth that `opt` tables, checkpoints and resume read.
//
// Results equal the multi-tensor step to rounding: the kernel evaluates the same update per
// element in one expression (its own order of operations, in the parameter's type's opmath).
//
// Thread-compatible, as the optimizer: one step at a time. Errors: libtorch's (c10::Error).
#ifndef KSCOPE_API_NN_KINDS_FUSED_ADAM_H_
#define KSCOPE_API_NN_KINDS_FUSED_ADAM_H_

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>
#include <torch/optim/optimizer.h>

namespace kscope::nn {

// Whether a fused adam (decoupled false) or adamw kernel will update these parameters: fused
// steps are on (kscope::fused_steps()), this libtorch has the kernel for their device type
// (libtorch 2: CUDA, and the CPU from 2.4), and they and their gradients are dense tensors of one
// floating type on one device.
bool CanFuseAdam(bool decoupled, const std::vector<at::Tensor>& params,
                 const std::vector<at::Tensor>& grads);

// libtorch's adam or adamw parameter state (State) with the parameter's step count on its device.
template <typename State>
struct DeviceCounted final : State {
  explicit DeviceCounted(const State& state) : State(state) {}
  at::Tensor device_step;          // float32 scalar on the parameter's device
  std::int64_t device_count = -1;  // the count device_step holds (before this step's advance)
};

// The step count tensor of parameter p for this step, holding the count before it (libtorch's
// count, already advanced on the host, less one); p's state becomes a DeviceCounted<State> if it
// is not one. The caller advances every returned tensor by one, in one multi-tensor operation.
template <typename State>
at::Tensor DeviceStep(torch::optim::Optimizer& o, const at::Tensor& p);

// One fused update of the lists (their order matches), the step counts advanced first.
void FusedAdamUpdate(bool decoupled, const std::vector<at::Tensor>& params,
                     const std::vector<at::Tensor>& grads, const std::vector<at::Tensor>& exp_avgs,
                     const std::vector<at::Tensor>& exp_avg_sqs,
                     const std::vector<at::Tensor>& max_exp_avg_sqs,
                     const std::vector<at::Tensor>& steps, double lr, double beta1, double beta2,
                     double weight_decay, double eps, bool amsgrad);

}  // namespace kscope::nn

#endif  // KSCOPE_API_NN_KINDS_FUSED_ADAM_H_
