// The k-api embedding layers (ktorch-api.md §2.1 "k-api layers"):
//   - embedpos (`rows, `cols req): a learned position embedding, the parameter `pos of
//     1 x rows x cols, started at zero. Its forward returns the embedding of the input's sequence
//     length (dimension 1), 1 x length x cols, for a container to add (ktorch's CCT example runs
//     it inside a residual: x + embedpos x);
//   - embedseq (`rows, `cols, `length req): token plus position embedding of a batch of token
//     sequences: children `tok (embed of rows x cols) and `pos (embedpos of length x cols).
#include <cstdint>

#include <ATen/ops/zeros.h>
#include <torch/nn/modules/embedding.h>

#include "absl/strings/str_format.h"
#include "api/nn/ktorch_layers.h"

namespace kscope::nn {
namespace {

class EmbedPosImpl : public KLayer<EmbedPosImpl> {
 public:
  EmbedPosImpl(std::string text, std::int64_t rows, std::int64_t cols)
      : KLayer(std::move(text)), rows_(rows), cols_(cols) {
    reset();
  }
  void reset() override { pos_ = register_parameter("pos", at::zeros({1, rows_, cols_})); }
  at::Tensor forward(const at::Tensor& x) {
    if (x.dim() < 2)
      Fail("embedpos: expects input of (batch, sequence, ..), given %d dimension(s)", x.dim());
    const std::int64_t length = x.size(1);
    if (length > rows_)
      Fail("embedpos: sequence of %d longer than the %d rows of the embedding", length, rows_);
    return pos_.narrow(1, 0, length);
  }

 private:
  std::int64_t rows_, cols_;
  at::Tensor pos_;
};

class EmbedSeqImpl : public KLayer<EmbedSeqImpl> {
 public:
  EmbedSeqImpl(std::string text, std::int64_t rows, std::int64_t cols, std::int64_t length)
      : KLayer(std::move(text)), rows_(rows), cols_(cols), length_(length) {
    reset();
  }
  void reset() override {
    tok_ = register_module("tok", torch::nn::Embedding(rows_, cols_));
    pos_ = register_module(
        "pos",
        std::make_shared<EmbedPosImpl>(
            absl::StrFormat("kscope::embedpos(rows=%d, cols=%d)", length_, cols_), length_, cols_));
  }
  at::Tensor forward(const at::Tensor& x) { return tok_->forward(x) + pos_->forward(x); }

 private:
  std::int64_t rows_, cols_, length_;
  torch::nn::Embedding tok_{nullptr};
  std::shared_ptr<EmbedPosImpl> pos_;
};

// Fails naming the kind unless every option named is at least 1.
void Positive(const OptionSet& o, std::initializer_list<const char*> names) {
  for (const char* name : names) AtLeast(o, name, 1);
}

}  // namespace

std::vector<ModuleKind> KEmbedKinds() {
  std::vector<ModuleKind> kinds = {
      LeafKind<EmbedPosImpl>(
          "embedpos", {Required("rows", OptionType::kLong), Required("cols", OptionType::kLong)},
          [](const OptionSet& o) -> std::shared_ptr<torch::nn::Module> {
            Positive(o, {"rows", "cols"});
            return std::make_shared<EmbedPosImpl>(KLayerText(o), o.Long("rows"), o.Long("cols"));
          }),
      LeafKind<EmbedSeqImpl>(
          "embedseq",
          {Required("rows", OptionType::kLong), Required("cols", OptionType::kLong),
           Required("length", OptionType::kLong)},
          [](const OptionSet& o) -> std::shared_ptr<torch::nn::Module> {
            Positive(o, {"rows", "cols", "length"});
            return std::make_shared<EmbedSeqImpl>(KLayerText(o), o.Long("rows"), o.Long("cols"),
                                                  o.Long("length"));
          }),
  };
  kinds.back().internal = {{"tok", "embed"}, {"pos", "embedpos"}};
  return kinds;
}

}  // namespace kscope::nn
