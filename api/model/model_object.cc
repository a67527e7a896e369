#include "api/model/model_object.h"

#include "absl/strings/str_cat.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "runtime/object_class.h"

namespace kscope::nn {

std::optional<c10::Device> Model::device() const {
  const std::vector<at::Tensor> parameters = module->module().parameters();
  if (parameters.empty()) return std::nullopt;
  return parameters.front().device();
}

std::vector<at::Tensor> ModelData::tensors() const {
  std::vector<at::Tensor> all = input.tensors;
  all.insert(all.end(), target.tensors.begin(), target.tensors.end());
  return all;
}

std::vector<at::Tensor> ModelObject::tensors() const {
  std::vector<at::Tensor> all = model_->module->tensors();
  for (at::Tensor& t : model_->optimizer->tensors()) all.push_back(std::move(t));
  return all;
}

std::int64_t ModelObject::parameter_count() const { return model_->module->parameter_count(); }

std::string ModelObject::str() const {
  return absl::StrCat(model_->module->str(), "\n", model_->loss->str(), "\n",
                      model_->optimizer->str());
}

std::shared_ptr<CompositeObject> ModelObject::share() const {
  return std::make_shared<ModelObject>(model_);
}

void ModelObject::MoveTo(std::optional<c10::Device> device, std::optional<c10::ScalarType> dtype) {
  model_->module->MoveTo(device, dtype);
  model_->loss->MoveTo(device, dtype);
}

std::shared_ptr<ModelObject> ModelOf(const char* fn, Handle h) {
  return std::static_pointer_cast<ModelObject>(CompositeOf(fn, h, ObjectClass::kModel));
}

std::shared_ptr<ModuleObject> ModuleOrModelsModule(const char* fn, Handle h) {
  const ObjectClass c = HandleTable::Global().Info(h).object_class;
  if (c == ObjectClass::kModel) return ModelOf(fn, h)->model().module;
  if (c != ObjectClass::kModule) Fail("%s: expected module or model, given %s", fn, ClassName(c));
  return ModuleOf(fn, h, ObjectClass::kModule);
}

std::shared_ptr<ModuleObject> ModuleBehind(const char* fn, Handle h) {
  const ObjectClass c = HandleTable::Global().Info(h).object_class;
  if (c == ObjectClass::kModel) return ModelOf(fn, h)->model().module;
  if (c == ObjectClass::kModule || c == ObjectClass::kLoss) return ModuleOf(fn, h, c);
  return nullptr;
}

}  // namespace kscope::nn
