// The attention and transformer family (ktorch-api.md §2.1):
//   attention      `dim `heads (required), `dropout 0, `bias 1b, `addbias 0b, `addzero 0b,
//                  `kdim and `vdim (null: `dim; the two must be equal, as libtorch's forward
//                  needs keys and values of one size); q;k;v [;padmask [;mask]] -> (output;
//                  weights)
//   encoderlayer   `in `heads (required), `dim 2048, `dropout .1, `fn `relu (or `gelu);
//                  src [;mask [;padmask]] -> output
//   decoderlayer   the same options; tgt;memory [;tgtmask;memorymask;tgtpadmask;memorypadmask]
//   encoder        the layer's options, then `layers (required) and `layernorm 0b; the
//                  encoderlayer's inputs
//   decoder        likewise; the decoderlayer's inputs
//   transformer    `in 512, `heads 8, `elayers 6, `dlayers 6, `dim 2048, `dropout .1, `fn `relu;
//                  src;tgt [;srcmask;tgtmask;memorymask;srcpadmask;tgtpadmask;memorypadmask]
// Masks follow libtorch's argument order; those left out are absent.
//
// Narrowed from ktorch: its encoder and decoder take a nested encoderlayer/decoderlayer
// definition (and a layernorm definition), and its transformer a custom `encoder and `decoder,
// but an option value cannot hold a definition (api/nn/options.h). Here the layer's options are
// flattened into the encoder's and decoder's (`in `heads `dim `dropout `fn, then `layers), the
// final normalization is a flag (`layernorm 1b: a LayerNorm over `in, as transformer's own), and
// transformer has no custom `encoder or `decoder.
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/modules/transformer.h>
#include <torch/nn/modules/transformercoder.h>
#include <torch/nn/modules/transformerlayer.h>

#include "api/nn/module_families.h"

namespace kscope::nn {
namespace {

using torch::nn::Module;

OptionSpec Dropout(double fallback) { return {"dropout", OptionType::kDouble, fallback}; }

// The options of encoderlayer and decoderlayer, in ktorch's order.
std::vector<OptionSpec> LayerSpecs() {
  return {Required("in", OptionType::kLong),
          Required("heads", OptionType::kLong),
          {"dim", OptionType::kLong, std::int64_t{2048}},
          Dropout(0.1),
          {"fn", OptionType::kSymbol, std::string("relu")}};
}

// The options of encoder and decoder: the layer's, then the count and the final normalization.
std::vector<OptionSpec> StackSpecs() {
  std::vector<OptionSpec> specs = LayerSpecs();
  specs.push_back(Required("layers", OptionType::kLong));
  specs.push_back({"layernorm", OptionType::kBool, false});
  return specs;
}

// Checks `dropout is a probability.
double Probability(const OptionSet& o) {
  const double p = o.Double("dropout");
  Check(p >= 0 && p <= 1, o, "option `dropout must be between 0 and 1, given %g", p);
  return p;
}

// Checks the embedding size `width and `heads are positive, the one divisible by the other.
void CheckHeads(const OptionSet& o, const char* width) {
  for (const char* positive : {width, "heads"}) AtLeast(o, positive, 1);
  Check(o.Long(width) % o.Long("heads") == 0, o,
        "option `%s must be divisible by `heads, given %d and %d", width, o.Long(width),
        o.Long("heads"));
}

torch::nn::activation_t Activation(const OptionSet& o) {
  const std::string& fn = o.Symbol("fn");
  if (fn == "relu") return torch::kReLU;
  if (fn == "gelu") return torch::kGELU;
  Fail("%s: unrecognized fn `%s, expecting relu or gelu", o.kind(), fn);
}

// TransformerEncoderLayerOptions or TransformerDecoderLayerOptions (they share these setters).
template <typename LayerOptions>
LayerOptions Layer(const OptionSet& o) {
  CheckHeads(o, "in");
  AtLeast(o, "dim", 1);
  return LayerOptions(o.Long("in"), o.Long("heads"))
      .dim_feedforward(o.Long("dim"))
      .dropout(Probability(o))
      .activation(Activation(o));
}

// TransformerEncoderOptions or TransformerDecoderOptions: `layers copies of the layer, then,
// with `layernorm, a LayerNorm over `in.
template <typename StackOptions, typename LayerOptions>
StackOptions Stack(const OptionSet& o) {
  const LayerOptions layer = Layer<LayerOptions>(o);
  AtLeast(o, "layers", 1);
  StackOptions options(layer, o.Long("layers"));
  if (o.Bool("layernorm")) {
    options.norm(
        torch::nn::AnyModule(torch::nn::LayerNorm(torch::nn::LayerNormOptions({o.Long("in")}))));
  }
  return options;
}

// The inputs followed by undefined tensors up to `count`.
std::vector<at::Tensor> Padded(const std::vector<at::Tensor>& x, std::size_t count) {
  std::vector<at::Tensor> padded(x);
  padded.resize(count);
  return padded;
}

// A leaf kind whose forward takes Fewest to Most tensors: the ones left out are passed to
// Impl's forward as undefined tensors, which libtorch reads as absent masks.
template <typename Impl, std::size_t Fewest, std::size_t Most, typename MakeOptions>
ModuleKind Masked(std::string name, std::vector<OptionSpec> specs, MakeOptions options) {
  ModuleKind kind = Leaf<Impl, Fewest>(std::move(name), std::move(specs), std::move(options));
  kind.forward = [](Module& m, const std::vector<at::Tensor>& x) -> ModuleOutput {
    return ApplyForward<Impl>(m, Padded(x, Most), std::make_index_sequence<Most>());
  };
  kind.max_inputs = Most;
  return kind;
}

ModuleKind Attention() {
  using Impl = torch::nn::MultiheadAttentionImpl;
  return ModuleKind{
      "attention",
      {Required("dim", OptionType::kLong),
       Required("heads", OptionType::kLong),
       Dropout(0),
       {"bias", OptionType::kBool, true},
       {"addbias", OptionType::kBool, false},
       {"addzero", OptionType::kBool, false},
       {"kdim", OptionType::kLongOrNull, {}},
       {"vdim", OptionType::kLongOrNull, {}}},
      [](const OptionSet& o) -> std::shared_ptr<Module> {
        CheckHeads(o, "dim");
        for (const char* positive : {"kdim", "vdim"}) AtLeast(o, positive, 1);
        const std::int64_t dim = o.Long("dim");
        const std::int64_t kdim = Optional<std::int64_t>(o, "kdim").value_or(dim);
        const std::int64_t vdim = Optional<std::int64_t>(o, "vdim").value_or(dim);
        // libtorch's forward asserts keys and values have one size.
        Check(kdim == vdim, o, "options `kdim and `vdim must be equal, given %d and %d", kdim,
              vdim);
        return std::make_shared<Impl>(torch::nn::MultiheadAttentionOptions(dim, o.Long("heads"))
                                          .dropout(Probability(o))
                                          .bias(o.Bool("bias"))
                                          .add_bias_kv(o.Bool("addbias"))
                                          .add_zero_attn(o.Bool("addzero"))
                                          .kdim(kdim)
                                          .vdim(vdim));
      },
      [](Module& m, const std::vector<at::Tensor>& inputs) -> ModuleOutput {
        const std::vector<at::Tensor> x = Padded(inputs, 5);
        auto [y, weights] =
            dynamic_cast<Impl&>(m).forward(x[0], x[1], x[2], x[3], /*need_weights=*/true, x[4]);
        return std::vector<at::Tensor>{y, weights};
      },
      3,
      5,
      [](const std::shared_ptr<Module>& m) {
        return torch::nn::AnyModule(std::dynamic_pointer_cast<Impl>(m));
      },
      nullptr};
}

ModuleKind Transformer() {
  return Masked<torch::nn::TransformerImpl, 2, 8>(
      "transformer",
      {{"in", OptionType::kLong, std::int64_t{512}},
       {"heads", OptionType::kLong, std::int64_t{8}},
       {"elayers", OptionType::kLong, std::int64_t{6}},
       {"dlayers", OptionType::kLong, std::int64_t{6}},
       {"dim", OptionType::kLong, std::int64_t{2048}},
       Dropout(0.1),
       {"fn", OptionType::kSymbol, std::string("relu")}},
      [](const OptionSet& o) {
        CheckHeads(o, "in");
        for (const char* positive : {"elayers", "dlayers", "dim"}) AtLeast(o, positive, 1);
        return torch::nn::TransformerOptions(o.Long("in"), o.Long("heads"), o.Long("elayers"),
                                             o.Long("dlayers"))
            .dim_feedforward(o.Long("dim"))
            .dropout(Probability(o))
            .activation(Activation(o));
      });
}

}  // namespace

std::vector<ModuleKind> TransformerKinds() {
  namespace tnn = torch::nn;
  return {Attention(),
          Masked<tnn::TransformerEncoderLayerImpl, 1, 3>(
              "encoderlayer", LayerSpecs(), Layer<tnn::TransformerEncoderLayerOptions>),
          Masked<tnn::TransformerDecoderLayerImpl, 2, 6>(
              "decoderlayer", LayerSpecs(), Layer<tnn::TransformerDecoderLayerOptions>),
          Masked<tnn::TransformerEncoderImpl, 1, 3>(
              "encoder", StackSpecs(),
              Stack<tnn::TransformerEncoderOptions, tnn::TransformerEncoderLayerOptions>),
          Masked<tnn::TransformerDecoderImpl, 2, 6>(
              "decoder", StackSpecs(),
              Stack<tnn::TransformerDecoderOptions, tnn::TransformerDecoderLayerOptions>),
          Transformer()};
}

}  // namespace kscope::nn
