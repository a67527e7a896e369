// The pooling family (ktorch-api.md §2.1): maxpool1d/2d/3d (`size required, `stride = size,
// `pad 0, `dilate 1, `ceiling 0b), avgpool1d/2d/3d (`size, `stride = size, `pad 0, `ceiling 0b,
// `countpad 1b, `divisor null), adaptavg1d/2d/3d and adaptmax1d/2d/3d (`size required),
// fmaxpool2d/3d (`size required, then the output's `outsize or its `ratio to the input) and
// lppool1d/2d (`p and `size required, `stride = size, `ceiling 0b). Sizes are a long or one long
// per dimension, ratios one double or one per dimension. libtorch checks pooling windows only at
// forward; they are checked here when the module is made.
#include <torch/nn/modules/pooling.h>

#include "api/nn/module_families.h"

namespace kscope::nn {
namespace {

// A pooling window: `size, `stride (null: the size) and `pad, checked as libtorch would at
// forward (positive size and stride, pad from 0 to half the size).
template <std::size_t D>
struct Window {
  torch::ExpandingArray<D> size, stride, pad;
};

template <std::size_t D>
Window<D> WindowOf(const OptionSet& o) {
  AtLeast(o, "size", 1);
  AtLeast(o, "stride", 1);
  AtLeast(o, "pad", 0);
  const Window<D> w{Expand<D>(o, "size"), Expand<D>(o, o.IsNull("stride") ? "size" : "stride"),
                    Expand<D>(o, "pad")};
  for (std::size_t i = 0; i < D; ++i) {
    Check((*w.pad)[i] <= (*w.size)[i] / 2, o,
          "option `pad must be at most half of `size, given pad %d and size %d", (*w.pad)[i],
          (*w.size)[i]);
  }
  return w;
}

// `size, `stride and `pad, the options every max and average pool starts with.
std::vector<OptionSpec> WindowSpecs() {
  return {PerDimensionOption(Required("size", OptionType::kLongs)),
          StrideOfSize(OptionType::kLongsOrNull),
          PerDimensionOption({"pad", OptionType::kLongs, std::int64_t{0}})};
}

template <std::size_t D, typename Impl>
ModuleKind MaxPool(std::string name) {
  std::vector<OptionSpec> specs = WindowSpecs();
  specs.push_back(PerDimensionOption({"dilate", OptionType::kLongs, std::int64_t{1}}));
  specs.push_back({"ceiling", OptionType::kBool, false});
  return Leaf<Impl>(std::move(name), std::move(specs), [](const OptionSet& o) {
    const Window<D> w = WindowOf<D>(o);
    AtLeast(o, "dilate", 1);
    return torch::nn::MaxPoolOptions<D>(w.size)
        .stride(w.stride)
        .padding(w.pad)
        .dilation(Expand<D>(o, "dilate"))
        .ceil_mode(o.Bool("ceiling"));
  });
}

template <std::size_t D, typename Impl>
ModuleKind AvgPool(std::string name) {
  std::vector<OptionSpec> specs = WindowSpecs();
  specs.push_back({"ceiling", OptionType::kBool, false});
  specs.push_back({"countpad", OptionType::kBool, true});
  specs.push_back(TypedNullEcho({"divisor", OptionType::kLongOrNull, {}}));
  return Leaf<Impl>(std::move(name), std::move(specs), [](const OptionSet& o) {
    const Window<D> w = WindowOf<D>(o);
    const c10::optional<std::int64_t> divisor = Optional<std::int64_t>(o, "divisor");
    Check(divisor != 0, o, "option `divisor must not be 0");
    return torch::nn::AvgPoolOptions<D>(w.size)
        .stride(w.stride)
        .padding(w.pad)
        .ceil_mode(o.Bool("ceiling"))
        .count_include_pad(o.Bool("countpad"))
        .divisor_override(divisor);
  });
}

// adaptavg adaptmax: the output `size.
template <std::size_t D, typename Impl>
ModuleKind Adaptive(std::string name) {
  return Leaf<Impl>(std::move(name), {PerDimensionOption(Required("size", OptionType::kLongs))},
                    [](const OptionSet& o) {
                      AtLeast(o, "size", 0);
                      return decltype(Impl::options)(*Expand<D>(o, "size"));
                    });
}

// fmaxpool: windows of `size at pseudo-random steps, giving an output of `outsize or `ratio
// times the input (exactly one of them).
template <std::size_t D, typename Impl>
ModuleKind FractionalMaxPool(std::string name) {
  return Leaf<Impl>(
      std::move(name),
      {PerDimensionOption(Required("size", OptionType::kLongs)),
       PerDimensionOption({"outsize", OptionType::kLongsOrNull, {}}),
       PerDimensionOption({"ratio", OptionType::kDoublesOrNull, {}})},
      [](const OptionSet& o) {
        AtLeast(o, "size", 1);
        AtLeast(o, "outsize", 1);
        Check(o.IsNull("outsize") != o.IsNull("ratio"), o,
              "expecting one of options `outsize and `ratio, given %s",
              o.IsNull("outsize") ? "neither" : "both");
        torch::nn::FractionalMaxPoolOptions<D> options(Expand<D>(o, "size"));
        if (!o.IsNull("outsize")) return options.output_size(Expand<D>(o, "outsize"));
        const std::vector<double>& ratio = o.Doubles("ratio");
        Check(ratio.size() == 1 || ratio.size() == D, o,
              "option `ratio expects 1 or %d doubles, given %d", D, ratio.size());
        for (double r : ratio) {
          Check(r > 0 && r < 1, o, "option `ratio must be between 0 and 1 exclusive, given %g", r);
        }
        using Ratio = torch::ExpandingArray<D, double>;
        return options.output_ratio(ratio.size() == 1 ? Ratio(ratio[0]) : Ratio(ratio));
      });
}

// lppool: the `p-norm of each window of `size, stepping by `stride (null: the size).
template <std::size_t D, typename Impl>
ModuleKind PowerPool(std::string name) {
  return Leaf<Impl>(std::move(name),
                    {Required("p", OptionType::kDouble),
                     PerDimensionOption(Required("size", OptionType::kLongs)),
                     StrideOfSize(OptionType::kLongsOrNull),
                     {"ceiling", OptionType::kBool, false}},
                    [](const OptionSet& o) {
                      Check(o.Double("p") > 0, o, "option `p must be positive, given %g",
                            o.Double("p"));
                      AtLeast(o, "size", 1);
                      AtLeast(o, "stride", 1);
                      return torch::nn::LPPoolOptions<D>(o.Double("p"), Expand<D>(o, "size"))
                          .stride(Expand<D>(o, o.IsNull("stride") ? "size" : "stride"))
                          .ceil_mode(o.Bool("ceiling"));
                    });
}

}  // namespace

std::vector<ModuleKind> PoolKinds() {
  namespace tnn = torch::nn;
  return {MaxPool<1, tnn::MaxPool1dImpl>("maxpool1d"),
          MaxPool<2, tnn::MaxPool2dImpl>("maxpool2d"),
          MaxPool<3, tnn::MaxPool3dImpl>("maxpool3d"),
          AvgPool<1, tnn::AvgPool1dImpl>("avgpool1d"),
          AvgPool<2, tnn::AvgPool2dImpl>("avgpool2d"),
          AvgPool<3, tnn::AvgPool3dImpl>("avgpool3d"),
          Adaptive<1, tnn::AdaptiveAvgPool1dImpl>("adaptavg1d"),
          Adaptive<2, tnn::AdaptiveAvgPool2dImpl>("adaptavg2d"),
          Adaptive<3, tnn::AdaptiveAvgPool3dImpl>("adaptavg3d"),
          Adaptive<1, tnn::AdaptiveMaxPool1dImpl>("adaptmax1d"),
          Adaptive<2, tnn::AdaptiveMaxPool2dImpl>("adaptmax2d"),
          Adaptive<3, tnn::AdaptiveMaxPool3dImpl>("adaptmax3d"),
          FractionalMaxPool<2, tnn::FractionalMaxPool2dImpl>("fmaxpool2d"),
          FractionalMaxPool<3, tnn::FractionalMaxPool3dImpl>("fmaxpool3d"),
          PowerPool<1, tnn::LPPool1dImpl>("lppool1d"),
          PowerPool<2, tnn::LPPool2dImpl>("lppool2d")};
}

}  // namespace kscope::nn
