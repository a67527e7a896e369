// The resampling family (ktorch-api.md §2.1): upsample (`size or `scale, `mode `nearest, or
// `linear `bilinear `bicubic `trilinear, and `align 0b), interpolate (the same options, the modes
// `nearestexact and `area too, and `rescale 0b: recompute the scale from the output size), fold
// (`out and `size required, `dilate 1, `pad 0, `stride 1) and unfold (`size required, `dilate 1,
// `pad 0, `stride 1).
//
// `size and `scale give one value per spatial dimension; the linear modes know how many they
// have, so for them a single value stands for all. `align (libtorch's align_corners) applies to
// the linear modes only.
#include <ostream>
#include <type_traits>

#include <torch/nn/cloneable.h>
#include <torch/nn/functional/upsampling.h>
#include <torch/nn/modules/fold.h>
#include <torch/nn/modules/upsampling.h>

#include "api/nn/module_families.h"

namespace kscope::nn {
namespace {

namespace F = torch::nn::functional;

// libtorch's variants of modes (UpsampleOptions keeps its mode_t private).
using UpsampleModes = std::decay_t<decltype(torch::nn::UpsampleOptions().mode())>;
using InterpolateModes = std::decay_t<decltype(F::InterpolateFuncOptions().mode())>;

// interpolate: libtorch has the function, not a module.
class InterpolateImpl : public torch::nn::Cloneable<InterpolateImpl> {
 public:
  explicit InterpolateImpl(F::InterpolateFuncOptions options) : options(std::move(options)) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override {
    stream << "kscope::Interpolate(mode=" << torch::enumtype::get_enum_name(options.mode()) << ")";
  }
  at::Tensor forward(const at::Tensor& x) { return F::interpolate(x, options); }

  F::InterpolateFuncOptions options;
};

// The spatial dimensions of a linear mode (linear bilinear bicubic trilinear); 0 for the others,
// which take the input's.
std::size_t LinearDims(const std::string& mode) {
  if (mode == "linear") return 1;
  if (mode == "bilinear" || mode == "bicubic") return 2;
  if (mode == "trilinear") return 3;
  return 0;
}

// The modes upsample and interpolate share, as libtorch's Mode variant; nullopt for others.
template <typename Mode>
c10::optional<Mode> SharedMode(const std::string& name) {
  if (name == "nearest") return Mode(torch::kNearest);
  if (name == "linear") return Mode(torch::kLinear);
  if (name == "bilinear") return Mode(torch::kBilinear);
  if (name == "bicubic") return Mode(torch::kBicubic);
  if (name == "trilinear") return Mode(torch::kTrilinear);
  return c10::nullopt;
}

UpsampleModes UpsampleMode(const OptionSet& o) {
  const std::string& name = o.Symbol("mode");
  if (auto mode = SharedMode<UpsampleModes>(name)) return *mode;
  Fail("%s: unrecognized mode `%s, expecting nearest, linear, bilinear, bicubic or trilinear",
       o.kind(), name);
}

InterpolateModes InterpolateMode(const OptionSet& o) {
  const std::string& name = o.Symbol("mode");
  if (name == "nearestexact") return torch::kNearestExact;
  if (name == "area") return torch::kArea;
  if (auto mode = SharedMode<InterpolateModes>(name)) return *mode;
  Fail(
      "%s: unrecognized mode `%s, expecting nearest, linear, bilinear, bicubic, trilinear, "
      "nearestexact or area",
      o.kind(), name);
}

// Option `name`'s values for `dims spatial dimensions (a single value repeated), or as given
// when dims is 0.
template <typename T>
std::vector<T> PerDimension(const OptionSet& o, const char* name, const std::vector<T>& values,
                            std::size_t dims) {
  Check(!values.empty(), o, "option `%s is empty", name);
  if (dims == 0 || values.size() == dims) return values;
  Check(values.size() == 1, o, "option `%s expects 1 or %d values for mode `%s, given %d", name,
        dims, o.Symbol("mode"), values.size());
  return std::vector<T>(dims, values[0]);
}

// The output's `size or `scale (exactly one) and `align, checked against the mode.
struct Resize {
  c10::optional<std::vector<std::int64_t>> size;
  c10::optional<std::vector<double>> scale;
  c10::optional<bool> align;
};

Resize ResizeOf(const OptionSet& o) {
  const bool sized = !o.IsNull("size");
  Check(sized == o.IsNull("scale"), o, "expecting one of options `size and `scale, given %s",
        sized ? "both" : "neither");
  const std::string& mode = o.Symbol("mode");
  const std::size_t dims = LinearDims(mode);
  Resize r;
  if (sized) {
    AtLeast(o, "size", 1);
    r.size = PerDimension(o, "size", o.Longs("size"), dims);
  } else {
    for (double s : o.Doubles("scale"))
      Check(s > 0, o, "option `scale must be positive, given %g", s);
    r.scale = PerDimension(o, "scale", o.Doubles("scale"), dims);
  }
  if (dims > 0) {
    r.align = o.Bool("align");
  } else {
    Check(!o.Bool("align"), o,
          "option `align applies to modes linear, bilinear, bicubic and trilinear, not `%s", mode);
  }
  return r;
}

std::vector<OptionSpec> ResizeSpecs() {
  return {{"size", OptionType::kLongsOrNull, {}},
          {"scale", OptionType::kDoublesOrNull, {}},
          {"mode", OptionType::kSymbol, std::string("nearest")},
          {"align", OptionType::kBool, false}};
}

ModuleKind Upsample() {
  return Leaf<torch::nn::UpsampleImpl>("upsample", ResizeSpecs(), [](const OptionSet& o) {
    const UpsampleModes mode = UpsampleMode(o);
    const Resize r = ResizeOf(o);
    return torch::nn::UpsampleOptions().size(r.size).scale_factor(r.scale).mode(mode).align_corners(
        r.align);
  });
}

ModuleKind Interpolate() {
  std::vector<OptionSpec> specs = ResizeSpecs();
  specs.push_back({"rescale", OptionType::kBool, false});
  return Leaf<InterpolateImpl>("interpolate", std::move(specs), [](const OptionSet& o) {
    const InterpolateModes mode = InterpolateMode(o);
    const Resize r = ResizeOf(o);
    Check(!(o.Bool("rescale") && r.size), o, "option `rescale needs `scale, not `size");
    return F::InterpolateFuncOptions()
        .size(r.size)
        .scale_factor(r.scale)
        .mode(mode)
        .align_corners(r.align)
        .recompute_scale_factor(o.Bool("rescale"));
  });
}

// `dilate `pad `stride, after the block `size, as fold and unfold share them.
std::vector<OptionSpec> BlockSpecs() {
  return {PerDimensionOption(Required("size", OptionType::kLongs)),
          PerDimensionOption({"dilate", OptionType::kLongs, std::int64_t{1}}),
          PerDimensionOption({"pad", OptionType::kLongs, std::int64_t{0}}),
          PerDimensionOption({"stride", OptionType::kLongs, std::int64_t{1}})};
}

// `options with the checked `dilate, `pad and `stride.
template <typename Options>
Options WithBlocks(const OptionSet& o, Options options) {
  for (const char* positive : {"size", "dilate", "stride"}) AtLeast(o, positive, 1);
  AtLeast(o, "pad", 0);
  return options.dilation(Expand<2>(o, "dilate"))
      .padding(Expand<2>(o, "pad"))
      .stride(Expand<2>(o, "stride"));
}

ModuleKind Fold() {
  std::vector<OptionSpec> specs = BlockSpecs();
  specs.insert(specs.begin(), PerDimensionOption(Required("out", OptionType::kLongs)));
  return Leaf<torch::nn::FoldImpl>("fold", std::move(specs), [](const OptionSet& o) {
    AtLeast(o, "out", 1);
    return WithBlocks(o, torch::nn::FoldOptions(Expand<2>(o, "out"), Expand<2>(o, "size")));
  });
}

ModuleKind Unfold() {
  return Leaf<torch::nn::UnfoldImpl>("unfold", BlockSpecs(), [](const OptionSet& o) {
    return WithBlocks(o, torch::nn::UnfoldOptions(Expand<2>(o, "size")));
  });
}

}  // namespace

std::vector<ModuleKind> ResampleKinds() { return {Upsample(), Interpolate(), Fold(), Unfold()}; }

}  // namespace kscope::nn
