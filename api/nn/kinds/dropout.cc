// The dropout family: drop drop2d drop3d adrop fadrop, each with `p 0.5 and `inplace 0b
// (ktorch-api.md §2.1). Outside training they pass their input through; libtorch rejects a p
// outside [0,1] when the module is made.
#include <torch/nn/modules/dropout.h>

#include "api/nn/module_families.h"

namespace kscope::nn {
namespace {

template <typename Impl>
ModuleKind Dropout(std::string name) {
  return Leaf<Impl>(std::move(name), {{"p", OptionType::kDouble, 0.5}, Inplace()},
                    [](const OptionSet& o) {
                      return torch::nn::DropoutOptions(o.Double("p")).inplace(o.Bool("inplace"));
                    });
}

}  // namespace

std::vector<ModuleKind> DropoutKinds() {
  return {Dropout<torch::nn::DropoutImpl>("drop"), Dropout<torch::nn::Dropout2dImpl>("drop2d"),
          Dropout<torch::nn::Dropout3dImpl>("drop3d"),
          Dropout<torch::nn::AlphaDropoutImpl>("adrop"),
          Dropout<torch::nn::FeatureAlphaDropoutImpl>("fadrop")};
}

}  // namespace kscope::nn
