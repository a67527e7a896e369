// ModuleObject — how the handle table holds a module or a loss: the libtorch module, and
// beside it the tree of kscope kinds and options it was defined with (libtorch modules do not
// remember ktorch's option names), so it can be queried and recreated.
//
// Ownership: each ModuleObject holds one std::shared_ptr to the libtorch module (what `ref`
// counts, as ktorch does) and shares the definition tree. share() (addref) makes another
// wrapper of the same module. Thread-compatible, like the libtorch module.
#ifndef KSCOPE_API_NN_MODULE_OBJECT_H_
#define KSCOPE_API_NN_MODULE_OBJECT_H_

#include <memory>
#include <string>
#include <vector>

#include <torch/nn/module.h>

#include "api/nn/module_kind.h"
#include "api/nn/options.h"
#include "runtime/composite_object.h"
#include "runtime/handle.h"

namespace kscope::nn {

// A module's definition: its kind, options and name, and its children's definitions.
struct ModuleSpec {
  const ModuleKind* kind;
  OptionSet options;
  std::string name;
  std::vector<std::shared_ptr<ModuleSpec>> children;
};

class ModuleObject : public CompositeObject {
 public:
  ModuleObject(ObjectClass object_class, std::shared_ptr<ModuleSpec> spec,
               std::shared_ptr<torch::nn::Module> module)
      : object_class_(object_class), spec_(std::move(spec)), module_(std::move(module)) {}

  ObjectClass object_class() const override { return object_class_; }
  std::vector<at::Tensor> tensors() const override;
  std::int64_t parameter_count() const override;
  const void* address() const override { return module_.get(); }
  long use_count() const override { return module_.use_count(); }
  std::string str() const override;
  std::shared_ptr<CompositeObject> share() const override;
  void MoveTo(std::optional<c10::Device> device, std::optional<c10::ScalarType> dtype) override;

  const ModuleSpec& spec() const { return *spec_; }
  const std::shared_ptr<ModuleSpec>& spec_ptr() const { return spec_; }
  torch::nn::Module& module() const { return *module_; }
  const std::shared_ptr<torch::nn::Module>& module_ptr() const { return module_; }

 private:
  ObjectClass object_class_;
  std::shared_ptr<ModuleSpec> spec_;
  std::shared_ptr<torch::nn::Module> module_;
};

// The composite behind handle h: the table's own wrapper, shared, so the libtorch object's use
// count is untouched. kscope::Error "<fn>: expected <class>, given <class>" unless h is a live
// handle of class `expected`; "stale pointer" for a stale one.
std::shared_ptr<CompositeObject> CompositeOf(const char* fn, Handle h, ObjectClass expected);

// The module object behind handle h; kscope::Error "<fn>: expected <class>, given <class>"
// unless h is a live handle of `expected` (kModule or kLoss).
std::shared_ptr<ModuleObject> ModuleOf(const char* fn, Handle h, ObjectClass expected);

}  // namespace kscope::nn

#endif  // KSCOPE_API_NN_MODULE_OBJECT_H_
