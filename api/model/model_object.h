// ModelObject — how the handle table holds a model: a module, a loss and an optimizer trained
// together, with the model's training and testing options.
//
// Ownership: a Model holds the wrappers of its three parts (ModuleObject for the module and
// the loss, OptimizerObject), each sharing its libtorch object; giving out a part (`module m`)
// makes a new wrapper of the same libtorch object, as addref does. Each ModelObject holds one
// std::shared_ptr to the Model (what `ref m` counts); share() (addref) makes another wrapper of
// the same Model. Accessors do not throw. Thread-compatible: a model must not be changed while
// another thread uses it.
#ifndef KSCOPE_API_MODEL_MODEL_OBJECT_H_
#define KSCOPE_API_MODEL_MODEL_OBJECT_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include "api/distributed/distribute.h"
#include "api/model/loss_scale.h"
#include "api/model/model_options.h"
#include "api/nn/module_object.h"
#include "api/nn/optimizer_object.h"
#include "runtime/composite_object.h"
#include "runtime/handle.h"
#include "runtime/per_element.h"

namespace kscope::distributed {
class GradientReducer;  // api/distributed/gradient_reducer.h
class GroupObject;      // api/distributed/group_object.h
}  // namespace kscope::distributed

namespace kscope::nn {

// A model's input or its target (ktorch's x and y: a tensor, a vector of tensors, a dictionary
// of tensors, or nothing): the tensors in order and, for a dictionary, their keys.
struct DataTensors {
  enum class Form { kNone, kTensor, kVector, kDictionary };
  Form form = Form::kNone;
  std::vector<at::Tensor> tensors;  // one for kTensor, none for kNone
  std::vector<std::string> keys;    // kDictionary: the key of each tensor
  bool defined() const { return form != Form::kNone; }
};

// A model's training or testing data (ktorch's train(m;x;y)): an input and an optional target,
// batched together along the first dimension, and where batching stands: `next` is the position
// of the next batch in this task's sequence (-1 when no epoch is under way), `permutation` the
// composed shuffles since the data was given (undefined: original order), `generator` the
// shared shuffle generator of several tasks, `hidden` the recurrent state the last batch left
// (fed with the next batch under the `hidden` option; empty at an epoch's start).
struct ModelData {
  DataTensors input;
  DataTensors target;
  std::int64_t next = -1;
  at::Tensor permutation;
  at::Generator generator;
  std::vector<at::Tensor> hidden;

  // The tensors of the input and the target, in order.
  std::vector<at::Tensor> tensors() const;
};

struct Model {
  std::shared_ptr<ModuleObject> module;  // class kModule
  std::shared_ptr<ModuleObject> loss;    // class kLoss
  std::shared_ptr<OptimizerObject> optimizer;
  ModelOptions train{DataMode::kTrain};
  ModelOptions test{DataMode::kTest};
  ModelData train_data{};
  ModelData test_data{};
  // The process group training is spread over (api/distributed/distribute.h); null: this process
  // alone. Shared with the group's handles: the connections stay open while the model is bound.
  std::shared_ptr<distributed::GroupObject> group;
  // Where gradients are averaged during backward (distribute's `overlap`); null: after it.
  std::shared_ptr<distributed::GradientReducer> reducer;
  // The options the model was bound with (meaningful while `group` is set).
  DistributeOptions distribution;
  // fp16 training's loss scale (the `amp option).
  LossScale loss_scale;

  // The device of the module's first parameter (where k data is moved, where the process group's
  // collectives of the model run); none for a module without parameters.
  std::optional<c10::Device> device() const;
};

class ModelObject : public CompositeObject {
 public:
  explicit ModelObject(std::shared_ptr<Model> model) : model_(std::move(model)) {}

  ObjectClass object_class() const override { return ObjectClass::kModel; }
  // The module's parameters and buffers, then the optimizer's state buffers.
  std::vector<at::Tensor> tensors() const override;
  // Model::device(): the module's first parameter's.
  std::optional<c10::Device> device() const override { return model_->device(); }
  // The optimizer's.
  std::int64_t scalar_count() const override { return model_->optimizer->scalar_count(); }
  // The module's parameter count.
  std::int64_t parameter_count() const override;
  const void* address() const override { return model_.get(); }
  long use_count() const override { return model_.use_count(); }
  // The module's, the loss's and the optimizer's printouts, one after another.
  std::string str() const override;
  std::shared_ptr<CompositeObject> share() const override;
  // Moves the module and the loss (ktorch's to(m;device)).
  void MoveTo(std::optional<c10::Device> device, std::optional<c10::ScalarType> dtype) override;

  Model& model() const { return *model_; }

 private:
  std::shared_ptr<Model> model_;
};

// The model object behind handle h; kscope::Error "<fn>: expected model, given <class>" unless h
// is a live model handle ("stale pointer" for a stale one).
std::shared_ptr<ModelObject> ModelOf(const char* fn, Handle h);

// The module object behind h, or the module of model h (ktorch lets a model stand for its
// module: forward(m;x), parm(m;`x), opt(`sgd;m), batchnorm m); kscope::Error "<fn>: expected
// module or model, given <class>" otherwise ("stale pointer" for a stale handle).
std::shared_ptr<ModuleObject> ModuleOrModelsModule(const char* fn, Handle h);

// The module object behind a module, loss or model handle h (the model's module); null for a
// handle of another class ("stale pointer" for a stale one). ktorch answers dtype, ktype,
// gradient and gradflag of these per parameter.
std::shared_ptr<ModuleObject> ModuleBehind(const char* fn, Handle h);

// f applied to each parameter of the module behind h (ModuleBehind), by name: ktorch's dtype,
// ktype and gradient of a module, loss or model; nullopt if h is of another class.
template <typename T, typename F>
std::optional<PerElement<T>> EachParameter(const char* fn, Handle h, F f) {
  const std::shared_ptr<ModuleObject> m = ModuleBehind(fn, h);
  if (m == nullptr) return std::nullopt;
  typename PerElement<T>::Named items;
  for (const auto& p : m->module().named_parameters()) items.emplace_back(p.key(), f(p.value()));
  return PerElement<T>(std::move(items));
}

}  // namespace kscope::nn

#endif  // KSCOPE_API_MODEL_MODEL_OBJECT_H_
