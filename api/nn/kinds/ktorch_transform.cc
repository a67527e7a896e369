// The k-api transform layers (ktorch-api.md §2.1 "k-api layers"):
//   - onehot (`classes -1: the largest index + 1, `dtype null: torch's default dtype when the layer
//   runs);
//   - pad (`pad req: an even count of longs, last dimension first; `mode constant, reflect,
//     replicate or circular; `value 0);
//   - randomcrop (`size req: 1 or 2 longs, rows and columns; `pad 0: 1 or 4 longs, left right top
//     bottom; `padmode constant; `value 0): pads the last two dimensions, then crops a window of
//     `size at one random offset for the whole input;
//   - randomflip (`p 0.5, `dim -1): flips the whole input along `dim with probability p;
//   - zscore (`mean, `std req, one value per channel or one for all; `inplace 0b): (x-mean)/std
//     per channel, dimension 1 of input with more than 1 dimension; mean and std are buffers;
//   - droppath (`p req, below 1): stochastic depth, each sample (dimension 0) zeroed with
//     probability p and the rest scaled by 1/(1-p).
// randomcrop, randomflip and droppath act in training only: outside it the input passes through.
#include <algorithm>
#include <cstdint>

#include <ATen/ops/empty.h>
#include <ATen/ops/one_hot.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/tensor.h>
#include <c10/core/DefaultDtype.h>
#include <torch/nn/functional/padding.h>

#include "api/nn/ktorch_layers.h"
#include "runtime/names.h"

namespace kscope::nn {
namespace {

namespace F = torch::nn::functional;
using X = const at::Tensor&;

// A random transform: applies its function in training, passes the input through outside it.
class TrainingOnlyImpl : public KLayer<TrainingOnlyImpl> {
 public:
  using Function = std::function<at::Tensor(X)>;
  static constexpr std::size_t kInputs = 1;

  TrainingOnlyImpl(std::string text, Function f) : KLayer(std::move(text)), f_(std::move(f)) {}
  void reset() override {}
  at::Tensor forward(X x) { return is_training() ? f_(x) : x; }

 private:
  Function f_;
};

class ZScoreImpl : public KLayer<ZScoreImpl> {
 public:
  ZScoreImpl(std::string text, std::vector<double> mean, std::vector<double> std, bool inplace)
      : KLayer(std::move(text)),
        mean_values_(std::move(mean)),
        std_values_(std::move(std)),
        inplace_(inplace) {
    reset();
  }
  void reset() override {
    const auto dtype = at::TensorOptions().dtype(c10::get_default_dtype());
    mean_ = register_buffer("mean", at::tensor(mean_values_, dtype));
    std_ = register_buffer("std", at::tensor(std_values_, dtype));
  }
  at::Tensor forward(X x) {
    const at::Tensor mean = PerChannel(mean_, x), std = PerChannel(std_, x);
    return inplace_ ? x.sub_(mean).div_(std) : x.sub(mean).div(std);
  }

 private:
  // v, one value per channel (or one for all), shaped to broadcast over x's channels and in x's
  // dtype.
  static at::Tensor PerChannel(const at::Tensor& v, X x) {
    const std::int64_t channels = x.dim() > 1 ? x.size(1) : x.numel();
    if (v.numel() != 1 && v.numel() != channels) {
      Fail("zscore: %d means and deviations given for input of %d channels", v.numel(), channels);
    }
    std::vector<std::int64_t> shape(std::max<std::int64_t>(x.dim() - 1, 1), 1);
    shape[0] = v.numel();
    return v.to(x.scalar_type()).view(shape);
  }

  std::vector<double> mean_values_, std_values_;
  bool inplace_;
  at::Tensor mean_, std_;
};

// Option `name` (constant reflect replicate circular) as functional pad's mode.
F::PadFuncOptions::mode_t PadMode(const OptionSet& o, const char* name) {
  const std::string& mode = o.Symbol(name);
  if (mode == "constant") return torch::kConstant;
  if (mode == "reflect") return torch::kReflect;
  if (mode == "replicate") return torch::kReplicate;
  if (mode == "circular") return torch::kCircular;
  Fail("%s: unrecognized %s `%s, expecting constant, reflect, replicate or circular", o.kind(),
       name, mode);
}

ModuleKind OneHot() {
  return FunctionKind<UnaryImpl>(
      "onehot",
      {{"classes", OptionType::kLong, std::int64_t{-1}}, {"dtype", OptionType::kSymbolOrNull, {}}},
      [](const OptionSet& o) {  // classes -1: one more than the largest index given
        AtLeast(o, "classes", -1);
        c10::optional<c10::ScalarType> dtype;
        if (!o.IsNull("dtype")) {
          const std::optional<c10::ScalarType> named = DtypeFromName(o.Symbol("dtype"));
          Check(named.has_value(), o, "unrecognized dtype `%s", o.Symbol("dtype"));
          dtype = *named;
        }
        return [classes = o.Long("classes"), dtype](X x) {
          return at::one_hot(x, classes).to(dtype.value_or(c10::get_default_dtype_as_scalartype()));
        };
      });
}

ModuleKind Pad() {
  return FunctionKind<UnaryImpl>(
      "pad",
      {Required("pad", OptionType::kLongs),
       {"mode", OptionType::kSymbol, std::string("constant")},
       {"value", OptionType::kDouble, 0.0}},
      [](const OptionSet& o) {
        const std::vector<std::int64_t>& pad = o.Longs("pad");
        Check(pad.size() % 2 == 0, o, "option `pad expects an even number of longs, given %d",
              pad.size());
        return [options = F::PadFuncOptions(pad).mode(PadMode(o, "mode")).value(o.Double("value"))](
                   X x) { return F::pad(x, options); };
      });
}

// A random offset in [0, n].
std::int64_t RandomOffset(std::int64_t n) {
  return at::randint(n + 1, {1}, at::kLong).item<std::int64_t>();
}

ModuleKind RandomCrop() {
  return FunctionKind<TrainingOnlyImpl>(
      "randomcrop",
      {PerDimensionOption(Required("size", OptionType::kLongs)),
       PerDimensionOption({"pad", OptionType::kLongs, std::int64_t{0}}),
       {"padmode", OptionType::kSymbol, std::string("constant")},
       {"value", OptionType::kDouble, 0.0}},
      [](const OptionSet& o) {
        AtLeast(o, "size", 1);
        AtLeast(o, "pad", 0);
        const std::vector<std::int64_t>& size = Sized(o, "size", 2);
        const std::vector<std::int64_t>& pad = Sized(o, "pad", 4);
        const std::int64_t rows = size.front(), cols = size.back();
        const bool padded =
            std::any_of(pad.begin(), pad.end(), [](std::int64_t p) { return p > 0; });
        auto padding =
            F::PadFuncOptions(pad.size() == 1 ? std::vector<std::int64_t>(4, pad[0]) : pad)
                .mode(PadMode(o, "padmode"))
                .value(o.Double("value"));
        return [rows, cols, padded, padding](X x) {
          if (x.dim() < 2)
            Fail("randomcrop: expects input of at least 2 dimensions, given %d", x.dim());
          const at::Tensor y = padded ? F::pad(x, padding) : x;
          if (y.size(-2) < rows || y.size(-1) < cols) {
            Fail("randomcrop: crop of %d x %d larger than padded input of %d x %d", rows, cols,
                 y.size(-2), y.size(-1));
          }
          const std::int64_t i = RandomOffset(y.size(-2) - rows),
                             j = RandomOffset(y.size(-1) - cols);
          return y.narrow(-2, i, rows).narrow(-1, j, cols);
        };
      });
}

ModuleKind RandomFlip() {
  return FunctionKind<TrainingOnlyImpl>(
      "randomflip", {{"p", OptionType::kDouble, 0.5}, {"dim", OptionType::kLong, std::int64_t{-1}}},
      [](const OptionSet& o) {
        const double p = o.Double("p");
        Check(p >= 0 && p <= 1, o, "option `p must be between 0 and 1, given %g", p);
        return [p, dim = o.Long("dim")](X x) {
          return at::rand({}).item<double>() < p ? x.flip(dim) : x;
        };
      });
}

ModuleKind ZScore() {
  return LeafKind<ZScoreImpl>(
      "zscore",
      {Required("mean", OptionType::kDoublesOrNull), Required("std", OptionType::kDoublesOrNull),
       Inplace()},
      [](const OptionSet& o) -> std::shared_ptr<torch::nn::Module> {
        for (const char* name : {"mean", "std"})
          Check(!o.IsNull(name), o, "option `%s required", name);
        const std::vector<double>& mean = o.Doubles("mean");
        const std::vector<double>& std = o.Doubles("std");
        Check(!mean.empty() && mean.size() == std.size(), o,
              "options `mean and `std expect the same number of values, given %d and %d",
              mean.size(), std.size());
        for (double s : std) Check(s > 0, o, "option `std must be positive, given %g", s);
        return std::make_shared<ZScoreImpl>(KLayerText(o), mean, std, o.Bool("inplace"));
      });
}

ModuleKind DropPath() {
  return FunctionKind<TrainingOnlyImpl>(
      "droppath", {Required("p", OptionType::kDouble)}, [](const OptionSet& o) {
        const double p = o.Double("p");
        Check(p >= 0 && p < 1, o, "option `p must be at least 0 and below 1, given %g", p);
        return [keep = 1 - p](X x) {
          if (x.dim() == 0) Fail("droppath: expects input with a batch dimension, given a scalar");
          std::vector<std::int64_t> shape(x.dim(), 1);
          shape[0] = x.size(0);
          return x.div(keep).mul(at::empty(shape, x.options()).bernoulli_(keep));
        };
      });
}

}  // namespace

std::vector<ModuleKind> KTransformKinds() {
  return {OneHot(), Pad(), RandomCrop(), RandomFlip(), ZScore(), DropPath()};
}

}  // namespace kscope::nn
