#include "api/model/model_run.h"

#include <algorithm>
#include <exception>
#include <initializer_list>
#include <vector>

#include <ATen/TensorOperators.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/tensor.h>
#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include "absl/cleanup/cleanup.h"
#include "api/data/batch_window.h"
#include "api/distributed/gradient_reducer.h"
#include "api/distributed/group_object.h"
#include "api/distributed/model_sync.h"
#include "api/model/model_data.h"
#include "api/model/model_object.h"
#include "api/nn/clip.h"
#include "api/nn/forward_io.h"
#include "api/tensor/container.h"
#include "api/tensor/tensor.h"
#include "runtime/errors.h"

namespace kscope {
namespace {

using nn::DataMode;
using nn::DataTensors;
using nn::Metric;

// The module's forward on the input's tensors, then `state` (a recurrent module's hidden state
// carried from the previous batch), in training mode unless `eval`, gradients as the caller's
// grad mode says.
nn::ModuleOutput Output(const char* fn, const nn::Model& model, const DataTensors& x,
                        bool eval = false, const std::vector<at::Tensor>& state = {}) {
  if (!x.defined()) Fail("%s: no %s data", fn, eval ? "test" : "training");
  const nn::ModuleObject& q = *model.module;
  const nn::ModuleKind& kind = *q.spec().kind;
  std::vector<at::Tensor> inputs = x.tensors;
  inputs.insert(inputs.end(), state.begin(), state.end());
  nn::CheckInputCount(fn, kind, inputs.size());
  torch::nn::Module& module = q.module();
  const bool was_training = module.is_training();
  if (eval) module.eval();
  absl::Cleanup restore = [&] {
    if (eval) module.train(was_training);
  };
  return kind.forward(module, inputs);
}

// The parts of a forward's output: the output, then any hidden state (rnn: h; lstm: h, c).
std::vector<at::Tensor> OutputParts(nn::ModuleOutput out) {
  if (auto* t = std::get_if<at::Tensor>(&out)) return {std::move(*t)};
  return std::move(std::get<std::vector<at::Tensor>>(out));
}

// The loss of the output `yhat` against the target's tensors.
at::Tensor Loss(const char* fn, const nn::Model& model, const at::Tensor& yhat,
                absl::Span<const at::Tensor> y) {
  if (y.empty()) Fail("%s: no target defined", fn);
  const nn::ModuleObject& l = *model.loss;
  std::vector<at::Tensor> inputs{yhat};
  for (const at::Tensor& t : y) inputs.push_back(t.to(yhat.device()));
  nn::CheckInputCount(fn, *l.spec().kind, inputs.size());
  return nn::SingleOutput(fn, l.spec().kind->forward(l.module(), inputs));
}

// The rows of a batch: its input's first dimension (1 for a scalar).
std::int64_t Rows(const DataTensors& x) {
  const at::Tensor& first = x.tensors.front();
  return first.dim() > 0 ? first.size(0) : 1;
}

// `local` (this rank's own work in an epoch), its error kept for the epoch's next collective
// under a process group (api/distributed/model_sync.h), rethrown at once otherwise.
template <typename Work>
std::exception_ptr Failure(const nn::Model& model, Work local) {
  try {
    local();
  } catch (...) {
    if (!model.group) throw;
    return std::current_exception();
  }
  return nullptr;
}

// One training step on x and y (null for a rank of a group without a batch in this step): the
// loss of the step's first evaluation of x and y, and the parts of its last evaluation's output
// in *output (detached). Under a process group the gradients are averaged over the ranks before
// clipping, and the optimizer sees the averaged loss; a rank whose evaluation fails joins the
// averaging with its error, and every rank fails there.
at::Tensor TrainStep(const char* fn, const nn::Model& model, const DataTensors* x,
                     const DataTensors* y, const std::vector<at::Tensor>& state = {},
                     std::vector<at::Tensor>* output = nullptr) {
  torch::optim::Optimizer& optimizer = model.optimizer->optimizer();
  // Under a process group the gradients are averaged during backward where the model's reducer
  // serves the optimizer's parameters (api/distributed/gradient_reducer.h), after it otherwise.
  std::vector<at::Tensor> parameters;
  if (model.group) parameters = model.optimizer->parameters();
  distributed::GradientReducer* reducer = nullptr;
  if (model.reducer && model.reducer->Serves(parameters)) reducer = model.reducer.get();
  const std::int64_t rows = x != nullptr && x->defined() ? Rows(*x) : 0;  // none: the step fails
  at::Tensor first;
  optimizer.step([&] {
    optimizer.zero_grad();
    at::Tensor loss;
    if (reducer != nullptr) reducer->Prepare(fn, rows);
    const std::exception_ptr failure = Failure(model, [&] {
      if (x == nullptr) return;
      std::vector<at::Tensor> parts = OutputParts(Output(fn, model, *x, false, state));
      loss = Loss(fn, model, parts.front(), y->tensors);
      loss.backward();
      if (!first.defined()) first = loss;
      if (output != nullptr) {
        output->clear();
        for (const at::Tensor& part : parts) output->push_back(part.detach());
      }
    });
    if (reducer != nullptr) {
      loss = reducer->Finish(fn, loss, failure);
    } else if (model.group) {
      loss = distributed::AverageGradients(fn, *model.group, parameters, loss, rows, failure);
    }
    // `sync`: wait for the device here (reading the loss back blocks until its stream is done;
    // libtorch 1.13's CPU build has no device-generic synchronize).
    if (model.train.get().sync && !loss.is_cpu()) loss.item<double>();
    clip_by_options(model);
    return loss;
  });
  return first;
}

at::Tensor Backward(const char* fn, const nn::Model& model, const DataTensors& x,
                    const DataTensors& y) {
  at::Tensor loss = Loss(fn, model, OutputParts(Output(fn, model, x)).front(), y.tensors);
  loss.backward();
  return loss.detach();
}

bool Wants(const nn::RunOptions& o, std::initializer_list<Metric> any) {
  for (Metric m : o.metrics) {
    if (std::find(any.begin(), any.end(), m) != any.end()) return true;
  }
  return false;
}

// What a run collects per batch (only what its metrics need), and the metrics from it.
class Collector {
 public:
  // `batches`: the number of batches of all tasks, which the `loss` metrics divide by; the group
  // metrics add up over the model's process group (none: this process alone).
  Collector(const char* fn, const nn::RunOptions& options, std::int64_t batches,
            const nn::Model& model)
      : fn_(fn),
        options_(options),
        batches_(batches),
        model_(model),
        losses_wanted_(Wants(options, {Metric::kLoss, Metric::kBatchLoss, Metric::kGroupLoss})),
        matches_wanted_(Wants(options, {Metric::kAccuracy, Metric::kMatches, Metric::kGroupAccuracy,
                                        Metric::kGroupMatches})),
        predict_wanted_(Wants(options, {Metric::kPredict})),
        output_wanted_(Wants(options, {Metric::kOutput})),
        hidden_wanted_(Wants(options, {Metric::kHidden})),
        cell_wanted_(Wants(options, {Metric::kHiddenCell})) {}

  bool wants_loss() const { return losses_wanted_; }

  void Add(const at::Tensor& loss, const std::vector<at::Tensor>& output,
           const DataTensors& target) {
    if (losses_wanted_) losses_.push_back(loss.detach());
    const at::Tensor& y = output.front();
    if (predict_wanted_ || matches_wanted_) {
      at::Tensor predicted = y.argmax(-1);
      if (matches_wanted_) AddMatches(predicted, target);
      if (predict_wanted_) predicted_.push_back(std::move(predicted));
    }
    if (output_wanted_) outputs_.push_back(y.clone());
    if (hidden_wanted_) hidden_.push_back(Part(output, 1, Metric::kHidden));
    if (cell_wanted_) cells_.push_back(Part(output, 2, Metric::kHiddenCell));
  }

  // The metrics; under a process group a collective (every rank calls it once per epoch), where
  // `failure`, this rank's error in the epoch, makes every rank fail.
  RunMetrics Metrics(const std::exception_ptr& failure = nullptr) const {
    // Summed over the ranks: the batch losses, the matched and the total counts.
    at::Tensor totals = at::tensor({Losses().sum().item<double>(), static_cast<double>(Matched()),
                                    static_cast<double>(total_)});
    if (model_.group)
      totals = distributed::SumOverRanks(fn_, *model_.group, model_, totals, failure);
    RunMetrics r{{}, options_.tensor, options_.dictionary};
    for (Metric metric : options_.metrics)
      r.values.emplace_back(nn::MetricName(metric), Value(metric, totals));
    return r;
  }

 private:
  at::Tensor Part(const std::vector<at::Tensor>& output, std::size_t i, Metric metric) const {
    if (output.size() <= i)
      Fail("%s: metric `%s needs a recurrent model", fn_, nn::MetricName(metric));
    return output[i].clone();
  }

  void AddMatches(const at::Tensor& predicted, const DataTensors& target) {
    if (!target.defined()) Fail("%s: no target for accuracy", fn_);
    const at::Tensor& y = target.tensors.front();
    matched_.push_back(
        predicted.eq(y.to(predicted.device())).sum());  // on the device: no sync per batch
    total_ += y.numel();
  }

  at::Tensor Value(Metric metric, const at::Tensor& totals) const {
    switch (metric) {
      case Metric::kLoss: return MeanLoss(Losses().sum().item<double>());
      case Metric::kBatchLoss: return Losses();
      case Metric::kAccuracy: return Accuracy(Matched(), total_);
      case Metric::kMatches: return at::tensor(std::vector<std::int64_t>{Matched(), total_});
      case Metric::kGroupLoss: return MeanLoss(totals[0].item<double>());
      case Metric::kGroupAccuracy:
        return Accuracy(totals[1].item<double>(), totals[2].item<double>());
      case Metric::kGroupMatches: return totals.narrow(0, 1, 2).to(at::kLong);
      case Metric::kPredict: return Cat(predicted_);
      case Metric::kOutput: return Cat(outputs_);
      case Metric::kHidden: return Cat(hidden_);
      case Metric::kHiddenCell: return Cat(cells_);
    }
    Fail("%s: unknown metric", fn_);
  }

  // A loss sum over the batches of all tasks: a double, as ktorch's.
  at::Tensor MeanLoss(double sum) const {
    return at::scalar_tensor(sum / static_cast<double>(std::max<std::int64_t>(batches_, 1)),
                             at::kDouble);
  }
  // A percentage in float (k real), computed as ktorch does: the float quotient times 100.
  static at::Tensor Accuracy(double matched, double total) {
    const float share = total == 0 ? 0.0f : static_cast<float>(matched) / static_cast<float>(total);
    return at::scalar_tensor(100.0f * share, at::kFloat);
  }
  std::int64_t Matched() const {
    return matched_.empty() ? 0 : at::stack(matched_).sum().item<std::int64_t>();
  }
  at::Tensor Losses() const { return losses_.empty() ? at::empty({0}) : at::stack(losses_); }
  static at::Tensor Cat(const std::vector<at::Tensor>& parts) {
    return parts.empty() ? at::empty({0}) : at::cat(parts);
  }

  const char* fn_;
  const nn::RunOptions& options_;
  const std::int64_t batches_;
  const nn::Model& model_;
  const bool losses_wanted_, matches_wanted_, predict_wanted_, output_wanted_, hidden_wanted_,
      cell_wanted_;
  std::vector<at::Tensor> losses_, predicted_, outputs_, hidden_, cells_;
  std::vector<at::Tensor> matched_;  // per batch: outputs whose class is the target's
  std::int64_t total_ = 0;
};

// The number of batches of every task in an epoch of the data (at full size).
std::int64_t AllBatches(Handle m, DataMode mode, const nn::RunOptions& o) {
  return BatchCount(model_datasize(m, mode), o.batchsize, o.droplast);
}

// The hidden state to feed with the next batch under the `hidden` option: the output's parts
// after the first, detached.
void CarryHidden(const nn::RunOptions& o, const std::vector<at::Tensor>& output,
                 nn::ModelData& data) {
  if (!o.hidden) return;
  data.hidden.assign(output.begin() + 1, output.end());
  for (at::Tensor& h : data.hidden) h = h.detach();
}

// body(), an epoch of run or testrun: on an error the data is restored to full size and no
// epoch is left under way.
template <typename Body>
RunMetrics EndingTheEpochOnError(Handle m, DataMode mode, Body body) {
  try {
    return body();
  } catch (...) {
    model_restore(m, mode);
    throw;
  }
}

}  // namespace

Result model_forward(Handle m, ForwardMode mode) {
  static constexpr const char* kNames[] = {"forward", "nforward", "eforward", "evaluate"};
  const char* fn = kNames[static_cast<int>(mode)];
  const nn::Model& model = nn::ModelOf(fn, m)->model();
  const bool eval = mode == ForwardMode::kEval || mode == ForwardMode::kEvaluate;
  c10::AutoGradMode grad(mode == ForwardMode::kForward && c10::GradMode::is_enabled());
  const DataTensors& x = eval ? model.test_data.input : model.train_data.input;
  return nn::EmitOutput(fn, Output(fn, model, x, eval), mode != ForwardMode::kEvaluate);
}

Result model_loss(Handle m, const Operand& yhat, const Operand& y) {
  const nn::Model& model = nn::ModelOf("loss", m)->model();
  const Resolved in = Resolve("loss", {&yhat, &y});
  return nn::EmitOutput("loss", Loss("loss", model, in.tensors[0], {in.tensors[1]}), in.any_handle);
}

at::Tensor model_backward(Handle m) {
  const nn::Model& model = nn::ModelOf("backward", m)->model();
  return Backward("backward", model, model.train_data.input, model.train_data.target);
}

at::Tensor model_backward(Handle m, const DataParts& x, const DataParts& y) {
  const nn::Model& model = nn::ModelOf("backward", m)->model();
  return Backward("backward", model, model_data_tensors("backward", m, x),
                  model_data_tensors("backward", m, y));
}

void model_step(Handle m) { nn::ModelOf("step", m)->model().optimizer->optimizer().step(); }

at::Tensor model_backstep(Handle m) {
  const nn::Model& model = nn::ModelOf("backstep", m)->model();
  return TrainStep("backstep", model, &model.train_data.input, &model.train_data.target).detach();
}

at::Tensor model_backstep(Handle m, const DataParts& x, const DataParts& y) {
  const nn::Model& model = nn::ModelOf("backstep", m)->model();
  const DataTensors input = model_data_tensors("backstep", m, x),
                    target = model_data_tensors("backstep", m, y);
  return TrainStep("backstep", model, &input, &target).detach();
}

RunMetrics run(Handle m) {
  nn::Model& model = nn::ModelOf("run", m)->model();
  if (!model.train_data.input.defined()) Fail("run: no training data");
  const nn::RunOptions& o = model.train.get();
  return EndingTheEpochOnError(m, DataMode::kTrain, [&] {
    model_batchinit(m, DataMode::kTrain);
    const std::int64_t batches = AllBatches(m, DataMode::kTrain, o);
    if (model.group) distributed::CheckEpoch("run", *model.group, model, o, batches);
    Collector collector("run", o, batches, model);
    std::vector<at::Tensor> output;
    std::int64_t steps = 0;
    for (; model_batch(m, DataMode::kTrain); ++steps) {
      nn::ModelData& data = model.train_data;
      const at::Tensor loss =
          TrainStep("run", model, &data.input, &data.target, data.hidden, &output);
      collector.Add(loss, output, data.target);
      CarryHidden(o, output, data);
    }
    // Under a group every rank takes as many steps as task 0, which has the most batches.
    if (model.group) {
      for (const std::int64_t task0 = (batches + o.tasks - 1) / o.tasks; steps < task0; ++steps) {
        TrainStep("run", model, nullptr, nullptr);
      }
    }
    return collector.Metrics();
  });
}

RunMetrics testrun(Handle m) {
  nn::Model& model = nn::ModelOf("testrun", m)->model();
  if (!model.test_data.input.defined()) Fail("testrun: no test data");
  const nn::RunOptions& o = model.test.get();
  c10::NoGradGuard no_grad;
  return EndingTheEpochOnError(m, DataMode::kTest, [&] {
    model_batchinit(m, DataMode::kTest);
    const std::int64_t batches = AllBatches(m, DataMode::kTest, o);
    if (model.group) distributed::CheckEpoch("testrun", *model.group, model, o, batches);
    Collector collector("testrun", o, batches, model);
    // Under a group a rank's error ends its batches; the metrics' collective carries it.
    const std::exception_ptr failure = Failure(model, [&] {
      while (model_batch(m, DataMode::kTest)) {
        nn::ModelData& data = model.test_data;
        const std::vector<at::Tensor> output =
            OutputParts(Output("testrun", model, data.input, true, data.hidden));
        const at::Tensor loss = collector.wants_loss()
                                    ? Loss("testrun", model, output.front(), data.target.tensors)
                                    : at::Tensor();
        collector.Add(loss, output, data.target);
        CarryHidden(o, output, data);
      }
    });
    return collector.Metrics(failure);
  });
}

Handle metrics_handle(const RunMetrics& metrics) {
  if (metrics.dictionary) {
    NamedOperands items;
    for (const auto& [name, value] : metrics.values) items.emplace_back(name, value);
    return dict(items);
  }
  if (metrics.values.size() == 1) return tensor(metrics.values.front().second);
  std::vector<Operand> items;
  for (const auto& value : metrics.values) items.emplace_back(value.second);
  return vector(items);
}

}  // namespace kscope
