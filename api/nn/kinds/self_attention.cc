// The k-api selfattention layer (ktorch-api.md §2.1 "k-api layers"): multi-head self-attention
// over a batch-first input x of (batch, sequence, `dim), `heads req (dividing `dim), `dropout 0
// on the attention weights, `norm 0b. Children: `norm (with `norm: a pre-LayerNorm of `dim),
// `in (the linear making queries, keys and values, 3 x `dim; without bias when `norm), `drop and
// `out (the output linear).
//
// Forward takes x, then optionally `mask (sequence x sequence) and `padmask (batch x sequence),
// with PyTorch's MultiheadAttention conventions: a boolean mask is true where attention is not
// allowed, a float mask is added to the attention scores.
#include <cmath>
#include <cstdint>
#include <limits>

#include <torch/nn/modules/common.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include "api/nn/ktorch_layers.h"

namespace kscope::nn {
namespace {

struct SelfAttentionOptions {
  std::int64_t dim, heads;
  double dropout;
  bool norm;
};

// Scores with a mask applied: filled with -inf where a boolean mask is true, else added to.
at::Tensor MaskedScores(const at::Tensor& scores, const at::Tensor& mask) {
  if (mask.scalar_type() == at::kBool)
    return scores.masked_fill(mask, -std::numeric_limits<double>::infinity());
  return scores + mask;
}

class SelfAttentionImpl : public KLayer<SelfAttentionImpl> {
 public:
  SelfAttentionImpl(std::string text, SelfAttentionOptions options)
      : KLayer(std::move(text)), o_(options) {
    reset();
  }

  void reset() override {
    if (o_.norm)
      norm_ = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({o_.dim})));
    in_ = register_module(
        "in", torch::nn::Linear(torch::nn::LinearOptions(o_.dim, 3 * o_.dim).bias(!o_.norm)));
    drop_ = register_module("drop", torch::nn::Dropout(o_.dropout));
    out_ = register_module("out", torch::nn::Linear(o_.dim, o_.dim));
  }

  at::Tensor forward(const at::Tensor& x, const at::Tensor& mask = {},
                     const at::Tensor& padmask = {}) {
    if (x.dim() != 3 || x.size(2) != o_.dim) {
      Fail("selfattention: expects input of (batch, sequence, %d), given size %s", o_.dim,
           c10::str(x.sizes()));
    }
    const std::int64_t batch = x.size(0), length = x.size(1), width = o_.dim / o_.heads;
    const at::Tensor y = o_.norm ? norm_(x) : x;
    // Queries, keys and values, each (batch, heads, sequence, width).
    const std::vector<at::Tensor> qkv =
        in_(y).view({batch, length, 3, o_.heads, width}).permute({2, 0, 3, 1, 4}).unbind(0);
    at::Tensor scores =
        qkv[0].matmul(qkv[1].transpose(-2, -1)) / std::sqrt(static_cast<double>(width));
    if (mask.defined()) scores = MaskedScores(scores, mask);
    if (padmask.defined()) scores = MaskedScores(scores, padmask.view({batch, 1, 1, length}));
    const at::Tensor attended = drop_(scores.softmax(-1)).matmul(qkv[2]);
    return out_(attended.transpose(1, 2).reshape({batch, length, o_.dim}));
  }

 protected:
  FORWARD_HAS_DEFAULT_ARGS({1, torch::nn::AnyValue(at::Tensor())},
                           {2, torch::nn::AnyValue(at::Tensor())})

 private:
  SelfAttentionOptions o_;
  torch::nn::LayerNorm norm_{nullptr};
  torch::nn::Linear in_{nullptr}, out_{nullptr};
  torch::nn::Dropout drop_{nullptr};
};

std::shared_ptr<torch::nn::Module> Make(const OptionSet& o) {
  AtLeast(o, "dim", 1);
  AtLeast(o, "heads", 1);
  const std::int64_t dim = o.Long("dim"), heads = o.Long("heads");
  Check(dim % heads == 0, o, "option `dim must be divisible by `heads, given %d and %d", dim,
        heads);
  const double dropout = o.Double("dropout");
  Check(dropout >= 0 && dropout <= 1, o, "option `dropout must be between 0 and 1, given %g",
        dropout);
  return std::make_shared<SelfAttentionImpl>(
      KLayerText(o), SelfAttentionOptions{dim, heads, dropout, o.Bool("norm")});
}

}  // namespace

std::vector<ModuleKind> SelfAttentionKinds() {
  using torch::nn::Module;
  return {ModuleKind{
      "selfattention",
      {Required("dim", OptionType::kLong),
       Required("heads", OptionType::kLong),
       {"dropout", OptionType::kDouble, 0.0},
       {"norm", OptionType::kBool, false}},
      Make,
      [](Module& m, const std::vector<at::Tensor>& x) -> ModuleOutput {
        return dynamic_cast<SelfAttentionImpl&>(m).forward(x[0], x.size() > 1 ? x[1] : at::Tensor(),
                                                           x.size() > 2 ? x[2] : at::Tensor());
      },
      1,
      3,
      [](const std::shared_ptr<Module>& m) {
        return torch::nn::AnyModule(std::dynamic_pointer_cast<SelfAttentionImpl>(m));
      },
      nullptr,
      {{"norm", "layernorm"}, {"in", "linear"}, {"drop", "drop"}, {"out", "linear"}}}};
}

}  // namespace kscope::nn
