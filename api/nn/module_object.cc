#include "api/nn/module_object.h"

#include <sstream>

#include "runtime/errors.h"
#include "runtime/handle_table.h"

namespace kscope::nn {

std::vector<at::Tensor> ModuleObject::tensors() const {
  std::vector<at::Tensor> all = module_->parameters();
  for (const at::Tensor& b : module_->buffers()) all.push_back(b);
  return all;
}

std::int64_t ModuleObject::parameter_count() const {
  return static_cast<std::int64_t>(module_->parameters().size());
}

std::string ModuleObject::str() const {
  std::ostringstream out;
  out << *module_;
  return out.str();
}

void ModuleObject::MoveTo(std::optional<c10::Device> device, std::optional<c10::ScalarType> dtype) {
  if (device && dtype) {
    module_->to(*device, *dtype);
  } else if (device) {
    module_->to(*device);
  } else if (dtype) {
    module_->to(*dtype);
  }
}

std::shared_ptr<CompositeObject> ModuleObject::share() const {
  return std::make_shared<ModuleObject>(object_class_, spec_, module_);
}

std::shared_ptr<CompositeObject> CompositeOf(const char* fn, Handle h, ObjectClass expected) {
  std::shared_ptr<CompositeObject> found;
  HandleTable::Global().Read(h, [&](const Object& o) {
    if (o.composite() != nullptr && o.object_class() == expected) found = o.composite_ptr();
  });
  if (!found)
    Fail("%s: expected %s, given %s", fn, ClassName(expected),
         ClassName(HandleTable::Global().Info(h).object_class));
  return found;
}

std::shared_ptr<ModuleObject> ModuleOf(const char* fn, Handle h, ObjectClass expected) {
  return std::static_pointer_cast<ModuleObject>(CompositeOf(fn, h, expected));
}

}  // namespace kscope::nn
