#include "api/model/model_run.h"

#include <exception>
#include <optional>
#include <vector>

#include <ATen/TensorOperators.h>
#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include "absl/cleanup/cleanup.h"
#include "api/data/batch_window.h"
#include "api/distributed/gradient_reducer.h"
#include "api/distributed/group_object.h"
#include "api/distributed/model_sync.h"
#include "api/model/batch_feed.h"
#include "api/model/epoch_metrics.h"
#include "api/model/graphed_steps.h"
#include "api/model/model_data.h"
#include "api/model/model_object.h"
#include "api/nn/clip.h"
#include "api/nn/forward_io.h"
#include "api/tensor/container.h"
#include "api/tensor/tensor.h"
#include "runtime/autocast_guard.h"
#include "runtime/errors.h"
#include "runtime/out_of_memory.h"

namespace kscope {
namespace {

using nn::DataMode;
using nn::DataTensors;

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

// `evaluate` (forward and loss) under autocast for the model's device when `amp` asks for mixed
// precision; its result.
template <typename Evaluate>
at::Tensor UnderAmp(const char* fn, const nn::Model& model, std::optional<c10::ScalarType> amp,
                    Evaluate evaluate) {
  if (!amp) return evaluate();
  const c10::DeviceType type = model.device().value_or(c10::Device(c10::kCPU)).type();
  if (!AutocastGuard::Supported(type, *amp)) {
    Fail(
        "%s: amp `%s has no autocast for a model on the %s with this libtorch (cuda: bf16 and "
        "fp16; cpu: bf16, and fp16 from libtorch 2)",
        fn, *amp == at::kHalf ? "fp16" : "bf16", c10::DeviceTypeName(type, /*lower_case=*/true));
  }
  AutocastGuard autocast(type, *amp);
  return evaluate();
}

// One training step on x and y (null for a rank of a group without a batch in this step): the
// loss of the step's first evaluation of x and y, and the parts of its last evaluation's output
// in *output (detached). Under a process group the gradients are averaged over the ranks before
// clipping, and the optimizer sees the averaged loss; a rank whose evaluation fails joins the
// averaging with its error, and every rank fails there. Under the `amp option forward and loss
// run under autocast; with fp16 the loss is scaled for backward and the gradients unscaled
// before clipping, a step with an inf or a nan among them skipped (its gradients undefined, so
// the optimizer passes over every parameter) and the scale updated (api/model/loss_scale.h).
at::Tensor TrainStep(const char* fn, nn::Model& model, const DataTensors* x, const DataTensors* y,
                     const std::vector<at::Tensor>& state = {},
                     std::vector<at::Tensor>* output = nullptr) {
  torch::optim::Optimizer& optimizer = model.optimizer->optimizer();
  const nn::RunOptions& o = model.train.get();
  const bool scaled = o.amp == at::kHalf;
  if (scaled && model.optimizer->spec().kind->step_refusal != nullptr)
    Fail("%s: amp fp16 scales the loss of one evaluation per step, %s evaluates several", fn,
         model.optimizer->spec().kind->name);
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
      std::vector<at::Tensor> parts;
      loss = UnderAmp(fn, model, o.amp, [&] {
        parts = OutputParts(Output(fn, model, *x, false, state));
        return Loss(fn, model, parts.front(), y->tensors);
      });
      (scaled ? loss * model.loss_scale.scale : loss).backward();
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
    if (o.sync && !loss.is_cpu()) loss.item<double>();
    if (scaled) {
      const std::vector<at::Tensor> all = model.optimizer->parameters();
      const bool finite = model.loss_scale.Unscale(all);
      model.loss_scale.Update(finite);
      if (!finite) {
        for (const at::Tensor& p : all) p.mutable_grad() = at::Tensor();
        return loss;
      }
    }
    clip_by_options(model);
    return loss;
  });
  return first;
}

at::Tensor Backward(const char* fn, const nn::Model& model, const DataTensors& x,
                    const DataTensors& y) {
  at::Tensor loss = UnderAmp(fn, model, model.train.get().amp, [&] {
    return Loss(fn, model, OutputParts(Output(fn, model, x)).front(), y.tensors);
  });
  loss.backward();
  return loss.detach();
}

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
// epoch is left under way; a failed allocation is named as fn's (kscope::OutOfMemory).
template <typename Body>
RunMetrics EndingTheEpochOnError(const char* fn, Handle m, DataMode mode, Body body) {
  try {
    return NamingOutOfMemory(fn, body);
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
  return NamingOutOfMemory(fn, [&] {
    DataTensors moved;
    const DataTensors& x =
        OnDevice(eval ? model.test_data.input : model.train_data.input, model.device(), &moved);
    return nn::EmitOutput(fn, Output(fn, model, x, eval), mode != ForwardMode::kEvaluate);
  });
}

Result model_loss(Handle m, const Operand& yhat, const Operand& y) {
  const nn::Model& model = nn::ModelOf("loss", m)->model();
  const Resolved in = Resolve("loss", {&yhat, &y});
  return nn::EmitOutput("loss", Loss("loss", model, in.tensors[0], {in.tensors[1]}), in.any_handle);
}

at::Tensor model_backward(Handle m) {
  const nn::Model& model = nn::ModelOf("backward", m)->model();
  return NamingOutOfMemory("backward", [&] {
    DataTensors moved;
    return Backward("backward", model, OnDevice(model.train_data.input, model.device(), &moved),
                    model.train_data.target);
  });
}

at::Tensor model_backward(Handle m, const DataParts& x, const DataParts& y) {
  const nn::Model& model = nn::ModelOf("backward", m)->model();
  return NamingOutOfMemory("backward", [&] {
    const DataTensors given = model_data_tensors("backward", m, x);
    DataTensors moved;
    return Backward("backward", model, OnDevice(given, model.device(), &moved),
                    model_data_tensors("backward", m, y));
  });
}

void model_step(Handle m) {
  nn::Model& model = nn::ModelOf("step", m)->model();
  NamingOutOfMemory("step", [&] { model.optimizer->optimizer().step(); });
}

at::Tensor model_backstep(Handle m) {
  nn::Model& model = nn::ModelOf("backstep", m)->model();
  return NamingOutOfMemory("backstep", [&] {
    DataTensors moved;
    return TrainStep("backstep", model, &OnDevice(model.train_data.input, model.device(), &moved),
                     &model.train_data.target)
        .detach();
  });
}

at::Tensor model_backstep(Handle m, const DataParts& x, const DataParts& y) {
  nn::Model& model = nn::ModelOf("backstep", m)->model();
  return NamingOutOfMemory("backstep", [&] {
    const DataTensors given = model_data_tensors("backstep", m, x),
                      target = model_data_tensors("backstep", m, y);
    DataTensors moved;
    return TrainStep("backstep", model, &OnDevice(given, model.device(), &moved), &target).detach();
  });
}

RunMetrics run(Handle m) {
  nn::Model& model = nn::ModelOf("run", m)->model();
  if (!model.train_data.input.defined()) Fail("run: no training data");
  const nn::RunOptions& o = model.train.get();
  return EndingTheEpochOnError("run", m, DataMode::kTrain, [&] {
    // Under `graph (checked before the epoch starts), full-size batches replay a captured step
    // (api/model/graphed_steps.h).
    std::optional<GraphedSteps> graphed;
    if (o.graph) {
      graphed.emplace(
          "run", model, o,
          [&](const DataTensors& x, const DataTensors& y, std::vector<at::Tensor>* out) {
            return TrainStep("run", model, &x, &y, {}, out);
          });
    }
    model_batchinit(m, DataMode::kTrain);
    const std::int64_t batches = AllBatches(m, DataMode::kTrain, o);
    if (model.group) distributed::CheckEpoch("run", *model.group, model, o, batches);
    EpochMetrics collector("run", o, batches, model);
    std::vector<at::Tensor> output;
    std::int64_t steps = 0;
    BatchFeed feed(m, model, DataMode::kTrain);
    for (; std::optional<BatchFeed::Batch> batch = feed.Next(); ++steps) {
      nn::ModelData& data = model.train_data;
      const at::Tensor loss =
          graphed ? graphed->Take(batch->input, batch->target, &output)
                  : TrainStep("run", model, &batch->input, &batch->target, data.hidden, &output);
      collector.Add(loss, output, batch->target);
      CarryHidden(o, output, data);
    }
    graphed.reset();  // the graph's work joins the caller's stream before the metrics' read
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
  return EndingTheEpochOnError("testrun", m, DataMode::kTest, [&] {
    model_batchinit(m, DataMode::kTest);
    const std::int64_t batches = AllBatches(m, DataMode::kTest, o);
    if (model.group) distributed::CheckEpoch("testrun", *model.group, model, o, batches);
    EpochMetrics collector("testrun", o, batches, model);
    // Under a group a rank's error ends its batches; the metrics' collective carries it.
    const std::exception_ptr failure = Failure(model, [&] {
      BatchFeed feed(m, model, DataMode::kTest);
      while (std::optional<BatchFeed::Batch> batch = feed.Next()) {
        nn::ModelData& data = model.test_data;
        std::vector<at::Tensor> output;
        const at::Tensor loss = UnderAmp("testrun", model, o.amp, [&] {
          output = OutputParts(Output("testrun", model, batch->input, true, data.hidden));
          return collector.wants_loss()
                     ? Loss("testrun", model, output.front(), batch->target.tensors)
                     : at::Tensor();
        });
        collector.Add(loss, output, batch->target);
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
