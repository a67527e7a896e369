// The activation family: elementwise nonlinearities and the softmax-like functions over a
// dimension, with ktorch's option names, order and defaults (ktorch-api.md §2.1).
#include <torch/nn/modules/activation.h>

#include "api/nn/module_families.h"

namespace kscope::nn {
namespace {

// relu relu6 selu: `inplace only.
template <typename Impl, typename Options>
ModuleKind InplaceOnly(std::string name) {
  return Leaf<Impl>(std::move(name), {Inplace()},
                    [](const OptionSet& o) { return Options(o.Bool("inplace")); });
}

// softmax softmin logsoftmax (`dim required) and glu (`dim -1).
template <typename Impl, typename Options>
ModuleKind OverDim(std::string name, OptionSpec dim) {
  return Leaf<Impl>(std::move(name), {dim},
                    [](const OptionSet& o) { return Options(o.Long("dim")); });
}

// elu celu: `alpha 1.0, `inplace.
std::vector<OptionSpec> AlphaSpecs() { return {{"alpha", OptionType::kDouble, 1.0}, Inplace()}; }
template <typename Options>
Options Alpha(const OptionSet& o) {
  return Options().alpha(o.Double("alpha")).inplace(o.Bool("inplace"));
}

// hardshrink softshrink: `lambda 0.5.
std::vector<OptionSpec> LambdaSpecs() { return {{"lambda", OptionType::kDouble, 0.5}}; }

}  // namespace

std::vector<ModuleKind> ActivationKinds() {
  namespace tnn = torch::nn;
  std::vector<ModuleKind> kinds;
  kinds.push_back(Plain<tnn::SigmoidImpl>("sigmoid"));
  kinds.push_back(Plain<tnn::TanhImpl>("tanh"));
  kinds.push_back(Plain<tnn::GELUImpl>("gelu"));
  kinds.push_back(Plain<tnn::SiLUImpl>("silu"));
  kinds.push_back(Plain<tnn::MishImpl>("mish"));
  kinds.push_back(Plain<tnn::Softmax2dImpl>("softmax2d"));
  kinds.push_back(Plain<tnn::LogSigmoidImpl>("logsigmoid"));
  kinds.push_back(Plain<tnn::SoftsignImpl>("softsign"));
  kinds.push_back(Plain<tnn::TanhshrinkImpl>("tanhshrink"));
  kinds.push_back(InplaceOnly<tnn::ReLUImpl, tnn::ReLUOptions>("relu"));
  kinds.push_back(InplaceOnly<tnn::ReLU6Impl, tnn::ReLU6Options>("relu6"));
  kinds.push_back(InplaceOnly<tnn::SELUImpl, tnn::SELUOptions>("selu"));
  kinds.push_back(Leaf<tnn::ELUImpl>("elu", AlphaSpecs(), Alpha<tnn::ELUOptions>));
  kinds.push_back(Leaf<tnn::CELUImpl>("celu", AlphaSpecs(), [](const OptionSet& o) {
    Check(o.Double("alpha") != 0, o, "option `alpha must not be 0");
    return Alpha<tnn::CELUOptions>(o);
  }));
  kinds.push_back(Leaf<tnn::LeakyReLUImpl>(
      "leakyrelu", {{"slope", OptionType::kDouble, 0.01}, Inplace()}, [](const OptionSet& o) {
        return tnn::LeakyReLUOptions().negative_slope(o.Double("slope")).inplace(o.Bool("inplace"));
      }));
  kinds.push_back(Leaf<tnn::PReLUImpl>(
      "prelu", {{"in", OptionType::kLong, std::int64_t{1}}, {"init", OptionType::kDouble, 0.25}},
      [](const OptionSet& o) {
        AtLeast(o, "in", 1);
        return tnn::PReLUOptions().num_parameters(o.Long("in")).init(o.Double("init"));
      }));
  kinds.push_back(Leaf<tnn::RReLUImpl>(
      "rrelu",
      {{"lower", OptionType::kDouble, 1.0 / 8}, {"upper", OptionType::kDouble, 1.0 / 3}, Inplace()},
      [](const OptionSet& o) {
        const double lower = o.Double("lower"), upper = o.Double("upper");
        Check(lower <= upper, o, "option `lower must not exceed `upper, given %g and %g", lower,
              upper);
        return tnn::RReLUOptions().lower(lower).upper(upper).inplace(o.Bool("inplace"));
      }));
  kinds.push_back(Leaf<tnn::HardtanhImpl>(
      "hardtanh",
      {{"min", OptionType::kDouble, -1.0}, {"max", OptionType::kDouble, 1.0}, Inplace()},
      [](const OptionSet& o) {
        return tnn::HardtanhOptions()
            .min_val(o.Double("min"))
            .max_val(o.Double("max"))
            .inplace(o.Bool("inplace"));
      }));
  kinds.push_back(Leaf<tnn::HardshrinkImpl>("hardshrink", LambdaSpecs(), [](const OptionSet& o) {
    return tnn::HardshrinkOptions(o.Double("lambda"));
  }));
  kinds.push_back(Leaf<tnn::SoftshrinkImpl>("softshrink", LambdaSpecs(), [](const OptionSet& o) {
    AtLeast(o, "lambda", 0);
    return tnn::SoftshrinkOptions(o.Double("lambda"));
  }));
  kinds.push_back(Leaf<tnn::SoftplusImpl>(
      "softplus", {{"beta", OptionType::kDouble, 1.0}, {"threshold", OptionType::kDouble, 20.0}},
      [](const OptionSet& o) {
        return tnn::SoftplusOptions().beta(o.Double("beta")).threshold(o.Double("threshold"));
      }));
  kinds.push_back(Leaf<tnn::ThresholdImpl>("threshold",
                                           {Required("threshold", OptionType::kDouble),
                                            Required("value", OptionType::kDouble), Inplace()},
                                           [](const OptionSet& o) {
                                             return tnn::ThresholdOptions(o.Double("threshold"),
                                                                          o.Double("value"))
                                                 .inplace(o.Bool("inplace"));
                                           }));
  kinds.push_back(
      OverDim<tnn::GLUImpl, tnn::GLUOptions>("glu", {"dim", OptionType::kLong, std::int64_t{-1}}));
  const OptionSpec dim = Required("dim", OptionType::kLong);
  kinds.push_back(OverDim<tnn::SoftmaxImpl, tnn::SoftmaxOptions>("softmax", dim));
  kinds.push_back(OverDim<tnn::SoftminImpl, tnn::SoftminOptions>("softmin", dim));
  kinds.push_back(OverDim<tnn::LogSoftmaxImpl, tnn::LogSoftmaxOptions>("logsoftmax", dim));
  return kinds;
}

}  // namespace kscope::nn
