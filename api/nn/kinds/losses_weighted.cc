// bce and bcelogits: ktorch's variants of BCELoss and BCEWithLogitsLoss, which take an optional
// third input, a weight for the batch given with each call (`loss(l;yhat;y;w)`, `bce(yhat;y;w)`);
// bcelogits' `weight` option is libtorch's pos_weight, a weight per class, fixed with the loss.
#include <torch/nn/functional/loss.h>
#include <torch/nn/modules/loss.h>

#include "api/nn/kinds/losses.h"

namespace kscope::nn {
namespace {

namespace tnn = torch::nn;
namespace F = torch::nn::functional;

// A loss kind of Impl over (yhat, y), or (yhat, y, batch weight) computed by weighted(loss, x).
template <typename Impl, typename MakeOptions, typename Weighted>
ModuleKind WeightedKind(std::string name, std::vector<OptionSpec> specs, MakeOptions make,
                        Weighted weighted) {
  ModuleKind kind = LossKind<Impl>(std::move(name), std::move(specs), std::move(make));
  kind.forward = [weighted](torch::nn::Module& m,
                            const std::vector<at::Tensor>& x) -> ModuleOutput {
    auto& loss = dynamic_cast<Impl&>(m);
    return x.size() == 2 ? loss.forward(x[0], x[1]) : weighted(loss, x);
  };
  kind.max_inputs = 3;
  return kind;
}

}  // namespace

std::vector<ModuleKind> WeightedLossKinds() {
  std::vector<ModuleKind> kinds;
  kinds.push_back(WeightedKind<tnn::BCELossImpl>(
      "bce", {}, Reduced<tnn::BCELossOptions>,
      [](tnn::BCELossImpl& l, const std::vector<at::Tensor>& x) {
        return F::binary_cross_entropy(
            x[0], x[1],
            F::BinaryCrossEntropyFuncOptions().weight(x[2]).reduction(l.options.reduction()));
      }));
  kinds.push_back(WeightedKind<tnn::BCEWithLogitsLossImpl>(
      "bcelogits", {{"weight", OptionType::kDoublesOrNull, {}}},
      [](const OptionSet& o) {
        return Reduced<tnn::BCEWithLogitsLossOptions>(o).pos_weight(WeightOf(o));
      },
      [](tnn::BCEWithLogitsLossImpl& l, const std::vector<at::Tensor>& x) {
        return F::binary_cross_entropy_with_logits(x[0], x[1],
                                                   F::BinaryCrossEntropyWithLogitsFuncOptions()
                                                       .weight(x[2])
                                                       .pos_weight(l.pos_weight)
                                                       .reduction(l.options.reduction()));
      }));
  return kinds;
}

}  // namespace kscope::nn
