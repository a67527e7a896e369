#include "api/distributed/model_sync.h"

#include <exception>
#include <functional>
#include <string>
#include <utility>

#include <ATen/core/grad_mode.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/div.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>
#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/distributed/buckets.h"
#include "api/nn/optimizer_kind.h"
#include "runtime/errors.h"
#include "runtime/names.h"

namespace kscope::distributed {
namespace {

// Where g's collectives take the model's numbers from the host (GroupObject::HostNumbersDevice).
c10::Device HostNumbersDevice(const char* fn, const GroupObject& g, const nn::Model& model) {
  return g.HostNumbersDevice(fn, model.device().value_or(c10::kCPU));
}

// Each rank's `values` (a row of longs, the same length on every rank), one row per rank, on
// the host; sent from `device` (GroupObject::HostNumbersDevice).
at::Tensor Gathered(const char* fn, const GroupObject& g, const std::vector<std::int64_t>& values,
                    c10::Device device) {
  return at::stack(g.AllGather(fn, at::tensor(values).to(device))).cpu();
}

// What must match across ranks for their tensors to be broadcast into each other: each
// tensor's dtype and sizes, in order, summed up as one number.
void Describe(const at::Tensor& t, std::string& text) {
  absl::StrAppend(&text, DtypeName(t.scalar_type()), "[", absl::StrJoin(t.sizes(), ","), "];");
}
std::int64_t Fingerprint(const std::string& text) {
  return static_cast<std::int64_t>(std::hash<std::string>{}(text));
}

}  // namespace

void RaiseFailures(const char* fn, const GroupObject& g, const at::Tensor& flags,
                   const std::exception_ptr& failure) {
  if (failure) std::rethrow_exception(failure);
  const at::Tensor failed = flags.nonzero();
  if (failed.size(0) > 0) {
    Fail("%s: rank %d of %d failed in this epoch (its own error says why)", fn,
         failed[0][0].item<std::int64_t>(), g.world());
  }
}

void BroadcastModel(const char* fn, const GroupObject& g, nn::Model& model) {
  const c10::Device device = HostNumbersDevice(fn, g, model);
  torch::nn::Module& module = model.module->module();
  std::vector<at::Tensor> tensors = module.parameters();
  for (const at::Tensor& b : module.buffers()) tensors.push_back(b);
  std::string module_text;
  for (const at::Tensor& t : tensors) Describe(t, module_text);
  const std::size_t module_tensors = tensors.size();

  nn::OptimizerObject& o = *model.optimizer;
  const std::vector<at::Tensor> parameters = o.parameters();
  std::vector<OptimizerBuffers> saved = o.SavedStates();
  std::vector<std::string> names;  // for errors
  std::string state_text;
  for (std::size_t i = 0; i < saved.size(); ++i) {
    names.push_back(absl::StrCat("parameter ", i));
    absl::StrAppend(&state_text, i, ":");
    for (const auto& [name, buffer] : saved[i]) {
      absl::StrAppend(&state_text, name, "=");
      Describe(buffer, state_text);
      tensors.push_back(buffer);
    }
  }

  const at::Tensor all =
      Gathered(fn, g, {Fingerprint(module_text), Fingerprint(state_text)}, device);
  for (int r = 1; r < g.world(); ++r) {
    if (all[r][0].item<std::int64_t>() != all[0][0].item<std::int64_t>()) {
      Fail("%s: rank %d's module differs from rank 0's (parameter and buffer sizes and types)", fn,
           r);
    }
    if (all[r][1].item<std::int64_t>() != all[0][1].item<std::int64_t>()) {
      Fail(
          "%s: rank %d's optimizer state differs from rank 0's (which parameters have state, the "
          "buffers' "
          "sizes): bind the model before its first step, or give every rank the same state",
          fn, r);
    }
  }

  Buckets buckets(tensors);
  for (at::Tensor& flat : buckets.flat()) g.Broadcast(fn, flat, 0);
  std::size_t next = module_tensors;
  for (OptimizerBuffers& buffers : saved) {
    for (auto& [name, buffer] : buffers) buffer = buckets.Unpacked(next++);
  }
  auto states = nn::LoadStates(*o.spec().kind, names, parameters, saved);
  // Every broadcast succeeded and rank 0's state loads: now the model changes.
  buckets.CopyBack(std::vector<at::Tensor>(tensors.begin(), tensors.begin() + module_tensors));
  o.SetStates(parameters, std::move(states));
}

std::int64_t StepNumberCount(const GroupObject& g) { return 2 + g.world(); }

void WriteStepNumbers(const at::Tensor& numbers, const at::Tensor& loss) {
  numbers.zero_();
  numbers[0].copy_(loss.reshape({}));
  numbers[1].fill_(1);
}

void FlagStepFailure(const GroupObject& g, const at::Tensor& numbers) {
  numbers[2 + g.rank()].fill_(1);
}

at::Tensor SummedRows(const char* fn, const GroupObject& g, const at::Tensor& numbers,
                      const std::exception_ptr& failure) {
  RaiseFailures(fn, g, numbers.narrow(0, 2, g.world()), failure);
  return numbers[1];
}

void WriteAveragedGradient(const at::Tensor& parameter, const at::Tensor& summed,
                           const at::Tensor& rows) {
  at::Tensor& grad = parameter.mutable_grad();
  if (grad.defined() && grad.sizes() == summed.sizes()) {
    at::div_out(grad, summed, rows);
  } else {
    grad = summed.div(rows);
  }
}

at::Tensor AverageGradients(const char* fn, const GroupObject& g,
                            const std::vector<at::Tensor>& parameters, const at::Tensor& loss,
                            std::int64_t rows, const std::exception_ptr& failure) {
  if (parameters.empty()) Fail("%s: the optimizer has no parameters to average gradients of", fn);
  at::NoGradGuard no_grad;
  const c10::TensorOptions like = parameters.front().options();
  g.HostNumbersDevice(fn, like.device());  // the group can reduce tensors there
  const bool counts = rows > 0 && !failure;
  std::vector<at::Tensor> tensors;
  for (const at::Tensor& p : parameters) {
    tensors.push_back(counts && p.grad().defined() ? p.grad() : at::zeros_like(p));
  }
  const std::size_t n = parameters.size();
  tensors.push_back(at::empty({StepNumberCount(g)}, like));
  WriteStepNumbers(tensors.back(), counts ? loss.detach().to(like) : at::zeros({}, like));
  Buckets buckets(tensors);
  for (at::Tensor& flat : buckets.flat()) flat.mul_(static_cast<double>(counts ? rows : 0));
  const at::Tensor numbers = buckets.Unpacked(n);
  if (failure) FlagStepFailure(g, numbers);
  Joining(failure, [&] {
    for (at::Tensor& flat : buckets.flat()) g.AllReduce(fn, flat, Reduction::kSum);
  });
  const at::Tensor total = SummedRows(fn, g, numbers, failure);
  for (std::size_t i = 0; i < n; ++i)
    WriteAveragedGradient(parameters[i], buckets.Unpacked(i), total);
  return numbers[0].div(total);
}

void CheckEpoch(const char* fn, const GroupObject& g, const nn::Model& model,
                const nn::RunOptions& options, std::int64_t batches) {
  const at::Tensor all =
      Gathered(fn, g, {batches, options.task, options.tasks}, HostNumbersDevice(fn, g, model));
  const std::int64_t first = all[0][0].item<std::int64_t>();
  for (int r = 0; r < g.world(); ++r) {
    const std::int64_t task = all[r][1].item<std::int64_t>(),
                       tasks = all[r][2].item<std::int64_t>();
    if (task != r || tasks != g.world()) {
      Fail("%s: rank %d is task %d of %d, but a model bound to a group of %d must be task %d of %d",
           fn, r, task, tasks, g.world(), r, g.world());
    }
    const std::int64_t mine = all[r][0].item<std::int64_t>();
    if (mine != first) {
      Fail(
          "%s: rank %d has %d batches in all, rank 0 has %d: give every rank the same data and "
          "batchsize",
          fn, r, mine, first);
    }
  }
}

at::Tensor SumOverRanks(const char* fn, const GroupObject& g, const nn::Model& model,
                        const at::Tensor& values, const std::exception_ptr& failure) {
  const c10::Device device = HostNumbersDevice(fn, g, model);
  const std::int64_t n = values.numel();
  at::Tensor sum =
      at::cat({values.to(at::kDouble).cpu().reshape(-1), at::zeros({g.world()}, at::kDouble)});
  if (failure) sum[n + g.rank()].fill_(1);
  sum = sum.to(device);
  Joining(failure, [&] { g.AllReduce(fn, sum, Reduction::kSum); });
  sum = sum.cpu();
  RaiseFailures(fn, g, sum.narrow(0, n, g.world()), failure);
  return sum.narrow(0, 0, n);
}

}  // namespace kscope::distributed
