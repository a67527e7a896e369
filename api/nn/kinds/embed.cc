// The embedding family (ktorch-api.md §2.1): embed, a lookup table of `rows x `cols learned
// vectors, with `padindex null, `maxnorm null, `p 2, `scale 0b, `sparse 0b; and embedbag, the
// same table reduced over bags of indices (`rows `cols required, `maxnorm null, `p 2, `scale 0b,
// `mode `mean (or `sum `max), `sparse 0b, `lastoffset 0b (by name only, as ktorch reads it),
// `padindex null), whose forward takes the indices, one bag per row, or flat indices and the
// offset where each bag starts. ktorch's other form of embed, a weight array given in place of
// `rows, is not supported: `rows must be a long.
#include <torch/nn/modules/embedding.h>

#include "api/nn/module_families.h"

namespace kscope::nn {
namespace {

torch::nn::EmbeddingBagMode BagMode(const OptionSet& o) {
  const std::string& mode = o.Symbol("mode");
  if (mode == "mean") return torch::kMean;
  if (mode == "sum") return torch::kSum;
  if (mode == "max") return torch::kMax;
  Fail("%s: unrecognized mode `%s, expecting mean, sum or max", o.kind(), mode);
}

ModuleKind EmbeddingBag() {
  using Impl = torch::nn::EmbeddingBagImpl;
  using torch::nn::Module;
  return ModuleKind{
      "embedbag",
      {Required("rows", OptionType::kLong),
       Required("cols", OptionType::kLong),
       TypedNullEcho({"maxnorm", OptionType::kDoubleOrNull, {}}),
       {"p", OptionType::kDouble, 2.0},
       {"scale", OptionType::kBool, false},
       {"mode", OptionType::kSymbol, std::string("mean")},
       {"sparse", OptionType::kBool, false},
       ByNameOnly({"lastoffset", OptionType::kBool, false}),
       TypedNullEcho({"padindex", OptionType::kLongOrNull, {}})},
      [](const OptionSet& o) -> std::shared_ptr<Module> {
        const torch::nn::EmbeddingBagMode mode = BagMode(o);
        Check(!(o.Symbol("mode") == "max" && o.Bool("sparse")), o,
              "mode `max does not support sparse gradients");
        return std::make_shared<Impl>(torch::nn::EmbeddingBagOptions(o.Long("rows"), o.Long("cols"))
                                          .max_norm(Optional<double>(o, "maxnorm"))
                                          .norm_type(o.Double("p"))
                                          .scale_grad_by_freq(o.Bool("scale"))
                                          .mode(mode)
                                          .sparse(o.Bool("sparse"))
                                          .padding_idx(Optional<std::int64_t>(o, "padindex"))
                                          .include_last_offset(o.Bool("lastoffset")));
      },
      [](Module& m, const std::vector<at::Tensor>& x) -> ModuleOutput {
        auto& bag = dynamic_cast<Impl&>(m);
        return x.size() == 1 ? bag.forward(x[0]) : bag.forward(x[0], x[1]);
      },
      1,
      2,
      [](const std::shared_ptr<Module>& m) {
        return torch::nn::AnyModule(std::dynamic_pointer_cast<Impl>(m));
      },
      nullptr};
}

}  // namespace

std::vector<ModuleKind> EmbedKinds() {
  return {Leaf<torch::nn::EmbeddingImpl>("embed",
                                         {Required("rows", OptionType::kLong),
                                          Required("cols", OptionType::kLong),
                                          TypedNullEcho({"padindex", OptionType::kLongOrNull, {}}),
                                          TypedNullEcho({"maxnorm", OptionType::kDoubleOrNull, {}}),
                                          {"p", OptionType::kDouble, 2.0},
                                          {"scale", OptionType::kBool, false},
                                          {"sparse", OptionType::kBool, false}},
                                         [](const OptionSet& o) {
                                           return torch::nn::EmbeddingOptions(o.Long("rows"),
                                                                              o.Long("cols"))
                                               .padding_idx(Optional<std::int64_t>(o, "padindex"))
                                               .max_norm(Optional<double>(o, "maxnorm"))
                                               .norm_type(o.Double("p"))
                                               .scale_grad_by_freq(o.Bool("scale"))
                                               .sparse(o.Bool("sparse"));
                                         }),
          EmbeddingBag()};
}

}  // namespace kscope::nn
