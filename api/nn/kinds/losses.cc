// The table of loss kinds (../shared/reference/ktorch-api.md §2.2): ktorch's names, option
// order and defaults mapped onto libtorch's loss modules, each held like a module
// (ModuleObject of class loss). This file builds the two-input losses of outputs and targets
// and joins them with the families of losses.h into the one table.
#include <utility>

#include <torch/nn/modules/loss.h>

#include "api/nn/kind_names.h"
#include "api/nn/kinds/losses.h"

namespace kscope::nn {
namespace {

namespace tnn = torch::nn;

std::vector<ModuleKind> Kinds() {
  std::vector<ModuleKind> kinds;
  kinds.push_back(
      LossKind<tnn::CrossEntropyLossImpl>("ce",
                                          {{"weight", OptionType::kDoublesOrNull, {}},
                                           {"ignore", OptionType::kLong, std::int64_t{-100}},
                                           {"smoothing", OptionType::kDouble, 0.0}},
                                          [](const OptionSet& o) {
                                            return Reduced<tnn::CrossEntropyLossOptions>(o)
                                                .weight(WeightOf(o))
                                                .ignore_index(o.Long("ignore"))
                                                .label_smoothing(o.Double("smoothing"));
                                          }));
  kinds.push_back(LossKind<tnn::NLLLossImpl>(
      "nll",
      {{"weight", OptionType::kDoublesOrNull, {}},
       {"ignore", OptionType::kLong, std::int64_t{-100}}},
      [](const OptionSet& o) {
        return Reduced<tnn::NLLLossOptions>(o).weight(WeightOf(o)).ignore_index(o.Long("ignore"));
      }));
  kinds.push_back(LossKind<tnn::MSELossImpl>("mse", {}, Reduced<tnn::MSELossOptions>));
  kinds.push_back(LossKind<tnn::L1LossImpl>("l1", {}, Reduced<tnn::L1LossOptions>));
  kinds.push_back(LossKind<tnn::KLDivLossImpl>("kl", {}, Reduced<tnn::KLDivLossOptions>));
  kinds.push_back(
      LossKind<tnn::SoftMarginLossImpl>("softmargin", {}, Reduced<tnn::SoftMarginLossOptions>));
  kinds.push_back(LossKind<tnn::SmoothL1LossImpl>(
      "smoothl1", {{"beta", OptionType::kDouble, 1.0}}, [](const OptionSet& o) {
        return Reduced<tnn::SmoothL1LossOptions>(o).beta(o.Double("beta"));
      }));
  kinds.push_back(LossKind<tnn::HuberLossImpl>(
      "huber", {{"delta", OptionType::kDouble, 1.0}}, [](const OptionSet& o) {
        return Reduced<tnn::HuberLossOptions>(o).delta(o.Double("delta"));
      }));
  kinds.push_back(LossKind<tnn::MultiLabelMarginLossImpl>(
      "multilabel", {}, Reduced<tnn::MultiLabelMarginLossOptions>));
  kinds.push_back(LossKind<tnn::MultiLabelSoftMarginLossImpl>(
      "multisoft", {{"weight", OptionType::kDoublesOrNull, {}}}, [](const OptionSet& o) {
        return Reduced<tnn::MultiLabelSoftMarginLossOptions>(o).weight(WeightOf(o));
      }));
  kinds.push_back(LossKind<tnn::MultiMarginLossImpl>("multimargin",
                                                     {{"p", OptionType::kLong, std::int64_t{1}},
                                                      {"margin", OptionType::kDouble, 1.0},
                                                      {"weight", OptionType::kDoublesOrNull, {}}},
                                                     [](const OptionSet& o) {
                                                       return Reduced<tnn::MultiMarginLossOptions>(
                                                                  o)
                                                           .p(o.Long("p"))
                                                           .margin(o.Double("margin"))
                                                           .weight(WeightOf(o));
                                                     }));
  kinds.push_back(LossKind<tnn::PoissonNLLLossImpl>("poissonloss",
                                                    {{"log", OptionType::kBool, true},
                                                     {"full", OptionType::kBool, false},
                                                     {"eps", OptionType::kDouble, 1e-8}},
                                                    [](const OptionSet& o) {
                                                      return Reduced<tnn::PoissonNLLLossOptions>(o)
                                                          .log_input(o.Bool("log"))
                                                          .full(o.Bool("full"))
                                                          .eps(o.Double("eps"));
                                                    }));
  kinds.push_back(LossKind<tnn::HingeEmbeddingLossImpl>(
      "hinge", {{"margin", OptionType::kDouble, 1.0}}, [](const OptionSet& o) {
        return Reduced<tnn::HingeEmbeddingLossOptions>(o).margin(o.Double("margin"));
      }));
  for (auto family : {WeightedLossKinds, OtherLossKinds}) {
    for (ModuleKind& k : family()) kinds.push_back(std::move(k));
  }
  return kinds;
}

}  // namespace

at::Tensor WeightOf(const OptionSet& o) {
  if (o.IsNull("weight")) return at::Tensor();
  return at::tensor(o.Doubles("weight"), at::kFloat);
}

const ModuleKind* FindLossKind(absl::string_view name) {
  static const KindTable* const table = new KindTable(Kinds());
  return table->Find(name);
}

const std::vector<std::string>& LossKindNames() {
  static const auto* const names = new std::vector<std::string>(NamesOf(Kinds()));
  return *names;
}

}  // namespace kscope::nn
