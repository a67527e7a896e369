// Object — what one handle holds: a tensor, a vector of tensors, an ordered dictionary of
// tensors, or a composite (module, loss, optimizer, model).
//
// An Object holds exactly one strong reference to its payload (an at::Tensor copy, a container
// of them, or a shared_ptr). Objects are move-only; share() takes another strong reference to
// the same payload (it never copies tensor data). Containers are boxed so that an Object stays
// small (it lives in the handle table's slots). Not internally synchronised: the handle table
// guards the Objects it stores; Objects handed out are owned by the caller.
#ifndef KSCOPE_RUNTIME_OBJECT_H_
#define KSCOPE_RUNTIME_OBJECT_H_

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <ATen/core/Tensor.h>
#include <torch/ordered_dict.h>

#include "runtime/composite_object.h"
#include "runtime/object_class.h"

namespace kscope {

using TensorVector = std::vector<at::Tensor>;
using TensorDict = torch::OrderedDict<std::string, at::Tensor>;

class Object {
 public:
  Object() = default;  // empty: only what an Object is after being moved from
  explicit Object(at::Tensor tensor) : payload_(std::move(tensor)) {}
  explicit Object(TensorVector vector)
      : payload_(std::make_unique<TensorVector>(std::move(vector))) {}
  explicit Object(TensorDict dict) : payload_(std::make_unique<TensorDict>(std::move(dict))) {}
  // Moving leaves `other` holding what its payload is after a move (an undefined tensor, a null
  // box). A tensor, what nearly every handle holds, moves without std::variant's visit: every
  // handle's object moves into its table slot and out again.
  Object(Object&& other) noexcept {
    if (at::Tensor* t = other.tensor()) {
      payload_.emplace<at::Tensor>(std::move(*t));
    } else {
      payload_ = std::move(other.payload_);
    }
  }
  Object& operator=(Object&& other) noexcept {
    at::Tensor* to = tensor();
    at::Tensor* from = other.tensor();
    if (to != nullptr && from != nullptr) {
      *to = std::move(*from);
    } else {
      payload_ = std::move(other.payload_);
    }
    return *this;
  }
  explicit Object(std::shared_ptr<CompositeObject> composite) : payload_(std::move(composite)) {}

  bool empty() const { return std::holds_alternative<std::monostate>(payload_); }
  ObjectClass object_class() const {  // inline for a tensor: every new handle asks
    return payload_.index() == 1 ? ObjectClass::kTensor : ClassOfOther();
  }

  // The payload when it is of that kind, else nullptr.
  const at::Tensor* tensor() const { return std::get_if<at::Tensor>(&payload_); }
  at::Tensor* tensor() { return std::get_if<at::Tensor>(&payload_); }
  const TensorVector* vector() const { return Unbox<TensorVector>(); }
  TensorVector* vector() { return Unbox<TensorVector>(); }
  const TensorDict* dict() const { return Unbox<TensorDict>(); }
  TensorDict* dict() { return Unbox<TensorDict>(); }
  const CompositeObject* composite() const;
  // The composite's shared pointer (null unless a composite): lets code that knows the
  // concrete type share the table's wrapper without taking a new reference to the object.
  std::shared_ptr<CompositeObject> composite_ptr() const;

  // Every tensor the object holds or manages, in order.
  std::vector<at::Tensor> tensors() const;

  // Another Object holding a new strong reference to the same payload (addref).
  Object share() const;

 private:
  ObjectClass ClassOfOther() const;  // object_class() of all but a tensor
  template <typename T>
  T* Unbox() const {
    const auto* box = std::get_if<std::unique_ptr<T>>(&payload_);
    return box ? box->get() : nullptr;
  }

  std::variant<std::monostate, at::Tensor, std::unique_ptr<TensorVector>,
               std::unique_ptr<TensorDict>, std::shared_ptr<CompositeObject>>
      payload_;
};

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_OBJECT_H_
