// The libtorch modules behind ktorch's k-api layers (ktorch-api.md §2.1 "k-api layers"; ktorch's
// docs/kmodules.rst), and the kind builder their tables share:
//   - KLayer<Impl>: the Cloneable base of every k-api layer, printing (str) as its kind and
//     options, "kscope::cat(dim=1)";
//   - KFunctionImpl: a layer without parameters or buffers that computes a function of its one or
//     two inputs, fixed when the layer is made (UnaryImpl, BinaryImpl);
//   - FunctionKind<Impl>: a leaf kind made as Impl(text, function(options)).
//
// Internal to api/nn. Layers with parameters or buffers register them in reset(), as
// Cloneable's clone() requires. Thread-compatible, like any libtorch module.
#ifndef KSCOPE_API_NN_KTORCH_LAYERS_H_
#define KSCOPE_API_NN_KTORCH_LAYERS_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>
#include <torch/nn/cloneable.h>

#include "api/nn/module_families.h"

namespace kscope::nn {

// How a k-api layer prints: "kscope::<kind>(<option>=<value>, ...)", every option shown.
std::string KLayerText(const OptionSet& o);

template <typename Impl>
class KLayer : public torch::nn::Cloneable<Impl> {
 public:
  explicit KLayer(std::string text) : text_(std::move(text)) {}
  void pretty_print(std::ostream& out) const override { out << text_; }

 private:
  std::string text_;
};

template <typename... Tensors>
class KFunctionImpl : public KLayer<KFunctionImpl<Tensors...>> {
 public:
  using Function = std::function<at::Tensor(const Tensors&...)>;
  static constexpr std::size_t kInputs = sizeof...(Tensors);

  KFunctionImpl(std::string text, Function f)
      : KLayer<KFunctionImpl>(std::move(text)), f_(std::move(f)) {}
  void reset() override {}
  at::Tensor forward(const Tensors&... x) { return f_(x...); }

 private:
  Function f_;
};

using UnaryImpl = KFunctionImpl<at::Tensor>;
using BinaryImpl = KFunctionImpl<at::Tensor, at::Tensor>;

// A leaf kind whose module is Impl(KLayerText(options), function(options)), taking Impl::kInputs
// tensors: `function` checks the options (failing naming the kind) and returns what the layer
// computes.
template <typename Impl, typename MakeFunction>
ModuleKind FunctionKind(std::string name, std::vector<OptionSpec> specs, MakeFunction function) {
  return LeafKind<Impl, Impl::kInputs>(
      std::move(name), std::move(specs),
      [function](const OptionSet& o) -> std::shared_ptr<torch::nn::Module> {
        return std::make_shared<Impl>(KLayerText(o), function(o));
      });
}

}  // namespace kscope::nn

#endif  // KSCOPE_API_NN_KTORCH_LAYERS_H_
