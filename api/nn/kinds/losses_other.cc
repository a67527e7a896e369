// The losses over inputs other than (outputs, targets): cosineloss and margin (x1, x2, y),
// triplet (anchor, positive, negative), ctc (log probabilities, targets, input lengths, target
// lengths), and the distances pairwise and similar (x1, x2), which have no `reduce`.
#include <torch/nn/modules/distance.h>
#include <torch/nn/modules/loss.h>

#include "api/nn/distance_options.h"
#include "api/nn/kinds/losses.h"

namespace kscope::nn {

std::vector<ModuleKind> OtherLossKinds() {
  namespace tnn = torch::nn;
  std::vector<ModuleKind> kinds;
  kinds.push_back(LossKind<tnn::CosineEmbeddingLossImpl, 3>(
      "cosineloss", {{"margin", OptionType::kDouble, 0.0}}, [](const OptionSet& o) {
        return Reduced<tnn::CosineEmbeddingLossOptions>(o).margin(o.Double("margin"));
      }));
  kinds.push_back(LossKind<tnn::MarginRankingLossImpl, 3>(
      "margin", {{"margin", OptionType::kDouble, 0.0}}, [](const OptionSet& o) {
        return Reduced<tnn::MarginRankingLossOptions>(o).margin(o.Double("margin"));
      }));
  kinds.push_back(
      LossKind<tnn::TripletMarginLossImpl, 3>("triplet",
                                              {{"margin", OptionType::kDouble, 1.0},
                                               {"p", OptionType::kDouble, 2.0},
                                               {"eps", OptionType::kDouble, 1e-6},
                                               {"swap", OptionType::kBool, false}},
                                              [](const OptionSet& o) {
                                                return Reduced<tnn::TripletMarginLossOptions>(o)
                                                    .margin(o.Double("margin"))
                                                    .p(o.Double("p"))
                                                    .eps(o.Double("eps"))
                                                    .swap(o.Bool("swap"));
                                              }));
  kinds.push_back(LossKind<tnn::CTCLossImpl, 4>(
      "ctc", {{"blank", OptionType::kLong, std::int64_t{0}}, {"zeroinf", OptionType::kBool, false}},
      [](const OptionSet& o) {
        return Reduced<tnn::CTCLossOptions>(o)
            .blank(o.Long("blank"))
            .zero_infinity(o.Bool("zeroinf"));
      }));
  kinds.push_back(
      CriterionKind<tnn::PairwiseDistanceImpl, 2>("pairwise", PairwiseSpecs(), PairwiseOptions));
  kinds.push_back(
      CriterionKind<tnn::CosineSimilarityImpl, 2>("similar", SimilarSpecs(), SimilarOptions));
  return kinds;
}

}  // namespace kscope::nn
