#include "api/nn/clip.h"

#include <torch/types.h>  // clip_grad.h needs torch::Tensor and the torch:: ops declared first

#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/optimizer.h>

#include "api/nn/module_object.h"
#include "api/nn/optimizer_object.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"

namespace kscope {
namespace {

// The parameters of each of the optimizer's groups.
std::vector<std::vector<at::Tensor>> OptimizerGroups(const torch::optim::Optimizer& optimizer) {
  std::vector<std::vector<at::Tensor>> groups;
  for (const auto& group : optimizer.param_groups()) groups.push_back(group.params());
  return groups;
}

// The groups' tensors in one list, group after group.
std::vector<at::Tensor> Flat(std::vector<std::vector<at::Tensor>> groups) {
  if (groups.size() == 1) return std::move(groups.front());
  std::vector<at::Tensor> all;
  for (auto& group : groups) all.insert(all.end(), group.begin(), group.end());
  return all;
}

// The tensors whose gradients are clipped, by group: one group per parameter group of an
// optimizer or a model's optimizer, one group for anything else.
std::vector<std::vector<at::Tensor>> GroupsOf(const char* fn, Handle h) {
  const ObjectClass c = HandleTable::Global().Info(h).object_class;
  switch (c) {
    case ObjectClass::kTensor:
    case ObjectClass::kVector:
    case ObjectClass::kDictionary: return {HandleTable::Global().Get(h).tensors()};
    case ObjectClass::kModule:
      return {nn::ModuleOf(fn, h, ObjectClass::kModule)->module().parameters()};
    case ObjectClass::kOptimizer: return OptimizerGroups(nn::OptimizerOf(fn, h)->optimizer());
    case ObjectClass::kModel:
      return OptimizerGroups(nn::ModelOf(fn, h)->model().optimizer->optimizer());
    default:
      Fail("%s: expected tensor, vector, dictionary, module, optimizer or model, given %s", fn,
           ClassName(c));
  }
}

}  // namespace

double clip(Handle h, double max_norm, double norm_type) {
  return torch::nn::utils::clip_grad_norm_(Flat(GroupsOf("clip", h)), max_norm, norm_type);
}

std::vector<double> clip_groups(Handle h, double max_norm, double norm_type) {
  std::vector<double> norms;
  for (auto& group : GroupsOf("clip", h))
    norms.push_back(torch::nn::utils::clip_grad_norm_(std::move(group), max_norm, norm_type));
  return norms;
}

void clipv(Handle h, double value) {
  torch::nn::utils::clip_grad_value_(Flat(GroupsOf("clipv", h)), value);
}

std::vector<double> clip_by_options(Handle m) {
  std::vector<double> norms;
  clip_by_options(nn::ModelOf("clip", m)->model(), &norms);
  return norms;
}

void clip_by_options(const nn::Model& model, std::vector<double>* norms) {
  const nn::RunOptions& o = model.train.get();
  const torch::optim::Optimizer& optimizer = model.optimizer->optimizer();
  if (o.clipvalue)
    torch::nn::utils::clip_grad_value_(Flat(OptimizerGroups(optimizer)), *o.clipvalue);
  if (!o.clipnorm) return;
  auto keep = [norms](double norm) {
    if (norms != nullptr) norms->push_back(norm);
  };
  if (!o.clipgroup) {
    keep(torch::nn::utils::clip_grad_norm_(Flat(OptimizerGroups(optimizer)), o.clipnorm->max,
                                           o.clipnorm->order));
    return;
  }
  for (const auto& group : optimizer.param_groups()) {
    keep(torch::nn::utils::clip_grad_norm_(group.params(), o.clipnorm->max, o.clipnorm->order));
  }
}

}  // namespace kscope
