// The table of module kinds: the containers and core layers defined here, joined with the
// families of module_families.h. Each entry restates ktorch's option names, order and defaults
// (../shared/reference/ktorch-api.md §2.1) and maps them onto libtorch's options.
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>

#include "api/nn/kind_names.h"
#include "api/nn/module_families.h"
#include "api/nn/module_kind.h"
#include "runtime/errors.h"

namespace kscope::nn {
namespace {

using torch::nn::Module;

ModuleKind Sequential() {
  using Impl = torch::nn::SequentialImpl;
  return ModuleKind{
      "sequential",
      {},
      [](const OptionSet&) -> std::shared_ptr<Module> { return std::make_shared<Impl>(); },
      [](Module& m, const std::vector<at::Tensor>& x) -> ModuleOutput {
        return dynamic_cast<Impl&>(m).forward(x[0]);
      },
      1,
      1,
      nullptr,
      [](Module& parent, const std::string& name, const ModuleKind& kind,
         const std::shared_ptr<Module>& child) {
        if (!kind.any) {
          // ktorch's text: libtorch's sequential cannot hold a module with a templated forward.
          Fail("%s: unable to create type-erased module, forward method uses template", kind.name);
        }
        auto& sequence = dynamic_cast<Impl&>(parent);
        const std::string used = name.empty() ? std::to_string(sequence.size()) : name;
        sequence.push_back(used, kind.any(child));
        return used;
      }};
}

std::vector<ModuleKind> Kinds() {
  std::vector<ModuleKind> kinds;
  kinds.push_back(Sequential());
  kinds.push_back(CallbackKind());
  kinds.push_back(TorchScriptKind());
  kinds.push_back(ExportedKind());
  kinds.push_back(Plain<torch::nn::IdentityImpl>("identity"));
  kinds.push_back(Leaf<torch::nn::LinearImpl>(
      "linear",
      {Required("in", OptionType::kLong),
       Required("out", OptionType::kLong),
       {"bias", OptionType::kBool, true}},
      [](const OptionSet& o) {
        return torch::nn::LinearOptions(o.Long("in"), o.Long("out")).bias(o.Bool("bias"));
      }));
  kinds.push_back(Leaf<torch::nn::FlattenImpl>(
      "flatten",
      {{"start", OptionType::kLong, std::int64_t{1}}, {"end", OptionType::kLong, std::int64_t{-1}}},
      [](const OptionSet& o) {
        return torch::nn::FlattenOptions().start_dim(o.Long("start")).end_dim(o.Long("end"));
      }));
  for (auto family :
       {ContainerKinds, ActivationKinds, DropoutKinds, ConvKinds, PoolKinds, NormKinds, EmbedKinds,
        RecurrentKinds, TransformerKinds, ResampleKinds, DistanceKinds, PaddingKinds, KShapeKinds,
        KTransformKinds, KEmbedKinds, SelfAttentionKinds}) {
    for (ModuleKind& k : family()) kinds.push_back(std::move(k));
  }
  return kinds;
}

}  // namespace

const ModuleKind* FindModuleKind(absl::string_view name) {
  static const KindTable* const table = new KindTable(Kinds());
  return table->Find(name);
}

const std::vector<std::string>& ModuleKindNames() {
  static const auto* const names = new std::vector<std::string>(NamesOf(Kinds()));
  return *names;
}

}  // namespace kscope::nn
