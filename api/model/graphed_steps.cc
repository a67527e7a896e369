#include "api/model/graphed_steps.h"

#include <string>
#include <utility>

#include <c10/util/Exception.h>
#include <torch/nn/modules/embedding.h>
#include <torch/optim/adagrad.h>

#include "api/nn/callback_registry.h"
#include "api/nn/kinds/fused_adam.h"
#include "api/nn/kinds/multi_tensor.h"
#include "api/nn/optimizer.h"
#include "runtime/errors.h"

namespace kscope {
namespace {

// Whether a module in the tree at m gives sparse gradients or renormalizes rows it looks up
// (embeddings with `sparse or `maxnorm: shapes that depend on the data).
bool DataDependentEmbedding(const torch::nn::Module& m) {
  if (const auto* e = dynamic_cast<const torch::nn::EmbeddingImpl*>(&m)) {
    if (e->options.sparse() || e->options.max_norm()) return true;
  }
  if (const auto* e = dynamic_cast<const torch::nn::EmbeddingBagImpl*>(&m)) {
    if (e->options.sparse() || e->options.max_norm()) return true;
  }
  for (const auto& child : m.children()) {
    if (DataDependentEmbedding(*child)) return true;
  }
  return false;
}

void CheckOptimizer(const char* fn, const nn::Model& model) {
  const nn::OptimizerObject& optimizer = *model.optimizer;
  const std::string& kind = optimizer.spec().kind->name;
  if (optimizer.spec().kind->step_refusal != nullptr)
    Fail("%s: graph cannot capture %s, which evaluates the model several times per step", fn, kind);
  if (kind != "sgd" && kind != "adam" && kind != "adamw" && kind != "rmsprop" && kind != "adagrad")
    Fail("%s: graph captures the steps of sgd, adam, adamw, rmsprop and adagrad, not %s", fn, kind);
  if (kind == "adam" || kind == "adamw") {
    const std::vector<at::Tensor> p = optimizer.parameters();
    if (!multi_tensor_steps() || !nn::CanFuseAdam(kind == "adamw", p, p))
      Fail(
          "%s: graph needs %s's fused kernel (settings foreach and fused on, libtorch 2 on a "
          "CUDA device): unfused steps compute bias corrections on the host",
          fn, kind);
  }
  if (kind == "adagrad") {
    for (const auto& group : optimizer.optimizer().param_groups()) {
      if (static_cast<const torch::optim::AdagradOptions&>(group.options()).lr_decay() != 0)
        Fail("%s: graph cannot capture adagrad with lrdecay: its rate follows the host's count",
             fn);
    }
  }
}

// The rows of a batch of model data (which has at least one dimension, model_data.h).
std::int64_t Rows(const nn::DataTensors& x) { return x.tensors.front().size(0); }

nn::DataTensors Cloned(const nn::DataTensors& x) {
  nn::DataTensors c = x;
  for (at::Tensor& t : c.tensors) t = t.clone();
  return c;
}

void CopyInto(nn::DataTensors& to, const nn::DataTensors& from) {
  for (std::size_t i = 0; i < to.tensors.size(); ++i)
    to.tensors[i].copy_(from.tensors[i], /*non_blocking=*/true);
}

}  // namespace

void CheckGraphable(const char* fn, const nn::Model& model, const nn::RunOptions& o) {
  if (o.sync) Fail("%s: graph cannot capture the `sync option's wait for the device", fn);
  if (o.hidden) Fail("%s: graph cannot capture the `hidden option's state between batches", fn);
  if (o.amp == at::kHalf)
    Fail("%s: graph cannot capture amp `fp16, whose loss scale checks gradients on the host", fn);
  if (model.group) Fail("%s: graph cannot capture a model bound to a process group", fn);
  CheckOptimizer(fn, model);
  const torch::nn::Module& module = model.module->module();
  if (has_callback_module(module))
    Fail("%s: graph cannot capture callback modules, which run functions on the host", fn);
  if (DataDependentEmbedding(module))
    Fail("%s: graph cannot capture embeddings with `sparse or `maxnorm (data-dependent shapes)",
         fn);
  const std::optional<c10::Device> device = model.device();
  if (!device || !StepGraphsOn(*device)) {
    Fail("%s: graph captures training steps on a CUDA device%s, the model is on %s", fn,
         StepGraphsOn(c10::Device(c10::kCUDA)) ? "" : " (kscope built with CUDA)",
         device ? "the " + device->str() : std::string("no device (no parameters)"));
  }
}

GraphedSteps::GraphedSteps(const char* fn, nn::Model& model, const nn::RunOptions& o, Step step)
    : fn_(fn),
      model_(model),
      full_rows_(o.batchsize > 0 ? o.batchsize : -1),
      step_(std::move(step)) {
  CheckGraphable(fn, model, o);
  graph_ = MakeStepGraph(*model.device());
}

GraphedSteps::~GraphedSteps() {
  // The capture ran the optimizer's host code once, for the first replay.
  if (replays_ > 1) nn::AdvanceStepCounts(model_.optimizer->optimizer(), stepped_, replays_ - 1);
}

at::Tensor GraphedSteps::Take(const nn::DataTensors& x, const nn::DataTensors& y,
                              std::vector<at::Tensor>* output) {
  if (Rows(x) != full_rows_ || warm_ < kWarmupSteps) {
    if (Rows(x) == full_rows_) ++warm_;
    return step_(x, y, output);
  }
  if (captured_) {
    CopyInto(static_x_, x);
    CopyInto(static_y_, y);
  } else {
    Capture(x, y);
  }
  graph_->Replay();
  ++replays_;
  if (output != nullptr) {
    output->clear();
    for (const at::Tensor& part : static_output_) output->push_back(part.clone());
  }
  return static_loss_.clone();
}

void GraphedSteps::Capture(const nn::DataTensors& x, const nn::DataTensors& y) {
  static_x_ = Cloned(x);
  static_y_ = Cloned(y);
  try {
    graph_->Capture([&] { static_loss_ = step_(static_x_, static_y_, &static_output_).detach(); });
  } catch (const c10::Error& e) {
    Fail("%s: graph capture failed: %s", fn_, e.what_without_backtrace());
  }
  captured_ = true;
  for (const at::Tensor& p : model_.optimizer->parameters()) {
    if (p.grad().defined()) stepped_.push_back(p);
  }
}

}  // namespace kscope
