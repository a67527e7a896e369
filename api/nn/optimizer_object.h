// OptimizerObject — how the handle table holds an optimizer: the libtorch optimizer, and beside
// it its kind, the ktorch options of each parameter group (libtorch optimizers do not remember
// ktorch's option names) and where each optimized parameter came from.
//
// Ownership: each OptimizerObject holds one std::shared_ptr to the libtorch optimizer (what
// `ref` counts) and shares the OptimizerSpec with the other wrappers of the same optimizer
// (share(), for addref). The spec holds one std::shared_ptr to each module parameters were taken
// from, however many of its parameters are optimized, so a module's `ref` is one higher while an
// optimizer over it lives, as in ktorch. Loose tensors (a tensor, vector or dictionary given to
// opt) are held in a libtorch ParameterDict made for them: ktorch's parmdict.
//
// Invariant: spec().groups and spec().origins have one entry per libtorch parameter group, and
// origins[g] one entry per parameter of group g, in the same order. Accessors do not throw.
// Add throws kscope::Error naming `opt` (or libtorch's c10::Error for option values) and
// changes nothing when it throws. Thread-compatible, like the libtorch optimizer: Add, set_lr
// and step must not run concurrently with anything else on the same optimizer.
#ifndef KSCOPE_API_NN_OPTIMIZER_OBJECT_H_
#define KSCOPE_API_NN_OPTIMIZER_OBJECT_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include "api/nn/module_object.h"
#include "api/nn/optimizer_kind.h"
#include "api/nn/options.h"
#include "runtime/composite_object.h"
#include "runtime/handle.h"

namespace kscope::nn {

// A module parameters were taken from: a module given to opt (with its definition), or the
// parmdict made for loose tensors (no definition).
struct ParameterHolder {
  std::shared_ptr<torch::nn::Module> module;
  std::shared_ptr<ModuleSpec> spec;  // null for a parmdict
};

// Where one optimized parameter came from: its holder (an index into OptimizerSpec::holders)
// and its name there (`0.weight`, or a parmdict key).
struct ParameterOrigin {
  std::size_t holder;
  std::string name;
};

struct OptimizerSpec {
  const OptimizerKind* kind;
  OptionSet defaults;                                 // what a new group starts from
  std::vector<OptionSet> groups;                      // each group's options
  std::vector<std::vector<ParameterOrigin>> origins;  // each group's parameters
  std::vector<ParameterHolder> holders;               // distinct modules
};

// The parameters one argument of opt gives: their holder and their names and tensors in it.
struct ParameterBatch {
  ParameterHolder holder;
  std::vector<std::pair<std::string, at::Tensor>> parameters;
};

class OptimizerObject : public CompositeObject {
 public:
  OptimizerObject(std::shared_ptr<OptimizerSpec> spec,
                  std::shared_ptr<torch::optim::Optimizer> optimizer)
      : spec_(std::move(spec)), optimizer_(std::move(optimizer)) {}
  // A new optimizer of `kind` with one empty parameter group (libtorch's `opt`sgd`); libtorch
  // checks the values of `defaults`.
  static std::shared_ptr<OptimizerObject> Make(const OptimizerKind& kind,
                                               const OptionSet& defaults);

  ObjectClass object_class() const override { return ObjectClass::kOptimizer; }
  // The state buffers of every parameter, in parameter order (none before the first step).
  std::vector<at::Tensor> tensors() const override;
  // The first parameter's device (ktorch's), whether or not there is state yet.
  std::optional<c10::Device> device() const override;
  // The kind's scalars for every parameter with state.
  std::int64_t scalar_count() const override;
  std::int64_t parameter_count() const override;
  const void* address() const override { return optimizer_.get(); }
  long use_count() const override { return optimizer_.use_count(); }
  // libtorch's class and ktorch's options of the first group: "torch::optim::SGD(lr=0.01, ...)".
  std::string str() const override;
  std::shared_ptr<CompositeObject> share() const override;
  // Optimizers follow their module: moving one directly is an error, as in ktorch.
  void MoveTo(std::optional<c10::Device> device, std::optional<c10::ScalarType> dtype) override;

  const OptimizerSpec& spec() const { return *spec_; }
  torch::optim::Optimizer& optimizer() const { return *optimizer_; }
  std::int64_t group_count() const { return static_cast<std::int64_t>(spec_->groups.size()); }
  // The options of `group`, or the defaults for any other (the next group starts from them).
  const OptionSet& group_options(std::int64_t group) const;
  // The parameters of every group, in order.
  std::vector<at::Tensor> parameters() const;
  // Each parameter's state as its kind's named buffers, in parameters() order (none for a
  // parameter without state yet).
  std::vector<OptimizerBuffers> SavedStates() const;
  // Makes states[i] (where not null; moved from) the state of parameters[i], which must be
  // parameters of this optimizer; leaves every other parameter's state as it is.
  void SetStates(const std::vector<at::Tensor>& parameters,
                 std::vector<std::unique_ptr<torch::optim::OptimizerParamState>> states);
  // Adds `batch` to `group` (an existing group, or group_count() for a new one) and, when
  // `options` is given, sets the group's options. Errors: "opt: group 4 invalid, cannot be
  // greater than number of groups(3)", a non-leaf tensor, a parameter already optimized.
  void Add(std::int64_t group, ParameterBatch batch, const OptionSet* options);
  // Sets the learning rate of one group, or of every group and of the defaults.
  void set_lr(std::int64_t group, double rate);
  void set_lr(double rate);

 private:
  // The state of each parameter that has one, in parameter order.
  std::vector<const torch::optim::OptimizerParamState*> States() const;

  std::shared_ptr<OptimizerSpec> spec_;
  std::shared_ptr<torch::optim::Optimizer> optimizer_;
};

// The optimizer object behind handle h; kscope::Error "<fn>: expected optimizer, given <class>"
// unless h is a live optimizer handle.
std::shared_ptr<OptimizerObject> OptimizerOf(const char* fn, Handle h);

}  // namespace kscope::nn

#endif  // KSCOPE_API_NN_OPTIMIZER_OBJECT_H_
