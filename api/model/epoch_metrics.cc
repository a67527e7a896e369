#include "api/model/epoch_metrics.h"

#include <algorithm>
#include <initializer_list>

#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/tensor.h>

#include "api/distributed/model_sync.h"
#include "runtime/errors.h"
#include "runtime/torch_compat.h"

namespace kscope {
namespace {

using nn::DataTensors;
using nn::Metric;

bool Wants(const nn::RunOptions& o, std::initializer_list<Metric> any) {
  for (Metric m : o.metrics) {
    if (std::find(any.begin(), any.end(), m) != any.end()) return true;
  }
  return false;
}

// A percentage in float (k real), computed as ktorch does: the float quotient times 100.
at::Tensor Accuracy(double matched, double total) {
  const float share = total == 0 ? 0.0f : static_cast<float>(matched) / static_cast<float>(total);
  return at::scalar_tensor(100.0f * share, at::kFloat);
}

at::Tensor Cat(const std::vector<at::Tensor>& parts) {
  return parts.empty() ? at::empty({0}) : at::cat(parts);
}

}  // namespace

EpochMetrics::EpochMetrics(const char* fn, const nn::RunOptions& options, std::int64_t batches,
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

void EpochMetrics::Add(const at::Tensor& loss, const std::vector<at::Tensor>& output,
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

RunMetrics EpochMetrics::Metrics(const std::exception_ptr& failure) const {
  const at::Tensor losses = Losses();
  const Sums own = Read(losses);
  // Summed over the ranks: the batch losses, the matched and the total counts.
  Sums all = own;
  if (model_.group) {
    const at::Tensor sums = distributed::SumOverRanks(
        fn_, *model_.group, model_, at::tensor({own.loss, own.matched, own.total}), failure);
    all = Sums{sums[0].item<double>(), sums[1].item<double>(), sums[2].item<double>()};
  }
  RunMetrics r{{}, options_.tensor, options_.dictionary};
  for (Metric metric : options_.metrics)
    r.values.emplace_back(nn::MetricName(metric), Value(metric, losses, own, all));
  return r;
}

at::Tensor EpochMetrics::Part(const std::vector<at::Tensor>& output, std::size_t i,
                              Metric metric) const {
  if (output.size() <= i)
    Fail("%s: metric `%s needs a recurrent model", fn_, nn::MetricName(metric));
  return output[i].clone();
}

void EpochMetrics::AddMatches(const at::Tensor& predicted, const DataTensors& target) {
  if (!target.defined()) Fail("%s: no target for accuracy", fn_);
  const at::Tensor& y = target.tensors.front();
  matched_.push_back(predicted.eq(y.to(predicted.device())).sum());  // stays on the device
  total_ += y.numel();
}

at::Tensor EpochMetrics::Value(Metric metric, const at::Tensor& losses, const Sums& own,
                               const Sums& all) const {
  switch (metric) {
    case Metric::kLoss: return MeanLoss(own.loss);
    case Metric::kBatchLoss: return losses;
    case Metric::kAccuracy: return Accuracy(own.matched, own.total);
    case Metric::kMatches:
      return at::tensor(std::vector<std::int64_t>{static_cast<std::int64_t>(own.matched), total_});
    case Metric::kGroupLoss: return MeanLoss(all.loss);
    case Metric::kGroupAccuracy: return Accuracy(all.matched, all.total);
    case Metric::kGroupMatches:
      return at::tensor(std::vector<std::int64_t>{static_cast<std::int64_t>(all.matched),
                                                  static_cast<std::int64_t>(all.total)});
    case Metric::kPredict: return Cat(predicted_);
    case Metric::kOutput: return Cat(outputs_);
    case Metric::kHidden: return Cat(hidden_);
    case Metric::kHiddenCell: return Cat(cells_);
  }
  Fail("%s: unknown metric", fn_);
}

at::Tensor EpochMetrics::MeanLoss(double sum) const {
  return at::scalar_tensor(sum / static_cast<double>(std::max<std::int64_t>(batches_, 1)),
                           kFollowsKtorch23 ? at::kFloat : at::kDouble);
}

// The epoch's only read from the device.
EpochMetrics::Sums EpochMetrics::Read(const at::Tensor& losses) const {
  std::vector<at::Tensor> sums;  // on the device
  if (!losses_.empty()) sums.push_back(losses.sum().to(at::kDouble));
  if (!matched_.empty()) sums.push_back(at::stack(matched_).sum().to(at::kDouble));
  Sums own{0, 0, static_cast<double>(total_)};
  if (sums.empty()) return own;
  const at::Tensor host = at::stack(sums).to(at::kCPU).contiguous();
  const double* next = host.data_ptr<double>();
  if (!losses_.empty()) own.loss = *next++;
  if (!matched_.empty()) own.matched = *next;
  return own;
}

at::Tensor EpochMetrics::Losses() const {
  return losses_.empty() ? at::empty({0}) : at::stack(losses_);
}

}  // namespace kscope
