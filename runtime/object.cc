#include "runtime/object.h"

#include <stdexcept>

namespace kscope {

ObjectClass Object::ClassOfOther() const {
  switch (payload_.index()) {
    case 1: return ObjectClass::kTensor;
    case 2: return ObjectClass::kVector;
    case 3: return ObjectClass::kDictionary;
    case 4: return composite()->object_class();
    default: throw std::logic_error("kscope: class of an empty (moved-from) object");
  }
}

const CompositeObject* Object::composite() const {
  const auto* p = std::get_if<std::shared_ptr<CompositeObject>>(&payload_);
  return p ? p->get() : nullptr;
}

std::shared_ptr<CompositeObject> Object::composite_ptr() const {
  const auto* p = std::get_if<std::shared_ptr<CompositeObject>>(&payload_);
  return p ? *p : nullptr;
}

std::vector<at::Tensor> Object::tensors() const {
  if (const auto* t = tensor()) return {*t};
  if (const auto* v = vector()) return *v;
  if (const auto* d = dict()) return d->values();
  if (const auto* c = composite()) return c->tensors();
  return {};
}

Object Object::share() const {
  if (const auto* t = tensor()) return Object(*t);
  if (const auto* v = vector()) return Object(*v);
  if (const auto* d = dict()) return Object(*d);
  if (const auto* p = std::get_if<std::shared_ptr<CompositeObject>>(&payload_)) {
    return Object((*p)->share());
  }
  return Object();
}

}  // namespace kscope
