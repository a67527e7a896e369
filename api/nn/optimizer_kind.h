// OptimizerKind — one entry of the table of optimizer kinds: its ktorch name, its options
// (ktorch's names, order and defaults), how to build the libtorch optimizer and the options of
// one parameter group from them, the state tensors it keeps for one parameter (for accounting),
// how that state is saved as named buffers and loaded back (ktorch's `state` and
// opt(state;module)), and, for a kind whose step needs a closure (lbfgs), why a plain step is
// refused.
//
// Internal to api/ (it includes libtorch's optim headers). The table is built once and never
// changes, so lookups are thread-safe. make() lets libtorch's own checks (e.g. "Invalid
// learning rate") pass through as c10::Error; SavedBuffers throws kscope::Error naming `opt`.
#ifndef KSCOPE_API_NN_OPTIMIZER_KIND_H_
#define KSCOPE_API_NN_OPTIMIZER_KIND_H_

#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <torch/optim/optimizer.h>

#include "absl/strings/string_view.h"
#include "api/nn/optimizer_state.h"
#include "api/nn/options.h"

namespace kscope::nn {

// The key libtorch's optimizers file a parameter's state under: its TensorImpl's address (as a
// string in libtorch 1.x, the pointer itself in later versions).
using StateKey =
    typename std::decay_t<decltype(std::declval<torch::optim::Optimizer&>().state())>::key_type;
StateKey StateKeyOf(const at::Tensor& parameter);

// The saved buffers of one parameter, read back for its kind's load(). Buffers are copied onto
// the parameter's device; one shaped as the parameter takes its type too. Errors (kscope::Error
// naming `opt`, the buffer and the parameter): a missing required buffer, a size that differs
// from the parameter's.
class SavedBuffers {
 public:
  SavedBuffers(const std::string& parameter_name, const at::Tensor& parameter,
               const OptimizerBuffers& buffers)
      : name_(parameter_name), parameter_(parameter), buffers_(buffers) {}

  // A buffer of the parameter's size, device and type; undefined if absent and not required.
  at::Tensor Like(const char* name, bool required = true) const;
  // A buffer of any size on the parameter's device (undefined if absent).
  at::Tensor Any(const char* name) const;
  // A count or value kept as a number (0 if absent).
  std::int64_t Long(const char* name) const;
  double Double(const char* name) const;

 private:
  const at::Tensor* Find(const char* name) const;

  const std::string& name_;
  const at::Tensor& parameter_;
  const OptimizerBuffers& buffers_;
};

struct OptimizerKind {
  // The optimizer over `groups` (each with its own options) with `defaults` for groups without
  // options and groups added later; libtorch checks the defaults' values.
  using Make = std::function<std::shared_ptr<torch::optim::Optimizer>(
      std::vector<torch::optim::OptimizerParamGroup> groups, const OptionSet& defaults)>;
  // libtorch's options for one parameter group (values not checked: make() checks them).
  using GroupOptions =
      std::function<std::unique_ptr<torch::optim::OptimizerOptions>(const OptionSet& options)>;
  // The defined state tensors of one parameter, as libtorch holds them (for accounting).
  using State =
      std::function<std::vector<at::Tensor>(const torch::optim::OptimizerParamState& state)>;
  // One parameter's state as named buffers, in the order of `buffers`; counts as long scalars.
  using Save = std::function<OptimizerBuffers(const torch::optim::OptimizerParamState& state)>;
  using Load =
      std::function<std::unique_ptr<torch::optim::OptimizerParamState>(const SavedBuffers& saved)>;
  // The state libtorch makes for a parameter together with the optimizer (adagrad's sum), for a
  // parameter added later; null where state only appears at the first step.
  using Initial = std::function<std::unique_ptr<torch::optim::OptimizerParamState>(
      const at::Tensor& parameter, const OptionSet& group)>;

  std::string name;
  std::string class_name;  // the optimizer's class as str() names it: "torch::optim::SGD"
  std::vector<OptionSpec> options;
  std::vector<std::string> buffers;  // the names save() may give, in order
  Make make;
  GroupOptions group_options;
  State state;
  Save save;
  Load load;
  Initial initial = nullptr;
  // ktorch's error for a plain step of a kind that needs a model, loss and inputs to re-evaluate
  // (lbfgs); null where a plain step works.
  const char* step_refusal = nullptr;
  // Whether parameters may be split into groups (libtorch's LBFGS takes one group only).
  bool groups = true;
  // Numbers one parameter's state keeps outside tensors (adam's step; lbfgs's func_evals, n_iter,
  // t and prev_loss), which ktorch counts in elements and bytes as one 8-byte element each.
  int scalars = 0;
};

// Each parameter's state as `kind` loads it from buffers[i] (null where buffers[i] is empty;
// buffers may be empty: no state at all), the buffers' names checked against the kind's and
// their sizes against parameters[i], named names[i] in errors. Changes nothing: the caller
// installs the states (OptimizerObject::SetStates). Errors: kscope::Error naming `opt`.
std::vector<std::unique_ptr<torch::optim::OptimizerParamState>> LoadStates(
    const OptimizerKind& kind, const std::vector<std::string>& names,
    const std::vector<at::Tensor>& parameters, const std::vector<OptimizerBuffers>& buffers);

// The kind named `name` among optimizers (nullptr if none).
const OptimizerKind* FindOptimizerKind(absl::string_view name);

}  // namespace kscope::nn

#endif  // KSCOPE_API_NN_OPTIMIZER_KIND_H_
