// The attention and transformer family (ktorch-api.md §2.1):
//   attention      `dim `heads (required), `dropout 0, `bias 1b, `addbias 0b, `addzero 0b,
//                  `kdim and `vdim (null: `dim; the two must be equal, as libtorch's forward
//                  needs keys and values of one size); q;k;v [;padmask [;mask]] -> (output;
//                  weights)
//   encoderlayer   `in `heads (required), `dim 2048, `dropout .1, `fn `relu (or `gelu);
//                  src [;mask [;padmask]] -> output
//   decoderlayer   the same options; tgt;memory [;tgtmask;memorymask;tgtpadmask;memorypadmask]
//   encoder        `encoderlayer (required: the layer's definition, (`encoderlayer;512;8),
//                  (512;8), 512 8 or `in`heads!512 8), `layers (required, 0 or more), then
//                  `layernorm (none; a width, or a layernorm definition: 512, (`layernorm;512),
//                  `shape`eps!(512;1e-6)) applied last; the encoderlayer's inputs
//   decoder        likewise with `decoderlayer; the decoderlayer's inputs
//   transformer    `in 512, `heads 8, `elayers 6, `dlayers 6, `dim 2048, `dropout .1, `fn `relu,
//                  `encoder and `decoder (none: made from the other options; or an encoder or
//                  decoder definition, which replaces them); src;tgt [;srcmask;tgtmask;
//                  memorymask;srcpadmask;tgtpadmask;memorypadmask]
// Masks follow libtorch's argument order; those left out are absent. The nested definitions
// echo as ktorch's do: the layer and the norm as their options, a custom encoder or decoder as
// `module`options!(kind;options), none as an empty dictionary.
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

// The options of the layers, a static copy for the encoder's and decoder's nested definitions.
absl::Span<const OptionSpec> LayerOptions() {
  static const auto* const specs = new std::vector<OptionSpec>(LayerSpecs());
  return *specs;
}

// The options of kind `name` in the module table (the kinds a definition can nest).
template <const char* Name>
absl::Span<const OptionSpec> TableOptions() {
  return FindModuleKind(Name)->options;
}
constexpr char kLayerNormName[] = "layernorm";
constexpr char kEncoderName[] = "encoder";
constexpr char kDecoderName[] = "decoder";

const NestedKind kEncoderLayerDefinition{"encoderlayer", LayerOptions};
const NestedKind kDecoderLayerDefinition{"decoderlayer", LayerOptions};
const NestedKind kLayerNormDefinition{kLayerNormName, TableOptions<kLayerNormName>};
const NestedKind kEncoderDefinition{kEncoderName, TableOptions<kEncoderName>, /*echo_kind=*/true};
const NestedKind kDecoderDefinition{kDecoderName, TableOptions<kDecoderName>, /*echo_kind=*/true};

OptionSpec NestedOption(const char* name, const NestedKind& kind, bool required) {
  OptionSpec spec{name, OptionType::kNested, {}, required};
  spec.nested = &kind;
  return spec;
}

// The options of encoder and decoder, in ktorch's order: the layer's definition, the count and
// the final normalization.
std::vector<OptionSpec> StackSpecs(const NestedKind& layer) {
  return {NestedOption(layer.kind, layer, /*required=*/true), Required("layers", OptionType::kLong),
          NestedOption("layernorm", kLayerNormDefinition, /*required=*/false)};
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

// The module nested option `name` defines, made by its kind in the module table, as libtorch's
// type-erased module.
torch::nn::AnyModule NestedModule(const OptionSet& o, const char* name, const NestedKind& kind) {
  const ModuleKind& made = *FindModuleKind(kind.kind);
  return made.any(made.make(o.NestedSet(name)));
}

// TransformerEncoderOptions or TransformerDecoderOptions: `layers copies of the layer, then
// the `layernorm given, if any.
template <typename StackOptions, typename LayerOptions>
StackOptions Stack(const OptionSet& o, const NestedKind& layer) {
  AtLeast(o, "layers", 0);
  StackOptions options(Layer<LayerOptions>(o.NestedSet(layer.kind)), o.Long("layers"));
  if (!o.IsNull("layernorm")) options.norm(NestedModule(o, "layernorm", kLayerNormDefinition));
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
       {"fn", OptionType::kSymbol, std::string("relu")},
       NestedOption("encoder", kEncoderDefinition, /*required=*/false),
       NestedOption("decoder", kDecoderDefinition, /*required=*/false)},
      [](const OptionSet& o) {
        CheckHeads(o, "in");
        for (const char* positive : {"elayers", "dlayers", "dim"}) AtLeast(o, positive, 1);
        torch::nn::TransformerOptions options(o.Long("in"), o.Long("heads"), o.Long("elayers"),
                                              o.Long("dlayers"));
        options.dim_feedforward(o.Long("dim")).dropout(Probability(o)).activation(Activation(o));
        if (!o.IsNull("encoder"))
          options.custom_encoder(NestedModule(o, "encoder", kEncoderDefinition));
        if (!o.IsNull("decoder"))
          options.custom_decoder(NestedModule(o, "decoder", kDecoderDefinition));
        return options;
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
              "encoder", StackSpecs(kEncoderLayerDefinition),
              [](const OptionSet& o) {
                return Stack<tnn::TransformerEncoderOptions, tnn::TransformerEncoderLayerOptions>(
                    o, kEncoderLayerDefinition);
              }),
          Masked<tnn::TransformerDecoderImpl, 2, 6>(
              "decoder", StackSpecs(kDecoderLayerDefinition),
              [](const OptionSet& o) {
                return Stack<tnn::TransformerDecoderOptions, tnn::TransformerDecoderLayerOptions>(
                    o, kDecoderLayerDefinition);
              }),
          Transformer()};
}

}  // namespace kscope::nn
