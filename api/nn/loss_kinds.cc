// The table of loss kinds (../shared/reference/ktorch-api.md §2.2): ktorch's names, option
// order and defaults, each ending with `reduce` (mean, sum or none), mapped onto libtorch's
// loss modules. A loss is held like a module (ModuleObject of class loss). Most losses take
// two inputs (outputs and targets); cosineloss, margin and triplet take three. Not here:
// ctc (four inputs, two of them lengths), pairwise and similar (distances without `reduce`),
// and the batch-weight forms of bce and bcelogits.
#include <utility>

#include <torch/nn/modules/loss.h>

#include "api/nn/module_kind.h"
#include "runtime/errors.h"

namespace kscope::nn {
namespace {

using torch::nn::Module;

// The reduction named by the `reduce` option, as the variant type Reduction of a libtorch
// loss's options; `batchmean` only where Reduction has it (kl).
template <typename Reduction>
Reduction ReductionOf(const std::string& kind, const OptionSet& o) {
  const std::string& r = o.Symbol("reduce");
  if (r == "mean") return torch::kMean;
  if (r == "sum") return torch::kSum;
  if (r == "none") return torch::kNone;
  if constexpr (std::is_constructible_v<Reduction, torch::enumtype::kBatchMean>) {
    if (r == "batchmean") return torch::kBatchMean;
  }
  Fail("%s: unrecognized reduce `%s, expecting mean, sum or none", kind, r);
}

OptionSpec Reduce() { return {"reduce", OptionType::kSymbol, std::string("mean")}; }

at::Tensor WeightOf(const OptionSet& o) {
  if (o.IsNull("weight")) return at::Tensor();
  const std::vector<double>& w = o.Doubles("weight");
  return at::tensor(w, at::kFloat);
}

// A loss kind whose libtorch module is Impl with options made by `make`, computing its loss of
// `Inputs` tensors.
template <typename Impl, std::size_t Inputs = 2, typename MakeOptions>
ModuleKind LossKind(std::string name, std::vector<OptionSpec> specs, MakeOptions make) {
  specs.push_back(Reduce());
  return ModuleKind{
      name, std::move(specs),
      [make, name](const OptionSet& o) -> std::shared_ptr<Module> { return std::make_shared<Impl>(make(name, o)); },
      [](Module& m, const std::vector<at::Tensor>& x) -> ModuleOutput {
        return ApplyForward<Impl>(m, x, std::make_index_sequence<Inputs>());
      },
      Inputs, Inputs, nullptr, nullptr};
}

template <typename Options>
Options Reduced(const std::string& name, const OptionSet& o) {
  return Options().reduction(ReductionOf<typename Options::reduction_t>(name, o));
}

std::vector<ModuleKind> Kinds() {
  std::vector<ModuleKind> kinds;
  kinds.push_back(LossKind<torch::nn::CrossEntropyLossImpl>(
      "ce",
      {{"weight", OptionType::kDoublesOrNull, {}},
       {"ignore", OptionType::kLong, std::int64_t{-100}},
       {"smoothing", OptionType::kDouble, 0.0}},
      [](const std::string& name, const OptionSet& o) {
        return Reduced<torch::nn::CrossEntropyLossOptions>(name, o)
            .weight(WeightOf(o))
            .ignore_index(o.Long("ignore"))
            .label_smoothing(o.Double("smoothing"));
      }));
  kinds.push_back(LossKind<torch::nn::NLLLossImpl>(
      "nll", {{"weight", OptionType::kDoublesOrNull, {}}, {"ignore", OptionType::kLong, std::int64_t{-100}}},
      [](const std::string& name, const OptionSet& o) {
        return Reduced<torch::nn::NLLLossOptions>(name, o).weight(WeightOf(o)).ignore_index(o.Long("ignore"));
      }));
  kinds.push_back(LossKind<torch::nn::MSELossImpl>("mse", {}, Reduced<torch::nn::MSELossOptions>));
  kinds.push_back(LossKind<torch::nn::L1LossImpl>("l1", {}, Reduced<torch::nn::L1LossOptions>));
  kinds.push_back(LossKind<torch::nn::BCELossImpl>("bce", {}, Reduced<torch::nn::BCELossOptions>));
  kinds.push_back(LossKind<torch::nn::KLDivLossImpl>("kl", {}, Reduced<torch::nn::KLDivLossOptions>));
  kinds.push_back(LossKind<torch::nn::SoftMarginLossImpl>("softmargin", {}, Reduced<torch::nn::SoftMarginLossOptions>));
  kinds.push_back(LossKind<torch::nn::SmoothL1LossImpl>(
      "smoothl1", {{"beta", OptionType::kDouble, 1.0}}, [](const std::string& name, const OptionSet& o) {
        return Reduced<torch::nn::SmoothL1LossOptions>(name, o).beta(o.Double("beta"));
      }));
  kinds.push_back(LossKind<torch::nn::HuberLossImpl>(
      "huber", {{"delta", OptionType::kDouble, 1.0}}, [](const std::string& name, const OptionSet& o) {
        return Reduced<torch::nn::HuberLossOptions>(name, o).delta(o.Double("delta"));
      }));
  // ktorch's `weight` of bcelogits is libtorch's pos_weight (a weight per class).
  kinds.push_back(LossKind<torch::nn::BCEWithLogitsLossImpl>(
      "bcelogits", {{"weight", OptionType::kDoublesOrNull, {}}}, [](const std::string& name, const OptionSet& o) {
        return Reduced<torch::nn::BCEWithLogitsLossOptions>(name, o).pos_weight(WeightOf(o));
      }));
  kinds.push_back(
      LossKind<torch::nn::MultiLabelMarginLossImpl>("multilabel", {}, Reduced<torch::nn::MultiLabelMarginLossOptions>));
  kinds.push_back(LossKind<torch::nn::MultiLabelSoftMarginLossImpl>(
      "multisoft", {{"weight", OptionType::kDoublesOrNull, {}}}, [](const std::string& name, const OptionSet& o) {
        return Reduced<torch::nn::MultiLabelSoftMarginLossOptions>(name, o).weight(WeightOf(o));
      }));
  kinds.push_back(LossKind<torch::nn::MultiMarginLossImpl>(
      "multimargin",
      {{"p", OptionType::kLong, std::int64_t{1}},
       {"margin", OptionType::kDouble, 1.0},
       {"weight", OptionType::kDoublesOrNull, {}}},
      [](const std::string& name, const OptionSet& o) {
        return Reduced<torch::nn::MultiMarginLossOptions>(name, o)
            .p(o.Long("p"))
            .margin(o.Double("margin"))
            .weight(WeightOf(o));
      }));
  kinds.push_back(LossKind<torch::nn::PoissonNLLLossImpl>(
      "poissonloss",
      {{"log", OptionType::kBool, true}, {"full", OptionType::kBool, false}, {"eps", OptionType::kDouble, 1e-8}},
      [](const std::string& name, const OptionSet& o) {
        return Reduced<torch::nn::PoissonNLLLossOptions>(name, o)
            .log_input(o.Bool("log"))
            .full(o.Bool("full"))
            .eps(o.Double("eps"));
      }));
  kinds.push_back(LossKind<torch::nn::HingeEmbeddingLossImpl>(
      "hinge", {{"margin", OptionType::kDouble, 1.0}}, [](const std::string& name, const OptionSet& o) {
        return Reduced<torch::nn::HingeEmbeddingLossOptions>(name, o).margin(o.Double("margin"));
      }));
  kinds.push_back(LossKind<torch::nn::CosineEmbeddingLossImpl, 3>(
      "cosineloss", {{"margin", OptionType::kDouble, 0.0}}, [](const std::string& name, const OptionSet& o) {
        return Reduced<torch::nn::CosineEmbeddingLossOptions>(name, o).margin(o.Double("margin"));
      }));
  kinds.push_back(LossKind<torch::nn::MarginRankingLossImpl, 3>(
      "margin", {{"margin", OptionType::kDouble, 0.0}}, [](const std::string& name, const OptionSet& o) {
        return Reduced<torch::nn::MarginRankingLossOptions>(name, o).margin(o.Double("margin"));
      }));
  kinds.push_back(LossKind<torch::nn::TripletMarginLossImpl, 3>(
      "triplet",
      {{"margin", OptionType::kDouble, 1.0},
       {"p", OptionType::kDouble, 2.0},
       {"eps", OptionType::kDouble, 1e-6},
       {"swap", OptionType::kBool, false}},
      [](const std::string& name, const OptionSet& o) {
        return Reduced<torch::nn::TripletMarginLossOptions>(name, o)
            .margin(o.Double("margin"))
            .p(o.Double("p"))
            .eps(o.Double("eps"))
            .swap(o.Bool("swap"));
      }));
  return kinds;
}

}  // namespace

const ModuleKind* FindLossKind(absl::string_view name) {
  static const KindTable* const table = new KindTable(Kinds());
  return table->Find(name);
}

}  // namespace kscope::nn
