// The distance family (ktorch-api.md §2.1): normalize (`p 2, `dim 1, `eps 1e-12: x over its
// `p-norm along `dim), and the kinds whose forward takes two inputs: pairwise (`p 2, `eps 1e-6,
// `keepdim 0b: the `p-norm of x - y), similar (`dim 1, `eps 1e-8: cosine similarity) and
// bilinear (`in1 `in2 `out required, `bias 1b: x' A y + b).
#include <ostream>

#include <torch/nn/cloneable.h>
#include <torch/nn/functional/normalization.h>
#include <torch/nn/modules/distance.h>
#include <torch/nn/modules/linear.h>

#include "api/nn/distance_options.h"
#include "api/nn/module_families.h"

namespace kscope::nn {
namespace {

namespace F = torch::nn::functional;

// normalize: libtorch has the function, not a module.
class NormalizeImpl : public torch::nn::Cloneable<NormalizeImpl> {
 public:
  explicit NormalizeImpl(F::NormalizeFuncOptions options) : options(std::move(options)) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override {
    stream << "kscope::Normalize(p=" << options.p() << ", dim=" << options.dim()
           << ", eps=" << options.eps() << ")";
  }
  at::Tensor forward(const at::Tensor& x) { return F::normalize(x, options); }

  F::NormalizeFuncOptions options;
};

}  // namespace

std::vector<ModuleKind> DistanceKinds() {
  namespace tnn = torch::nn;
  std::vector<ModuleKind> kinds;
  kinds.push_back(Leaf<NormalizeImpl>(
      "normalize",
      {{"p", OptionType::kDouble, 2.0},
       {"dim", OptionType::kLong, std::int64_t{1}},
       {"eps", OptionType::kDouble, 1e-12}},
      [](const OptionSet& o) {
        return F::NormalizeFuncOptions().p(o.Double("p")).dim(o.Long("dim")).eps(o.Double("eps"));
      }));
  kinds.push_back(Leaf<tnn::PairwiseDistanceImpl, 2>("pairwise", PairwiseSpecs(), PairwiseOptions));
  kinds.push_back(Leaf<tnn::CosineSimilarityImpl, 2>("similar", SimilarSpecs(), SimilarOptions));
  kinds.push_back(Leaf<tnn::BilinearImpl, 2>(
      "bilinear",
      {Required("in1", OptionType::kLong),
       Required("in2", OptionType::kLong),
       Required("out", OptionType::kLong),
       {"bias", OptionType::kBool, true}},
      [](const OptionSet& o) {
        for (const char* positive : {"in1", "in2", "out"}) AtLeast(o, positive, 1);
        return tnn::BilinearOptions(o.Long("in1"), o.Long("in2"), o.Long("out"))
            .bias(o.Bool("bias"));
      }));
  return kinds;
}

}  // namespace kscope::nn
