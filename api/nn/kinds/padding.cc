// The padding family (ktorch-api.md §2.1): pad1d pad2d pad3d (`pad and the constant `value,
// both required), reflect1d reflect2d, replicate1d replicate2d replicate3d and zeropad2d
// (`pad required). `pad is one long for every side, or two per padded dimension, last dimension
// first (left right, then top bottom, then front back); negative values crop.
#include <torch/nn/modules/padding.h>

#include "api/nn/module_families.h"

namespace kscope::nn {
namespace {

OptionSpec Pad() { return PerDimensionOption(Required("pad", OptionType::kLongs)); }

// reflect replicate zeropad: `pad only, over D dimensions.
template <std::size_t D, typename Impl>
ModuleKind PadOnly(std::string name) {
  return Leaf<Impl>(std::move(name), {Pad()}, [](const OptionSet& o) {
    return decltype(Impl::options)(Expand<2 * D>(o, "pad"));
  });
}

template <std::size_t D, typename Impl>
ModuleKind Constant(std::string name) {
  return Leaf<Impl>(std::move(name), {Pad(), Required("value", OptionType::kDouble)},
                    [](const OptionSet& o) {
                      return decltype(Impl::options)(Expand<2 * D>(o, "pad"), o.Double("value"));
                    });
}

}  // namespace

std::vector<ModuleKind> PaddingKinds() {
  namespace tnn = torch::nn;
  return {Constant<1, tnn::ConstantPad1dImpl>("pad1d"),
          Constant<2, tnn::ConstantPad2dImpl>("pad2d"),
          Constant<3, tnn::ConstantPad3dImpl>("pad3d"),
          PadOnly<1, tnn::ReflectionPad1dImpl>("reflect1d"),
          PadOnly<2, tnn::ReflectionPad2dImpl>("reflect2d"),
          PadOnly<1, tnn::ReplicationPad1dImpl>("replicate1d"),
          PadOnly<2, tnn::ReplicationPad2dImpl>("replicate2d"),
          PadOnly<3, tnn::ReplicationPad3dImpl>("replicate3d"),
          PadOnly<2, tnn::ZeroPad2dImpl>("zeropad2d")};
}

}  // namespace kscope::nn
