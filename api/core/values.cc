#include "api/core/values.h"

#include <c10/core/DeviceType.h>

#include "runtime/errors.h"

namespace kscope {

at::Tensor HostCopy(const at::Tensor& t) {
  if (!t.defined()) return t;
  at::Tensor detached = t.detach();
  return detached.device().is_cpu() ? detached.clone(at::MemoryFormat::Contiguous)
                                    : detached.to(c10::kCPU).contiguous();
}

Value HostValue(const char* fn, const Object& o) {
  if (const auto* t = o.tensor()) return HostCopy(*t);
  if (const auto* v = o.vector()) {
    TensorVector out;
    out.reserve(v->size());
    for (const auto& t : *v) out.push_back(HostCopy(t));
    return out;
  }
  if (const auto* d = o.dict()) {
    TensorDict out;
    out.reserve(d->size());
    for (const auto& item : *d) out.insert(item.key(), HostCopy(item.value()));
    return out;
  }
  Fail("%s: expecting tensor, vector or dictionary, given %s", fn, ClassName(o.object_class()));
}

Object ObjectOf(Value v) {
  return std::visit([](auto&& payload) { return Object(std::forward<decltype(payload)>(payload)); },
                    std::move(v));
}

ObjectClass ClassOf(const Value& v) {
  switch (v.index()) {
    case 0: return ObjectClass::kTensor;
    case 1: return ObjectClass::kVector;
    default: return ObjectClass::kDictionary;
  }
}

}  // namespace kscope
