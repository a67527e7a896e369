// OptimizerObject — how the handle table holds an optimizer: the libtorch optimizer, and beside
// it its kind, the ktorch options it was defined with (libtorch optimizers do not remember
// ktorch's option names) and the modules whose parameters it optimizes.
//
// Ownership: each OptimizerObject holds one std::shared_ptr to the libtorch optimizer (what
// `ref` counts) and shares the OptimizerSpec with the other wrappers of the same optimizer
// (share(), for addref). The spec holds one extra std::shared_ptr to each optimized module, so
// a module's `ref` is one higher while an optimizer over it lives, as in ktorch. Accessors do
// not throw. Thread-compatible, like the libtorch optimizer: set_lr and step must not run
// concurrently with anything else on the same optimizer.
#ifndef KSCOPE_API_NN_OPTIMIZER_OBJECT_H_
#define KSCOPE_API_NN_OPTIMIZER_OBJECT_H_

#include <memory>
#include <string>
#include <vector>

#include <torch/optim/optimizer.h>

#include "api/nn/module_object.h"
#include "api/nn/optimizer_kind.h"
#include "api/nn/options.h"
#include "runtime/composite_object.h"
#include "runtime/handle.h"

namespace kscope::nn {

// An optimizer's definition: its kind and options, and the modules it optimizes (each a
// wrapper of its own, holding a reference to the libtorch module).
struct OptimizerSpec {
  const OptimizerKind* kind;
  OptionSet options;
  std::vector<std::shared_ptr<ModuleObject>> modules;
};

class OptimizerObject : public CompositeObject {
 public:
  OptimizerObject(std::shared_ptr<OptimizerSpec> spec, std::shared_ptr<torch::optim::Optimizer> optimizer)
      : spec_(std::move(spec)), optimizer_(std::move(optimizer)) {}

  ObjectClass object_class() const override { return ObjectClass::kOptimizer; }
  // The state buffers of every parameter, in parameter order (none before the first step).
  std::vector<at::Tensor> tensors() const override;
  std::int64_t parameter_count() const override;
  const void* address() const override { return optimizer_.get(); }
  long use_count() const override { return optimizer_.use_count(); }
  // libtorch's class and ktorch's options: "torch::optim::SGD(lr=0.01, momentum=0, ...)".
  std::string str() const override;
  std::shared_ptr<CompositeObject> share() const override;
  // Optimizers follow their module: moving one directly is an error, as in ktorch.
  void MoveTo(std::optional<c10::Device> device, std::optional<c10::ScalarType> dtype) override;

  const OptimizerSpec& spec() const { return *spec_; }
  torch::optim::Optimizer& optimizer() const { return *optimizer_; }
  // The parameters of every group, in order.
  std::vector<at::Tensor> parameters() const;
  // Sets the learning rate of every group and of the defaults for groups added later, and
  // records it in the spec's options.
  void set_lr(double rate);

 private:
  std::shared_ptr<OptimizerSpec> spec_;
  std::shared_ptr<torch::optim::Optimizer> optimizer_;
};

// The optimizer object behind handle h; kscope::Error "<fn>: expected optimizer, given <class>"
// unless h is a live optimizer handle.
std::shared_ptr<OptimizerObject> OptimizerOf(const char* fn, Handle h);

}  // namespace kscope::nn

#endif  // KSCOPE_API_NN_OPTIMIZER_OBJECT_H_
