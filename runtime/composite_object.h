// CompositeObject — the interface the handle table uses for objects made of many tensors:
// modules, losses, optimizers, models and process groups.
//
// Implementations (in api/, by the module, loss, optimizer and model code) wrap a libtorch
// object held by std::shared_ptr. The handle table holds each composite through a
// std::shared_ptr<CompositeObject>, one per handle; two handles to the same libtorch object
// (addref) hold two wrappers sharing the libtorch object, so use_count() reports the libtorch
// object's count as ktorch's `ref` does. Accessors must not throw and must be safe to call
// from any thread while no other thread mutates the object.
#ifndef KSCOPE_RUNTIME_COMPOSITE_OBJECT_H_
#define KSCOPE_RUNTIME_COMPOSITE_OBJECT_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "runtime/object_class.h"

namespace kscope {

class CompositeObject {
 public:
  virtual ~CompositeObject() = default;

  // kModule, kLoss, kOptimizer, kModel or kGroup.
  virtual ObjectClass object_class() const = 0;
  // Every tensor the object manages (parameters, buffers, optimizer state), for accounting.
  virtual std::vector<at::Tensor> tensors() const = 0;
  // ktorch's `size`: the number of parameter tensors.
  virtual std::int64_t parameter_count() const = 0;
  // Address of the underlying libtorch object (equal for handles sharing it).
  virtual const void* address() const = 0;
  // Strong reference count of the underlying libtorch object.
  virtual long use_count() const = 0;
  // libtorch's printout of the object.
  virtual std::string str() const = 0;
  // A new wrapper sharing the same libtorch object (what addref stores in its new handle).
  virtual std::shared_ptr<CompositeObject> share() const = 0;
  // Moves/converts the object's tensors in place (ktorch's `to`); a kind that cannot be moved
  // throws kscope::Error naming `to`.
  virtual void MoveTo(std::optional<c10::Device> device, std::optional<c10::ScalarType> dtype) = 0;
  // The device ktorch reports for the object: by default that of the first defined tensor of
  // tensors(); nullopt when there is none. An optimizer reports its first parameter's device.
  virtual std::optional<c10::Device> device() const {
    for (const at::Tensor& t : tensors()) {
      if (t.defined()) return t.device();
    }
    return std::nullopt;
  }
  // Numbers the object keeps outside tensors that ktorch counts in `elements` and `bytes` as
  // one element of 8 bytes each (an optimizer's step counters); 0 by default.
  virtual std::int64_t scalar_count() const { return 0; }
};

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_COMPOSITE_OBJECT_H_
