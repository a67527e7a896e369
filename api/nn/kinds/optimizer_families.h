// What the entries of the optimizer table share (kinds/optimizers.cc holds the table and the
// kinds sgd adam adamw adagrad rmsprop; kinds/lbfgs.cc and kinds/lamb.cc one kind each):
// building a kind over a libtorch optimizer class, and the helpers that save its state.
// Internal to api/ (libtorch's optim headers). Stateless; thread-safe.
#ifndef KSCOPE_API_NN_KINDS_OPTIMIZER_FAMILIES_H_
#define KSCOPE_API_NN_KINDS_OPTIMIZER_FAMILIES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/util/Type.h>

#include "absl/types/span.h"
#include "api/nn/kinds/multi_tensor.h"
#include "api/nn/optimizer_kind.h"

namespace kscope::nn {

// The class an optimizer of class Impl shows in str(): libtorch's for a MultiTensor over it.
template <typename Impl>
struct ShownClass {
  using type = Impl;
};
template <typename Base>
struct ShownClass<MultiTensor<Base>> {
  using type = Base;
};

// A kind whose libtorch optimizer is Impl with options ImplOptions made by `convert`.
template <typename Impl, typename ImplOptions>
OptimizerKind MakeOptimizerKind(std::string name, std::vector<OptionSpec> options,
                                std::vector<std::string> buffers,
                                ImplOptions (*convert)(const OptionSet&)) {
  OptimizerKind kind;
  kind.name = std::move(name);
  kind.class_name = c10::demangle(typeid(typename ShownClass<Impl>::type).name());
  kind.options = std::move(options);
  kind.buffers = std::move(buffers);
  kind.make = [convert](std::vector<torch::optim::OptimizerParamGroup> groups,
                        const OptionSet& o) -> std::shared_ptr<torch::optim::Optimizer> {
    return std::make_shared<Impl>(std::move(groups), convert(o));
  };
  kind.group_options =
      [convert](const OptionSet& o) -> std::unique_ptr<torch::optim::OptimizerOptions> {
    return std::make_unique<ImplOptions>(convert(o));
  };
  return kind;
}

// The defined tensors among `tensors` (state buffers a configuration does not use stay
// undefined).
std::vector<at::Tensor> DefinedTensors(absl::Span<const at::Tensor> tensors);
// Saved buffers: counts and values as scalars, tensors as copies (undefined ones left out).
at::Tensor CountBuffer(std::int64_t n);
at::Tensor ValueBuffer(double v);
void PutBuffer(OptimizerBuffers* buffers, const char* name, const at::Tensor& t);

OptimizerKind LbfgsKind();
OptimizerKind LambKind();

}  // namespace kscope::nn

#endif  // KSCOPE_API_NN_KINDS_OPTIMIZER_FAMILIES_H_
