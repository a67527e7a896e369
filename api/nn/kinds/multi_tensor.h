// MultiTensor<Base> — one of libtorch's optimizers (SGD, Adam, AdamW, Adagrad, RMSprop) whose
// step updates each parameter group with multi-tensor operations: every arithmetic step of the
// update runs once for all of the group's parameters that have a gradient (libtorch's
// `_foreach_*` operators: one kernel launch per operation for the list on a GPU, where libtorch's
// own step launches several per parameter), as PyTorch's optimizers do by default since 2.0.
//
// The state is Base's own (its param states, keyed as Base keys them), so saving, loading,
// accounting and the option tables are unchanged, and the same operations run in the same order
// on each tensor: on the CPU (where `_foreach_*` runs tensor by tensor) the results equal Base's
// step bit for bit; on a GPU the fused list kernels compute each element in the same order and
// precision. Base's own step runs instead when kscope::multi_tensor_steps() is off or a gradient
// is sparse (after the closure, which runs once either way). State missing for a parameter is
// made as Base makes it; a buffer an option switched on later needs (adam's max_exp_avg_sq,
// rmsprop's momentum_buffer and grad_avg) is made as zeros, where Base would fail on it.
//
// Errors: libtorch's (c10::Error) from the operators; a failure part-way through a group's update
// may leave that group's parameters partly updated, as Base's step does. Thread-compatible, as
// Base: one step at a time per optimizer.
#ifndef KSCOPE_API_NN_KINDS_MULTI_TENSOR_H_
#define KSCOPE_API_NN_KINDS_MULTI_TENSOR_H_

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>
#include <torch/optim/adagrad.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/rmsprop.h>
#include <torch/optim/sgd.h>

namespace kscope::nn {

template <typename Base>
class MultiTensor final : public Base {
 public:
  using Base::Base;
  at::Tensor step(torch::optim::Optimizer::LossClosure closure = nullptr) override;
};

// Adds n to the step counts in the states of `params` (adam's and adamw's, with their counts on
// the device, adagrad's and rmsprop's; sgd keeps none): steps a device replayed without the
// optimizer's host code (a CUDA graph's replays, api/model/graphed_steps.h).
void AdvanceStepCounts(torch::optim::Optimizer& o, const std::vector<at::Tensor>& params,
                       std::int64_t n);

extern template class MultiTensor<torch::optim::SGD>;
extern template class MultiTensor<torch::optim::Adam>;
extern template class MultiTensor<torch::optim::AdamW>;
extern template class MultiTensor<torch::optim::Adagrad>;
extern template class MultiTensor<torch::optim::RMSprop>;

}  // namespace kscope::nn

#endif  // KSCOPE_API_NN_KINDS_MULTI_TENSOR_H_
