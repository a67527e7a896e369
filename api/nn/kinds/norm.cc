// The normalization family (ktorch-api.md §2.1): batchnorm1d/2d/3d (`in required, `eps 1e-5,
// `momentum 0.1, `affine 1b, `track 1b), instancenorm1d/2d/3d (the same options, `affine and
// `track 0b), groupnorm (`groups, `channels required, `eps 1e-5, `affine 1b), layernorm
// (`shape required, `eps 1e-5, `affine 1b), and localnorm and crossmap2d, normalization across
// the channels near each one (`size required, `alpha 1e-4, `beta 0.75, `k 1; crossmap2d's `k is
// a long, as in libtorch). crossmap2d is libtorch's CrossMapLRN2d as ktorch runs it, including
// its windows' off-by-one (channel 0 stays in the window of every later channel).
#include <type_traits>

#include <torch/nn/functional/instancenorm.h>  // instancenorm.h uses it without including it
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/instancenorm.h>
#include <torch/nn/modules/normalization.h>

#include "api/nn/module_families.h"

namespace kscope::nn {
namespace {

OptionSpec Eps() { return {"eps", OptionType::kDouble, 1e-5}; }

// batchnorm and instancenorm: libtorch's BatchNormOptions and InstanceNormOptions share their
// setters; `affine and `track default to `stats.
template <typename Impl>
ModuleKind RunningNorm(std::string name, bool stats) {
  return Leaf<Impl>(std::move(name),
                    {Required("in", OptionType::kLong),
                     Eps(),
                     {"momentum", OptionType::kDouble, 0.1},
                     {"affine", OptionType::kBool, stats},
                     {"track", OptionType::kBool, stats}},
                    [](const OptionSet& o) {
                      return decltype(Impl::options)(o.Long("in"))
                          .eps(o.Double("eps"))
                          .momentum(o.Double("momentum"))
                          .affine(o.Bool("affine"))
                          .track_running_stats(o.Bool("track"));
                    });
}

// localnorm crossmap2d: a window of `size channels; `k is a K (double, or long for crossmap2d).
template <typename Impl, typename K>
ModuleKind AcrossChannels(std::string name) {
  constexpr OptionType k_type = std::is_same_v<K, double> ? OptionType::kDouble : OptionType::kLong;
  return Leaf<Impl>(std::move(name),
                    {Required("size", OptionType::kLong),
                     {"alpha", OptionType::kDouble, 1e-4},
                     {"beta", OptionType::kDouble, 0.75},
                     {"k", k_type, K{1}}},
                    [](const OptionSet& o) {
                      AtLeast(o, "size", 1);
                      return decltype(Impl::options)(o.Long("size"))
                          .alpha(o.Double("alpha"))
                          .beta(o.Double("beta"))
                          .k(std::get<K>(o.At("k")));
                    });
}

}  // namespace

std::vector<ModuleKind> NormKinds() {
  namespace tnn = torch::nn;
  std::vector<ModuleKind> kinds = {RunningNorm<tnn::BatchNorm1dImpl>("batchnorm1d", true),
                                   RunningNorm<tnn::BatchNorm2dImpl>("batchnorm2d", true),
                                   RunningNorm<tnn::BatchNorm3dImpl>("batchnorm3d", true),
                                   RunningNorm<tnn::InstanceNorm1dImpl>("instancenorm1d", false),
                                   RunningNorm<tnn::InstanceNorm2dImpl>("instancenorm2d", false),
                                   RunningNorm<tnn::InstanceNorm3dImpl>("instancenorm3d", false)};
  kinds.push_back(Leaf<tnn::GroupNormImpl>(
      "groupnorm",
      {Required("groups", OptionType::kLong),
       Required("channels", OptionType::kLong),
       Eps(),
       {"affine", OptionType::kBool, true}},
      [](const OptionSet& o) {
        AtLeast(o, "groups", 1);
        const std::int64_t groups = o.Long("groups"), channels = o.Long("channels");
        Check(channels % groups == 0, o,
              "option `channels must be divisible by `groups, given %d and %d", channels, groups);
        return tnn::GroupNormOptions(groups, channels)
            .eps(o.Double("eps"))
            .affine(o.Bool("affine"));
      }));
  kinds.push_back(Leaf<tnn::LayerNormImpl>(
      "layernorm",
      {Required("shape", OptionType::kLongs), Eps(), {"affine", OptionType::kBool, true}},
      [](const OptionSet& o) {
        AtLeast(o, "shape", 0);
        return tnn::LayerNormOptions(o.Longs("shape"))
            .eps(o.Double("eps"))
            .elementwise_affine(o.Bool("affine"));
      }));
  kinds.push_back(AcrossChannels<tnn::LocalResponseNormImpl, double>("localnorm"));
  kinds.push_back(AcrossChannels<tnn::CrossMapLRN2dImpl, std::int64_t>("crossmap2d"));
  return kinds;
}

}  // namespace kscope::nn
