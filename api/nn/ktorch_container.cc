#include "api/nn/ktorch_container.h"

#include <algorithm>

#include "runtime/errors.h"

namespace kscope::nn {

std::string KContainerImpl::Add(const std::string& name, const ModuleKind& kind,
                                std::shared_ptr<torch::nn::Module> child) {
  const std::size_t position = children_.size();
  if (max_children_ != 0 && position >= max_children_) {
    Fail("%s: at most %d child modules, given another (%s)", kind_, max_children_, kind.name);
  }
  std::string used = name.empty() ? DefaultName(position, kind) : name;
  if (std::any_of(children_.begin(), children_.end(),
                  [&](const Child& c) { return c.name == used; })) {
    Fail("%s: a child module named `%s already exists", kind_, used);
  }
  register_module(used, child);
  children_.push_back(Child{used, &kind, std::move(child)});
  return used;
}

at::Tensor KContainerImpl::forward(const at::Tensor& x) {
  return SingleOutput(kind_.c_str(), Run({x}));
}

ModuleOutput KContainerImpl::RunChild(std::size_t i, const std::vector<at::Tensor>& x) const {
  const Child& c = children_[i];
  if (x.size() < c.kind->inputs || x.size() > c.kind->max_inputs) {
    Fail("%s: child `%s (%s) expects %d to %d inputs, given %d", kind_, c.name, c.kind->name,
         c.kind->inputs, c.kind->max_inputs, x.size());
  }
  return c.kind->forward(*c.module, x);
}

void KContainerImpl::RequireChildren(std::size_t n) const {
  if (children_.size() < n)
    Fail("%s: needs at least %d child modules, has %d", kind_, n, children_.size());
}

std::vector<at::Tensor> Tensors(ModuleOutput out) {
  if (auto* t = std::get_if<at::Tensor>(&out)) return {std::move(*t)};
  return std::move(std::get<std::vector<at::Tensor>>(out));
}

}  // namespace kscope::nn
