// The families of module kinds (one table per file, api/nn/kinds/*.cc) and the helpers
// their tables share: building a leaf kind from a libtorch class and its options, required
// options, long-or-long-list options as libtorch's ExpandingArray, and the checks that make an
// option value libtorch would only reject at forward fail when the module is made.
//
// Internal to api/nn. Every check throws kscope::Error naming the kind ("conv2d: option `stride
// must be at least 1, given 0").
#ifndef KSCOPE_API_NN_MODULE_FAMILIES_H_
#define KSCOPE_API_NN_MODULE_FAMILIES_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <c10/util/Optional.h>
#include <torch/expanding_array.h>

#include "absl/strings/str_format.h"
#include "api/nn/module_kind.h"
#include "api/nn/options.h"
#include "runtime/errors.h"

namespace kscope::nn {

// The families: each returns its kinds, kinds/module_table.cc joins them into one table.
std::vector<ModuleKind> ActivationKinds();  // relu .. mish, softmax softmin logsoftmax
std::vector<ModuleKind> DropoutKinds();     // drop drop2d drop3d adrop fadrop
std::vector<ModuleKind> ConvKinds();        // conv1d conv2d conv3d convtranspose1d-3d
std::vector<ModuleKind>
PoolKinds();  // maxpool avgpool adaptavg adaptmax (1d 2d 3d) fmaxpool lppool
std::vector<ModuleKind>
NormKinds();  // batchnorm instancenorm (1d 2d 3d) groupnorm layernorm localnorm crossmap2d
std::vector<ModuleKind> EmbedKinds();     // embed embedbag
std::vector<ModuleKind> ResampleKinds();  // upsample interpolate fold unfold
std::vector<ModuleKind> DistanceKinds();  // normalize pairwise similar bilinear
std::vector<ModuleKind>
PaddingKinds();  // pad1d pad2d pad3d reflect1d reflect2d replicate1d-3d zeropad2d
std::vector<ModuleKind> RecurrentKinds();  // rnn gru lstm
std::vector<ModuleKind>
TransformerKinds();  // attention transformer encoderlayer decoderlayer encoder decoder
std::vector<ModuleKind>
ContainerKinds();              // seqnest seqlist seqdict seqjoin fork residual recur ...
ModuleKind CallbackKind();     // callback (api/nn/callback_registry.h)
ModuleKind TorchScriptKind();  // torchscript (api/nn/torchscript.h)
ModuleKind ExportedKind();     // pt2: torch.export packages (kinds/exported.cc)
// The k-api layers (not PyTorch modules; ktorch's docs/kmodules.rst):
std::vector<ModuleKind>
KShapeKinds();  // cat mul matmul expand reshape permute transpose squeeze ...
std::vector<ModuleKind> KTransformKinds();     // onehot pad randomcrop randomflip zscore droppath
std::vector<ModuleKind> KEmbedKinds();         // embedpos embedseq
std::vector<ModuleKind> SelfAttentionKinds();  // selfattention

// A leaf kind whose libtorch class is Impl, made by `make`, whose forward takes `Inputs`
// tensors; libtorch modules derive virtually from torch::nn::Module, so Impl is reached with
// dynamic_cast (the kind in the definition tree guarantees it succeeds).
template <typename Impl, std::size_t Inputs = 1>
ModuleKind LeafKind(std::string name, std::vector<OptionSpec> specs, ModuleKind::Make make) {
  using torch::nn::Module;
  return ModuleKind{std::move(name),
                    std::move(specs),
                    std::move(make),
                    [](Module& m, const std::vector<at::Tensor>& x) -> ModuleOutput {
                      return ApplyForward<Impl>(m, x, std::make_index_sequence<Inputs>());
                    },
                    Inputs,
                    Inputs,
                    [](const std::shared_ptr<Module>& m) {
                      return torch::nn::AnyModule(std::dynamic_pointer_cast<Impl>(m));
                    },
                    nullptr};
}

// A leaf kind built as Impl(options(o)): `options` maps the parsed options onto libtorch's.
template <typename Impl, std::size_t Inputs = 1, typename MakeOptions>
ModuleKind Leaf(std::string name, std::vector<OptionSpec> specs, MakeOptions options) {
  return LeafKind<Impl, Inputs>(
      std::move(name), std::move(specs),
      [options](const OptionSet& o) -> std::shared_ptr<torch::nn::Module> {
        return std::make_shared<Impl>(options(o));
      });
}

// A leaf kind without options.
template <typename Impl>
ModuleKind Plain(std::string name) {
  return LeafKind<Impl>(std::move(name), {},
                        [](const OptionSet&) -> std::shared_ptr<torch::nn::Module> {
                          return std::make_shared<Impl>();
                        });
}

// ktorch's `parms and `buffers options (tensors by name, none by default), and registering
// them on a module: copies, so the definition keeps the values it was given; parameters
// require gradients. Fails naming the kind for a repeated name.
std::vector<OptionSpec> NamedTensorOptions();
void RegisterNamedTensors(torch::nn::Module& m, const OptionSet& o);

// An option that must be given.
inline OptionSpec Required(const char* name, OptionType type) { return {name, type, {}, true}; }
// `spec` as a per-dimension option (OptionSpec::per_dimension).
inline OptionSpec PerDimensionOption(OptionSpec spec) {
  spec.per_dimension = true;
  return spec;
}
// A pool's `stride: per dimension, null meaning the window `size.
inline OptionSpec StrideOfSize(OptionType type) {
  OptionSpec spec = PerDimensionOption({"stride", type, {}});
  spec.null_stands_for = [](const OptionSet& o) { return o.At("size"); };
  return spec;
}
// `spec` echoing a null as q's typed null (OptionSpec::null_echo), as ktorch does for it.
inline OptionSpec TypedNullEcho(OptionSpec spec) {
  spec.null_echo = OptionSpec::NullEcho::kTypedNull;
  return spec;
}
// `spec` given by name only (OptionSpec::by_name_only).
inline OptionSpec ByNameOnly(OptionSpec spec) {
  spec.by_name_only = true;
  return spec;
}
// ktorch's `inplace` flag, off by default.
inline OptionSpec Inplace() { return {"inplace", OptionType::kBool, false}; }

// Fails naming the kind unless `ok`: "<kind>: <message>".
template <typename... Args>
void Check(bool ok, const OptionSet& o, const absl::FormatSpec<Args...>& message,
           const Args&... args) {
  if (!ok) Fail("%s: %s", o.kind(), absl::StrFormat(message, args...));
}

// Fails naming the kind unless every number in option `name` (a long, a long list or a double;
// null passes) is at least `least`.
void AtLeast(const OptionSet& o, const char* name, double least);

// The long list of option `name`, checked to hold 1 or `size` values.
const std::vector<std::int64_t>& Sized(const OptionSet& o, const char* name, std::size_t size);

// Option `name` (a long or D longs) as libtorch's D-dimensional ExpandingArray.
template <std::size_t D>
torch::ExpandingArray<D> Expand(const OptionSet& o, const char* name) {
  const std::vector<std::int64_t>& v = Sized(o, name, D);
  return v.size() == 1 ? torch::ExpandingArray<D>(v[0]) : torch::ExpandingArray<D>(v);
}

// Option `name` (T or null) as an optional.
template <typename T>
c10::optional<T> Optional(const OptionSet& o, const char* name) {
  if (o.IsNull(name)) return c10::nullopt;
  return std::get<T>(o.At(name));
}

}  // namespace kscope::nn

#endif  // KSCOPE_API_NN_MODULE_FAMILIES_H_
