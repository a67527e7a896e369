// GraphedSteps — an epoch of run's training steps under kscope's `graph option: the first
// kWarmupSteps full-size batches take ordinary steps, the next one is captured as a CUDA graph
// (api/model/step_graph.h) on copies of its input and target (the static tensors), and it and
// every later full-size batch are copied into those copies and the graph replayed: the whole step
// (gradients set to none, forward, loss, backward, clipping, the optimizer's step) in one launch,
// with no host work per batch. A batch of another size (the short last one) takes an ordinary
// step. One GraphedSteps per epoch: each run captures anew, with the options, learning rates and
// parameters of the moment. The steps' results equal ordinary steps' (the same kernels in the same
// order); what a replayed step returns (its loss, its output parts) is copied out of the graph's
// memory before the next replay. Random operations (dropout) draw numbers as the graph's
// generator state gives them, not as an uncaptured run would.
//
// The optimizer's host-side step counts (adam's, adamw's, adagrad's, rmsprop's: what `opt`
// tables and checkpoints show) are advanced for the replays when the GraphedSteps is destroyed.
//
// CheckGraphable refuses, before any step, what a captured step cannot do: a model not on a
// CUDA device (or kscope built without CUDA), lbfgs (several evaluations per step) and optimizers
// other than sgd, adam, adamw, rmsprop and adagrad, adam and adamw without their fused kernels
// (unfused steps compute bias corrections on the host), adagrad with `lrdecay, callback modules,
// embeddings with sparse gradients or a `maxnorm (data-dependent shapes), the `sync and `hidden
// options, amp `fp16 (its loss scale checks the gradients on the host) and a model bound to a
// process group. A capture that fails anyway is kscope::Error "<fn>: graph capture failed: ..."
// with libtorch's reason; the warm-up steps before it have trained the model, and the optimizer's
// host step counts include the captured step, which never ran.
//
// Thread-compatible: one epoch, one thread (whose current stream is the graph's while it lives).
#ifndef KSCOPE_API_MODEL_GRAPHED_STEPS_H_
#define KSCOPE_API_MODEL_GRAPHED_STEPS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <ATen/core/Tensor.h>

#include "api/model/model_object.h"
#include "api/model/model_options.h"
#include "api/model/step_graph.h"

namespace kscope {

// kscope::Error naming `fn` if run cannot capture the model's steps under options `o`.
void CheckGraphable(const char* fn, const nn::Model& model, const nn::RunOptions& o);

class GraphedSteps {
 public:
  // One ordinary training step on input x and target y: its loss, and its output's parts
  // (detached) in *output.
  using Step = std::function<at::Tensor(const nn::DataTensors& x, const nn::DataTensors& y,
                                        std::vector<at::Tensor>* output)>;
  static constexpr int kWarmupSteps = 3;

  // Checks the model (CheckGraphable); full-size batches have `batchsize` rows (0: the whole
  // data is one batch, never captured).
  GraphedSteps(const char* fn, nn::Model& model, const nn::RunOptions& o, Step step);
  ~GraphedSteps();
  GraphedSteps(const GraphedSteps&) = delete;
  GraphedSteps& operator=(const GraphedSteps&) = delete;

  // A training step on the batch (x, y), as Step.
  at::Tensor Take(const nn::DataTensors& x, const nn::DataTensors& y,
                  std::vector<at::Tensor>* output);

 private:
  void Capture(const nn::DataTensors& x, const nn::DataTensors& y);

  const char* fn_;
  nn::Model& model_;
  const std::int64_t full_rows_;
  Step step_;
  std::unique_ptr<StepGraph> graph_;
  int warm_ = 0;
  std::int64_t replays_ = 0;
  bool captured_ = false;
  nn::DataTensors static_x_, static_y_;
  at::Tensor static_loss_;
  std::vector<at::Tensor> static_output_;
  std::vector<at::Tensor> stepped_;  // the parameters the captured step updates
};

}  // namespace kscope

#endif  // KSCOPE_API_MODEL_GRAPHED_STEPS_H_
