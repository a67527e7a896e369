// The embedding family (ktorch-api.md §2.1): embed, a lookup table of `rows x `cols learned
// vectors, with `padindex null, `maxnorm null, `p 2, `scale 0b, `sparse 0b. ktorch's other form
// of embed, a weight array given in place of `rows, is not supported: `rows must be a long.
#include <torch/nn/modules/embedding.h>

#include "api/nn/module_families.h"

namespace kscope::nn {

std::vector<ModuleKind> EmbedKinds() {
  return {Leaf<torch::nn::EmbeddingImpl>(
      "embed",
      {Required("rows", OptionType::kLong),
       Required("cols", OptionType::kLong),
       {"padindex", OptionType::kLongOrNull, {}},
       {"maxnorm", OptionType::kDoubleOrNull, {}},
       {"p", OptionType::kDouble, 2.0},
       {"scale", OptionType::kBool, false},
       {"sparse", OptionType::kBool, false}},
      [](const OptionSet& o) {
        return torch::nn::EmbeddingOptions(o.Long("rows"), o.Long("cols"))
            .padding_idx(Optional<std::int64_t>(o, "padindex"))
            .max_norm(Optional<double>(o, "maxnorm"))
            .norm_type(o.Double("p"))
            .scale_grad_by_freq(o.Bool("scale"))
            .sparse(o.Bool("sparse"));
      })};
}

}  // namespace kscope::nn
