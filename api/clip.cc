#include "api/clip.h"

#include <torch/types.h>  // clip_grad.h needs torch::Tensor and the torch:: ops declared first
#include <torch/nn/utils/clip_grad.h>

#include "api/nn/module_object.h"
#include "api/nn/optimizer_object.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"

namespace kscope {
namespace {

// The tensors whose gradients are clipped, by group: one group per parameter group of an
// optimizer, one group for anything else.
std::vector<std::vector<at::Tensor>> GroupsOf(const char* fn, Handle h) {
  const ObjectClass c = HandleTable::Global().Info(h).object_class;
  switch (c) {
    case ObjectClass::kTensor:
    case ObjectClass::kVector:
    case ObjectClass::kDictionary:
      return {HandleTable::Global().Get(h).tensors()};
    case ObjectClass::kModule:
      return {nn::ModuleOf(fn, h, ObjectClass::kModule)->module().parameters()};
    case ObjectClass::kOptimizer: {
      std::vector<std::vector<at::Tensor>> groups;
      for (const auto& group : nn::OptimizerOf(fn, h)->optimizer().param_groups()) groups.push_back(group.params());
      return groups;
    }
    default:
      Fail("%s: expected tensor, vector, dictionary, module or optimizer, given %s", fn, ClassName(c));
  }
}

}  // namespace

double clip(Handle h, double max_norm, double norm_type) {
  std::vector<at::Tensor> all;
  for (auto& group : GroupsOf("clip", h)) all.insert(all.end(), group.begin(), group.end());
  return torch::nn::utils::clip_grad_norm_(std::move(all), max_norm, norm_type);
}

std::vector<double> clip_groups(Handle h, double max_norm, double norm_type) {
  std::vector<double> norms;
  for (auto& group : GroupsOf("clip", h)) norms.push_back(torch::nn::utils::clip_grad_norm_(std::move(group), max_norm, norm_type));
  return norms;
}

void clipv(Handle h, double value) {
  std::vector<at::Tensor> all;
  for (auto& group : GroupsOf("clipv", h)) all.insert(all.end(), group.begin(), group.end());
  torch::nn::utils::clip_grad_value_(all, value);
}

}  // namespace kscope
