// KContainerImpl — the base of ktorch's own containers (seqnest, seqlist, seqdict, seqjoin,
// fork, residual, recur, transform, nbeats, moduledict, modulelist): an ordered list of named
// children, each run by the forward of its kind, registered with libtorch so that parameters,
// children, to() and train() see them. Subclasses define how the children combine (Run) and
// which names unnamed children get (DefaultName).
//
// Unlike libtorch's sequential, whose type-erased children need a forward of fixed signature,
// a k container can hold any kind, including other containers and kinds with several inputs or
// outputs. A container whose Run returns one tensor can itself be a child of a sequential
// (forward(x) below).
//
// Errors: kscope::Error naming the container ("fork: at most 2 child modules, given a 3rd",
// "seqjoin: needs a join module"). Thread-compatible, like any libtorch module.
#ifndef KSCOPE_API_NN_KTORCH_CONTAINER_H_
#define KSCOPE_API_NN_KTORCH_CONTAINER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <torch/nn/module.h>

#include "api/nn/module_kind.h"

namespace kscope::nn {

class KContainerImpl : public torch::nn::Module {
 public:
  struct Child {
    std::string name;
    const ModuleKind* kind;
    std::shared_ptr<torch::nn::Module> module;
  };

  // `kind` names the container in messages; at most `max_children` children (0: no limit).
  KContainerImpl(std::string kind, std::size_t max_children)
      : kind_(std::move(kind)), max_children_(max_children) {}

  // Adds a child under `name`, or under DefaultName(position) when `name` is empty; returns
  // the name used. Fails for a repeated name or one child too many.
  std::string Add(const std::string& name, const ModuleKind& kind,
                  std::shared_ptr<torch::nn::Module> child);

  // The container's computation on its inputs.
  virtual ModuleOutput Run(const std::vector<at::Tensor>& x) = 0;
  // Run on one tensor, for a k container inside a libtorch sequential.
  at::Tensor forward(const at::Tensor& x);

  const std::vector<Child>& entries() const { return children_; }
  const std::string& kind() const { return kind_; }

 protected:
  // The name of the child of `kind` added at `position` when none is given.
  virtual std::string DefaultName(std::size_t position, const ModuleKind& /*kind*/) const {
    return std::to_string(position);
  }
  // Child i run on x.
  ModuleOutput RunChild(std::size_t i, const std::vector<at::Tensor>& x) const;
  // Fails naming the container unless it has at least `n` children.
  void RequireChildren(std::size_t n) const;

 private:
  std::string kind_;
  std::size_t max_children_;
  std::vector<Child> children_;
};

// The tensors an output stands for: the one tensor, or all of them.
std::vector<at::Tensor> Tensors(ModuleOutput out);

}  // namespace kscope::nn

#endif  // KSCOPE_API_NN_KTORCH_CONTAINER_H_
