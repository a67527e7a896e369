#include "api/model_run.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/stack.h>
#include <torch/types.h>  // clip_grad.h needs torch::Tensor and the torch:: ops declared first
#include <torch/nn/module.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/optimizer.h>

#include "absl/cleanup/cleanup.h"
#include "api/model_data.h"
#include "api/nn/forward_io.h"
#include "api/nn/model_object.h"
#include "runtime/errors.h"

namespace kscope {
namespace {

using nn::DataMode;

// The module's output on x (one tensor), in training mode unless `eval`, gradients as the
// caller's grad mode says.
at::Tensor Output(const char* fn, const nn::Model& model, const at::Tensor& x, bool eval = false) {
  if (!x.defined()) Fail("%s: no %s data", fn, eval ? "test" : "training");
  const nn::ModuleObject& q = *model.module;
  torch::nn::Module& module = q.module();
  const bool was_training = module.is_training();
  if (eval) module.eval();
  absl::Cleanup restore = [&] { if (eval) module.train(was_training); };
  return nn::SingleOutput(fn, q.spec().kind->forward(module, {x}));
}

at::Tensor Loss(const char* fn, const nn::Model& model, const at::Tensor& yhat, const at::Tensor& y) {
  if (!y.defined()) Fail("%s: no target defined", fn);
  const nn::ModuleObject& l = *model.loss;
  return nn::SingleOutput(fn, l.spec().kind->forward(l.module(), {yhat, y.to(yhat.device())}));
}

// Clips the module's gradients as the training options say.
void Clip(const nn::Model& model) {
  const nn::RunOptions& o = model.train.get();
  if (o.clipvalue) torch::nn::utils::clip_grad_value_(model.module->module().parameters(), *o.clipvalue);
  if (!o.clipnorm) return;
  if (!o.clipgroup) {
    torch::nn::utils::clip_grad_norm_(model.module->module().parameters(), o.clipnorm->max, o.clipnorm->order);
    return;
  }
  for (const auto& group : model.optimizer->optimizer().param_groups()) {
    torch::nn::utils::clip_grad_norm_(group.params(), o.clipnorm->max, o.clipnorm->order);
  }
}

// One training step on x and y: the loss, and the output of the last evaluation in *output.
at::Tensor TrainStep(const char* fn, const nn::Model& model, const at::Tensor& x, const at::Tensor& y,
                     at::Tensor* output = nullptr) {
  torch::optim::Optimizer& optimizer = model.optimizer->optimizer();
  return optimizer.step([&] {
    optimizer.zero_grad();
    at::Tensor yhat = Output(fn, model, x);
    at::Tensor loss = Loss(fn, model, yhat, y);
    loss.backward();
    Clip(model);
    if (output != nullptr) *output = yhat.detach();
    return loss;
  });
}

double Backward(const char* fn, const nn::Model& model, const at::Tensor& x, const at::Tensor& y) {
  at::Tensor loss = Loss(fn, model, Output(fn, model, x), y);
  loss.backward();
  return loss.item<double>();
}

at::Tensor TensorOfOperand(const char* fn, const Operand& x) { return Resolve(fn, {&x}).tensors.front(); }

// What a run collects per batch, and the metrics from it.
class Collector {
 public:
  explicit Collector(const nn::RunOptions& options) : options_(options) {}

  void Add(const at::Tensor& loss, const at::Tensor& output, const at::Tensor& target) {
    if (loss.defined()) losses_.push_back(loss.detach());
    outputs_.push_back(output);
    if (target.defined()) targets_.push_back(target);
  }

  RunMetrics Metrics(const char* fn) const {
    RunMetrics r{{}, options_.tensor, options_.dictionary};
    for (nn::Metric metric : options_.metrics) r.values.emplace_back(nn::MetricName(metric), Metric(fn, metric));
    return r;
  }

 private:
  at::Tensor Metric(const char* fn, nn::Metric metric) const {
    switch (metric) {
      case nn::Metric::kLoss: return Losses().mean();
      case nn::Metric::kBatchLoss: return Losses();
      case nn::Metric::kAccuracy: return Matches(fn).to(at::kDouble) * 100.0 / Predicted().size(0);
      case nn::Metric::kMatches: return Matches(fn);
      case nn::Metric::kPredict: return Predicted();
      case nn::Metric::kOutput: return at::cat(outputs_);
      default: Fail("%s: metric `%s needs a recurrent model", fn, nn::MetricName(metric));
    }
  }
  at::Tensor Losses() const { return losses_.empty() ? at::empty({0}) : at::stack(losses_); }
  at::Tensor Predicted() const { return at::cat(outputs_).argmax(1); }
  at::Tensor Matches(const char* fn) const {
    if (targets_.empty()) Fail("%s: no target for accuracy", fn);
    return Predicted().eq(at::cat(targets_).to(outputs_.front().device())).sum();
  }

  const nn::RunOptions& options_;
  std::vector<at::Tensor> losses_, outputs_, targets_;
};

}  // namespace

Result model_forward(Handle m, ForwardMode mode) {
  static constexpr const char* kNames[] = {"forward", "nforward", "eforward", "evaluate"};
  const char* fn = kNames[static_cast<int>(mode)];
  const nn::Model& model = nn::ModelOf(fn, m)->model();
  const bool eval = mode == ForwardMode::kEval || mode == ForwardMode::kEvaluate;
  c10::AutoGradMode grad(mode == ForwardMode::kForward && c10::GradMode::is_enabled());
  const at::Tensor& x = eval ? model.test_data.input : model.train_data.input;
  return nn::EmitOutput(fn, Output(fn, model, x, eval), mode != ForwardMode::kEvaluate);
}

Result model_loss(Handle m, const Operand& yhat, const Operand& y) {
  const nn::Model& model = nn::ModelOf("loss", m)->model();
  const Resolved in = Resolve("loss", {&yhat, &y});
  return nn::EmitOutput("loss", Loss("loss", model, in.tensors[0], in.tensors[1]), in.any_handle);
}

double model_backward(Handle m) {
  const nn::Model& model = nn::ModelOf("backward", m)->model();
  return Backward("backward", model, model.train_data.input, model.train_data.target);
}

double model_backward(Handle m, const Operand& x, const Operand& y) {
  const nn::Model& model = nn::ModelOf("backward", m)->model();
  return Backward("backward", model, TensorOfOperand("backward", x), TensorOfOperand("backward", y));
}

void model_step(Handle m) { nn::ModelOf("step", m)->model().optimizer->optimizer().step(); }

double model_backstep(Handle m) {
  const nn::Model& model = nn::ModelOf("backstep", m)->model();
  return TrainStep("backstep", model, model.train_data.input, model.train_data.target).item<double>();
}

double model_backstep(Handle m, const Operand& x, const Operand& y) {
  const nn::Model& model = nn::ModelOf("backstep", m)->model();
  return TrainStep("backstep", model, TensorOfOperand("backstep", x), TensorOfOperand("backstep", y)).item<double>();
}

RunMetrics run(Handle m) {
  const nn::Model& model = nn::ModelOf("run", m)->model();
  if (!model.train_data.input.defined()) Fail("run: no training data");
  Collector collector(model.train.get());
  model_batchinit(m, DataMode::kTrain);
  while (model_batch(m, DataMode::kTrain)) {
    at::Tensor output;
    const at::Tensor loss = TrainStep("run", model, model.train_data.input, model.train_data.target, &output);
    collector.Add(loss, output, model.train_data.target.clone());
  }
  return collector.Metrics("run");
}

RunMetrics testrun(Handle m) {
  const nn::Model& model = nn::ModelOf("testrun", m)->model();
  if (!model.test_data.input.defined()) Fail("testrun: no test data");
  Collector collector(model.test.get());
  c10::NoGradGuard no_grad;
  model_batchinit(m, DataMode::kTest);
  while (model_batch(m, DataMode::kTest)) {
    const at::Tensor& y = model.test_data.target;
    const at::Tensor output = Output("testrun", model, model.test_data.input, true);
    collector.Add(y.defined() ? Loss("testrun", model, output, y) : at::Tensor(), output,
                  y.defined() ? y.clone() : at::Tensor());
  }
  return collector.Metrics("testrun");
}

}  // namespace kscope
