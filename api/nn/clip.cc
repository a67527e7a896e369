#include "api/nn/clip.h"

#include <torch/types.h>  // clip_grad.h needs torch::Tensor and the torch:: ops declared first

#include <cmath>
#include <limits>

#include <ATen/ops/_foreach_norm.h>
#include <ATen/ops/clamp.h>
#include <ATen/ops/full.h>
#include <ATen/ops/max.h>
#include <ATen/ops/stack.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/optimizer.h>

#include "api/nn/module_object.h"
#include "api/nn/optimizer_object.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "runtime/torch_compat.h"

namespace kscope {
namespace {

// libtorch's clip_grad_norm_ without its read-back (the device keeps going): the gradients of
// `parameters` scaled by min(1, max_norm / (norm + 1e-6)) in place; the norm they had, a scalar
// tensor on their device, undefined when none has a gradient. The same arithmetic as libtorch's,
// with each gradient's norm and the scaling one multi-tensor operation each (libtorch: one per
// gradient; on the CPU the results are equal).
at::Tensor ClipNorm(const std::vector<at::Tensor>& parameters, double max_norm, double order) {
  std::vector<at::Tensor> grads;
  for (const at::Tensor& p : parameters) {
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  if (grads.empty()) return at::Tensor();
  at::Tensor total;
  if (order == 0) {
    total = at::full({}, static_cast<double>(grads.size()));
  } else if (order == std::numeric_limits<double>::infinity()) {
    std::vector<at::Tensor> largest;
    for (const at::Tensor& g : grads) largest.push_back(g.abs().max());
    total = largest.size() == 1 ? largest.front() : at::max(at::stack(largest));
  } else {
    std::vector<at::Tensor> norms = at::_foreach_norm(grads, order);
    total = norms.size() == 1 ? norms.front() : at::stack(norms).norm(order);
  }
  ScaleEach(grads, at::clamp(max_norm / (total + 1e-6), AtOptional<at::Scalar>(), 1.0));
  return total;
}

// The norm as a number (a read from the device), 0 when there was none.
double Read(const at::Tensor& norm) { return norm.defined() ? norm.item<double>() : 0.0; }

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
  return Read(ClipNorm(Flat(GroupsOf("clip", h)), max_norm, norm_type));
}

std::vector<double> clip_groups(Handle h, double max_norm, double norm_type) {
  std::vector<double> norms;
  for (auto& group : GroupsOf("clip", h))
    norms.push_back(Read(ClipNorm(group, max_norm, norm_type)));
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
  auto keep = [norms](const at::Tensor& norm) {  // read back only when asked for
    if (norms != nullptr) norms->push_back(Read(norm));
  };
  if (!o.clipgroup) {
    keep(ClipNorm(Flat(OptimizerGroups(optimizer)), o.clipnorm->max, o.clipnorm->order));
    return;
  }
  for (const auto& group : optimizer.param_groups())
    keep(ClipNorm(group.params(), o.clipnorm->max, o.clipnorm->order));
}

}  // namespace kscope
