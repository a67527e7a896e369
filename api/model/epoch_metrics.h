// EpochMetrics — what an epoch of run or testrun collects per batch (only what its metrics need)
// and the metrics made from it when the epoch ends (api/model/model_run.h lists the metrics).
//
// Per batch nothing is read from the device: losses and match counts stay there until
// Metrics(), which reads their sums back in one copy; the metrics that are tensors (batchloss,
// predict, output, hidden, hiddencell) stay on the device. Errors: kscope::Error naming the
// function ("run: no target for accuracy", "run: metric `hidden needs a recurrent model").
// Holds references to the options and the model it was made with, which must outlive it.
// Thread-compatible: one epoch, one thread.
#ifndef KSCOPE_API_MODEL_EPOCH_METRICS_H_
#define KSCOPE_API_MODEL_EPOCH_METRICS_H_

#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

#include "api/model/model_object.h"
#include "api/model/model_options.h"

namespace kscope {

// The metrics of a run, named, in the order of the options; and how to return them.
struct RunMetrics {
  std::vector<std::pair<std::string, at::Tensor>> values;
  bool tensor = false;
  bool dictionary = false;
};

class EpochMetrics {
 public:
  // `batches`: the number of batches of all tasks, which the `loss` metrics divide by; the group
  // metrics add up over the model's process group (none: this process alone).
  EpochMetrics(const char* fn, const nn::RunOptions& options, std::int64_t batches,
               const nn::Model& model);

  bool wants_loss() const { return losses_wanted_; }

  // One batch's loss (undefined when no metric wants it), output parts and target.
  void Add(const at::Tensor& loss, const std::vector<at::Tensor>& output,
           const nn::DataTensors& target);

  // The metrics; under a process group a collective (every rank calls it once per epoch), where
  // `failure`, this rank's error in the epoch, makes every rank fail.
  RunMetrics Metrics(const std::exception_ptr& failure = nullptr) const;

 private:
  // The sum of the batch losses and the matched and total counts.
  struct Sums {
    double loss, matched, total;
  };

  at::Tensor Part(const std::vector<at::Tensor>& output, std::size_t i, nn::Metric metric) const;
  void AddMatches(const at::Tensor& predicted, const nn::DataTensors& target);
  // `losses`: the batch losses, stacked (Losses()).
  at::Tensor Value(nn::Metric metric, const at::Tensor& losses, const Sums& own,
                   const Sums& all) const;
  // A loss sum over the batches of all tasks: a double, as ktorch's.
  at::Tensor MeanLoss(double sum) const;
  // This process's sums, read from the device in one copy (`losses`: as for Value).
  Sums Read(const at::Tensor& losses) const;
  at::Tensor Losses() const;

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

}  // namespace kscope

#endif  // KSCOPE_API_MODEL_EPOCH_METRICS_H_
