// pairwise and similar are both layers (api/nn/kinds/distance.cc) and losses
// (api/nn/kinds/losses_other.cc), with the same options (ktorch-api.md §2.1, §2.2): one option list
// and one mapping onto libtorch's options for each, shared by the two tables.
//
// Internal to api/nn. Thread-safety: pure functions.
#ifndef KSCOPE_API_NN_DISTANCE_OPTIONS_H_
#define KSCOPE_API_NN_DISTANCE_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include <torch/nn/options/distance.h>

#include "api/nn/options.h"

namespace kscope::nn {

// pairwise: `p 2, `eps 1e-6, `keepdim 0b.
inline std::vector<OptionSpec> PairwiseSpecs() {
  return {{"p", OptionType::kDouble, 2.0},
          {"eps", OptionType::kDouble, 1e-6},
          {"keepdim", OptionType::kBool, false}};
}
inline torch::nn::PairwiseDistanceOptions PairwiseOptions(const OptionSet& o) {
  return torch::nn::PairwiseDistanceOptions()
      .p(o.Double("p"))
      .eps(o.Double("eps"))
      .keepdim(o.Bool("keepdim"));
}

// similar: `dim 1, `eps 1e-8.
inline std::vector<OptionSpec> SimilarSpecs() {
  return {{"dim", OptionType::kLong, std::int64_t{1}}, {"eps", OptionType::kDouble, 1e-8}};
}
inline torch::nn::CosineSimilarityOptions SimilarOptions(const OptionSet& o) {
  return torch::nn::CosineSimilarityOptions().dim(o.Long("dim")).eps(o.Double("eps"));
}

}  // namespace kscope::nn

#endif  // KSCOPE_API_NN_DISTANCE_OPTIONS_H_
