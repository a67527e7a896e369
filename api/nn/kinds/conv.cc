// The convolution family: conv1d conv2d conv3d with ktorch's options `in `out `size (required),
// `stride 1, `pad 0 (or `same / `valid), `dilate 1, `groups 1, `bias 1b, `padmode `zeros
// (ktorch-api.md §2.1); size, stride, pad and dilate are a long or one long per dimension.
// convtranspose1d/2d/3d take `in `out `size (required), `stride 1, `pad 0, `outpad 0, `groups 1,
// `bias 1b, `dilate 1, `padmode `zeros (the only mode libtorch's transposed convolutions run).
#include <torch/nn/modules/conv.h>

#include "api/nn/module_families.h"

namespace kscope::nn {
namespace {

// `pad: `same, `valid, or the padding of each dimension.
template <std::size_t D>
torch::nn::detail::conv_padding_t<D> Padding(const OptionSet& o) {
  if (const auto* s = std::get_if<std::string>(&o.At("pad"))) {
    if (*s == "same") return torch::kSame;
    if (*s == "valid") return torch::kValid;
    Fail("%s: unrecognized pad `%s, expecting same or valid", o.kind(), *s);
  }
  AtLeast(o, "pad", 0);
  return Expand<D>(o, "pad");
}

torch::nn::detail::conv_padding_mode_t PaddingMode(const OptionSet& o) {
  const std::string& mode = o.Symbol("padmode");
  if (mode == "zeros") return torch::kZeros;
  if (mode == "reflect") return torch::kReflect;
  if (mode == "replicate") return torch::kReplicate;
  if (mode == "circular") return torch::kCircular;
  Fail("%s: unrecognized padmode `%s, expecting zeros, reflect, replicate or circular", o.kind(),
       mode);
}

template <std::size_t D, typename Impl>
ModuleKind Conv(std::string name) {
  return Leaf<Impl>(
      std::move(name),
      {Required("in", OptionType::kLong),
       Required("out", OptionType::kLong),
       PerDimensionOption(Required("size", OptionType::kLongs)),
       PerDimensionOption({"stride", OptionType::kLongs, std::int64_t{1}}),
       PerDimensionOption({"pad", OptionType::kLongsOrSymbol, std::int64_t{0}}),
       PerDimensionOption({"dilate", OptionType::kLongs, std::int64_t{1}}),
       {"groups", OptionType::kLong, std::int64_t{1}},
       {"bias", OptionType::kBool, true},
       {"padmode", OptionType::kSymbol, std::string("zeros")}},
      [](const OptionSet& o) {
        for (const char* positive : {"in", "out", "size", "stride", "dilate", "groups"})
          AtLeast(o, positive, 1);
        return torch::nn::ConvOptions<D>(o.Long("in"), o.Long("out"), Expand<D>(o, "size"))
            .stride(Expand<D>(o, "stride"))
            .padding(Padding<D>(o))
            .dilation(Expand<D>(o, "dilate"))
            .groups(o.Long("groups"))
            .bias(o.Bool("bias"))
            .padding_mode(PaddingMode(o));
      });
}

template <std::size_t D, typename Impl>
ModuleKind ConvTranspose(std::string name) {
  return Leaf<Impl>(
      std::move(name),
      {Required("in", OptionType::kLong),
       Required("out", OptionType::kLong),
       PerDimensionOption(Required("size", OptionType::kLongs)),
       PerDimensionOption({"stride", OptionType::kLongs, std::int64_t{1}}),
       PerDimensionOption({"pad", OptionType::kLongs, std::int64_t{0}}),
       PerDimensionOption({"outpad", OptionType::kLongs, std::int64_t{0}}),
       {"groups", OptionType::kLong, std::int64_t{1}},
       {"bias", OptionType::kBool, true},
       PerDimensionOption({"dilate", OptionType::kLongs, std::int64_t{1}}),
       {"padmode", OptionType::kSymbol, std::string("zeros")}},
      [](const OptionSet& o) {
        for (const char* positive : {"in", "out", "size", "stride", "dilate", "groups"})
          AtLeast(o, positive, 1);
        for (const char* natural : {"pad", "outpad"}) AtLeast(o, natural, 0);
        const std::string& mode = o.Symbol("padmode");
        Check(mode == "zeros", o,
              "unsupported padmode `%s, transposed convolutions only pad with zeros", mode);
        const torch::ExpandingArray<D> stride = Expand<D>(o, "stride"),
                                       outpad = Expand<D>(o, "outpad"),
                                       dilate = Expand<D>(o, "dilate");
        for (std::size_t i = 0; i < D; ++i) {
          Check((*outpad)[i] < (*stride)[i] || (*outpad)[i] < (*dilate)[i], o,
                "option `outpad must be smaller than `stride or `dilate, given outpad %d, stride "
                "%d and dilate %d",
                (*outpad)[i], (*stride)[i], (*dilate)[i]);
        }
        return torch::nn::ConvTransposeOptions<D>(o.Long("in"), o.Long("out"), Expand<D>(o, "size"))
            .stride(stride)
            .padding(Expand<D>(o, "pad"))
            .output_padding(outpad)
            .groups(o.Long("groups"))
            .bias(o.Bool("bias"))
            .dilation(dilate);
      });
}

}  // namespace

std::vector<ModuleKind> ConvKinds() {
  namespace tnn = torch::nn;
  return {Conv<1, tnn::Conv1dImpl>("conv1d"),
          Conv<2, tnn::Conv2dImpl>("conv2d"),
          Conv<3, tnn::Conv3dImpl>("conv3d"),
          ConvTranspose<1, tnn::ConvTranspose1dImpl>("convtranspose1d"),
          ConvTranspose<2, tnn::ConvTranspose2dImpl>("convtranspose2d"),
          ConvTranspose<3, tnn::ConvTranspose3dImpl>("convtranspose3d")};
}

}  // namespace kscope::nn
