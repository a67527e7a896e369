// ModelOptions — a model's training or testing options (ktorch's `train m` and `test m`), with
// ktorch's names, defaults and checks, in one table (model_options.cc):
//
//   batchsize   long >= 0        32 train, 100 test: rows per batch
//   task        long >= 0        this task's index, below `tasks`
//   tasks       long >= 1        number of tasks; more than one needs a non-zero batchsize
//   droplast    boolean          drop the final partial batch
//   hidden      boolean          feed a recurrent module's hidden state to the next batch
//   shuffle     boolean          train only: reshuffle the training data every epoch
//   shufflecuda boolean          train only: make the shared shuffle generator on CUDA
//   shuffleseed long             train only: seed of the shared shuffle generator (tasks > 1)
//   sync        boolean          train only: synchronize the device after each backward
//   clipgroup   boolean          train only: clip norms per optimizer parameter group
//   clipnorm    1-2 numbers|null train only: max norm and norm order (2 if not given, 0w for
//                                the infinity norm); setting it clears clipvalue
//   clipvalue   number|null      train only: clamp gradients to +-value; clears clipnorm
//   tensor      boolean          run/testrun return tensors instead of k values
//   dictionary  boolean          run/testrun return a dictionary keyed by metric name
//   metrics     symbols          any of loss batchloss accuracy matches predict output hidden
//                                hiddencell grouploss groupaccuracy groupmatches (none allowed)
//   amp         symbol           kscope's own: none (the default), bf16 or fp16, mixed precision:
//                                forward and loss under autocast for the model's device
//   graph       boolean          train only, kscope's own: run's full-size training steps
//                                captured as a CUDA graph and replayed (api/model/graphed_steps.h)
//
// A value type (copyable); thread-compatible. Set validates every given value and the options
// as a whole, then commits; on any error it throws kscope::Error naming `train` or `test`
// ("unrecognized test setting: shuffle", "train: option `batchsize expects long, given
// symbol", "train: task 2 must be less than tasks(2)") and changes nothing.
#ifndef KSCOPE_API_MODEL_MODEL_OPTIONS_H_
#define KSCOPE_API_MODEL_MODEL_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <c10/core/ScalarType.h>

#include "api/nn/options.h"

namespace kscope::nn {

enum class DataMode { kTrain, kTest };

enum class Metric {
  kLoss,
  kBatchLoss,
  kAccuracy,
  kMatches,
  kPredict,
  kOutput,
  kHidden,
  kHiddenCell,
  kGroupLoss,
  kGroupAccuracy,
  kGroupMatches,  // loss, accuracy, matches over every task of a process group
};

// ktorch's name of a metric: "loss", "batchloss", ...
const char* MetricName(Metric m);

struct ClipNorm {
  double max;
  double order;  // 2 unless given; infinity for the infinity norm
};

// The options in typed form, for the code that batches and runs a model.
struct RunOptions {
  std::int64_t batchsize;
  bool droplast;
  bool hidden;
  bool shuffle;
  bool shufflecuda;
  std::int64_t shuffleseed;
  bool sync;
  std::int64_t task;
  std::int64_t tasks;
  bool clipgroup;
  std::optional<ClipNorm> clipnorm;
  std::optional<double> clipvalue;
  bool tensor;
  bool dictionary;
  std::vector<Metric> metrics;
  // Mixed precision (kscope's `amp): forward and loss under autocast in this type for the
  // model's device (bf16 or fp16; fp16 training with a dynamic loss scale); none: full precision.
  std::optional<c10::ScalarType> amp;
  // kscope's `graph: run replays its full-size training steps from a CUDA graph.
  bool graph;
};

class ModelOptions {
 public:
  // The defaults of `mode`.
  explicit ModelOptions(DataMode mode);

  DataMode mode() const { return mode_; }
  const RunOptions& get() const { return typed_; }

  // Every option of the mode in table order, or those that differ from the defaults.
  NamedValues Values(bool all) const;
  // The value of one option; error "unrecognized train setting: foo".
  OptionValue Value(const std::string& name) const;
  // Sets the given options (in order; a later clipnorm/clipvalue clears the other).
  void Set(const NamedValues& values);

 private:
  ModelOptions(DataMode mode, OptionSet set);

  DataMode mode_;
  OptionSet set_;
  RunOptions typed_;
};

}  // namespace kscope::nn

#endif  // KSCOPE_API_MODEL_MODEL_OPTIONS_H_
