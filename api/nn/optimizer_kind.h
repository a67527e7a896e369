// OptimizerKind — one entry of the table of optimizer kinds: its ktorch name, its options
// (ktorch's names, order and defaults), how to build the libtorch optimizer over a list of
// parameters from them, which state tensors it keeps for one parameter, and, for a kind whose
// step needs a closure (lbfgs), why a plain step is refused.
//
// Internal to api/ (it includes libtorch's optim headers). The table is built once and never
// changes, so lookups are thread-safe. make() lets libtorch's own checks (e.g. "Invalid
// learning rate") pass through as c10::Error.
#ifndef KSCOPE_API_NN_OPTIMIZER_KIND_H_
#define KSCOPE_API_NN_OPTIMIZER_KIND_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <torch/optim/optimizer.h>

#include "absl/strings/string_view.h"
#include "api/nn/options.h"

namespace kscope::nn {

struct OptimizerKind {
  using Make = std::function<std::shared_ptr<torch::optim::Optimizer>(std::vector<at::Tensor> parameters,
                                                                      const OptionSet& options)>;
  // The defined state tensors of one parameter (buffers are created at the first step).
  using State = std::function<std::vector<at::Tensor>(const torch::optim::OptimizerParamState& state)>;

  std::string name;
  std::vector<OptionSpec> options;
  Make make;
  State state;
  // ktorch's error for a plain step of a kind that needs a model, loss and inputs to re-evaluate
  // (lbfgs); null where a plain step works.
  const char* step_refusal = nullptr;
};

// The kind named `name` among optimizers (nullptr if none).
const OptimizerKind* FindOptimizerKind(absl::string_view name);

}  // namespace kscope::nn

#endif  // KSCOPE_API_NN_OPTIMIZER_KIND_H_
