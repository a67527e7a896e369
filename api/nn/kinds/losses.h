// What the families of loss kinds share (one table, FindLossKind in losses.cc, joins them):
// ktorch's `reduce` option, class weights given as a list, and the builder of a loss kind from
// a libtorch loss module and its options.
//
// Internal to api/nn. Every check throws kscope::Error naming the kind ("mse: unrecognized
// reduce `average, expecting mean, sum or none").
#ifndef KSCOPE_API_NN_KINDS_LOSSES_H_
#define KSCOPE_API_NN_KINDS_LOSSES_H_

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <torch/enum.h>

#include "api/nn/module_kind.h"
#include "api/nn/options.h"
#include "runtime/errors.h"

namespace kscope::nn {

// The families: two-input losses of outputs and targets (the table's own file), bce and
// bcelogits with an optional batch weight, and the losses over other inputs.
std::vector<ModuleKind> WeightedLossKinds();  // bce bcelogits
std::vector<ModuleKind> OtherLossKinds();     // cosineloss margin triplet ctc pairwise similar

// ktorch's last option of every loss but the distances: `mean, `sum or `none.
inline OptionSpec Reduce() { return {"reduce", OptionType::kSymbol, std::string("mean")}; }

// The reduction named by the `reduce` option, as the variant type Reduction of a libtorch
// loss's options; `batchmean` only where Reduction has it (kl).
template <typename Reduction>
Reduction ReductionOf(const OptionSet& o) {
  const std::string& r = o.Symbol("reduce");
  if (r == "mean") return torch::kMean;
  if (r == "sum") return torch::kSum;
  if (r == "none") return torch::kNone;
  if constexpr (std::is_constructible_v<Reduction, torch::enumtype::kBatchMean>) {
    if (r == "batchmean") return torch::kBatchMean;
  }
  Fail("%s: unrecognized reduce `%s, expecting mean, sum or none", o.kind(), r);
}

// Options of a libtorch loss with only its reduction set from `reduce`.
template <typename Options>
Options Reduced(const OptionSet& o) {
  return Options().reduction(ReductionOf<typename Options::reduction_t>(o));
}

// Option `weight` (a list of doubles or null) as a float tensor; undefined when null.
at::Tensor WeightOf(const OptionSet& o);

// A kind whose libtorch module is Impl, built as Impl(make(o)), whose forward takes exactly
// `Inputs` tensors; `specs` are all its options.
template <typename Impl, std::size_t Inputs, typename MakeOptions>
ModuleKind CriterionKind(std::string name, std::vector<OptionSpec> specs, MakeOptions make) {
  using torch::nn::Module;
  return ModuleKind{std::move(name),
                    std::move(specs),
                    [make](const OptionSet& o) -> std::shared_ptr<Module> {
                      return std::make_shared<Impl>(make(o));
                    },
                    [](Module& m, const std::vector<at::Tensor>& x) -> ModuleOutput {
                      return ApplyForward<Impl>(m, x, std::make_index_sequence<Inputs>());
                    },
                    Inputs,
                    Inputs,
                    nullptr,
                    nullptr};
}

// A loss kind: as CriterionKind, with `reduce` appended as the last option.
template <typename Impl, std::size_t Inputs = 2, typename MakeOptions>
ModuleKind LossKind(std::string name, std::vector<OptionSpec> specs, MakeOptions make) {
  specs.push_back(Reduce());
  return CriterionKind<Impl, Inputs>(std::move(name), std::move(specs), std::move(make));
}

}  // namespace kscope::nn

#endif  // KSCOPE_API_NN_KINDS_LOSSES_H_
