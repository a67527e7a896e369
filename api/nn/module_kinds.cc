// The table of module kinds. Each entry restates ktorch's option names, order and defaults
// (../shared/reference/ktorch-api.md §2.1) and maps them onto libtorch's options. libtorch
// modules derive virtually from torch::nn::Module, so the concrete class is reached with
// dynamic_cast (the kind in the definition tree guarantees it succeeds).
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>

#include "api/nn/module_kind.h"
#include "runtime/errors.h"

namespace kscope::nn {
namespace {

using torch::nn::Module;

// A leaf kind whose libtorch class is Impl, built from `options(o)`, with a one-tensor forward.
template <typename Impl, typename MakeImpl>
ModuleKind Leaf(std::string name, std::vector<OptionSpec> specs, MakeImpl make) {
  return ModuleKind{
      std::move(name), std::move(specs),
      [make](const OptionSet& o) -> std::shared_ptr<Module> { return make(o); },
      [](Module& m, const std::vector<at::Tensor>& x) { return dynamic_cast<Impl&>(m).forward(x[0]); },
      1,
      [](const std::shared_ptr<Module>& m) { return torch::nn::AnyModule(std::dynamic_pointer_cast<Impl>(m)); },
      nullptr};
}

ModuleKind Sequential() {
  using Impl = torch::nn::SequentialImpl;
  return ModuleKind{
      "sequential", {},
      [](const OptionSet&) -> std::shared_ptr<Module> { return std::make_shared<Impl>(); },
      [](Module& m, const std::vector<at::Tensor>& x) { return dynamic_cast<Impl&>(m).forward(x[0]); },
      1, nullptr,
      [](Module& parent, const std::string& name, const ModuleKind& kind, const std::shared_ptr<Module>& child) {
        if (!kind.any) {
          Fail("sequential: unable to add a %s, its forward method cannot be type-erased", kind.name);
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
  kinds.push_back(Leaf<torch::nn::IdentityImpl>("identity", {}, [](const OptionSet&) {
    return std::make_shared<torch::nn::IdentityImpl>();
  }));
  kinds.push_back(Leaf<torch::nn::LinearImpl>(
      "linear",
      {{"in", OptionType::kLong, {}, true}, {"out", OptionType::kLong, {}, true}, {"bias", OptionType::kBool, true}},
      [](const OptionSet& o) {
        return std::make_shared<torch::nn::LinearImpl>(
            torch::nn::LinearOptions(o.Long("in"), o.Long("out")).bias(o.Bool("bias")));
      }));
  kinds.push_back(Leaf<torch::nn::ReLUImpl>("relu", {{"inplace", OptionType::kBool, false}}, [](const OptionSet& o) {
    return std::make_shared<torch::nn::ReLUImpl>(torch::nn::ReLUOptions(o.Bool("inplace")));
  }));
  kinds.push_back(Leaf<torch::nn::LeakyReLUImpl>(
      "leakyrelu", {{"slope", OptionType::kDouble, 0.01}, {"inplace", OptionType::kBool, false}},
      [](const OptionSet& o) {
        return std::make_shared<torch::nn::LeakyReLUImpl>(
            torch::nn::LeakyReLUOptions().negative_slope(o.Double("slope")).inplace(o.Bool("inplace")));
      }));
  kinds.push_back(Leaf<torch::nn::SigmoidImpl>("sigmoid", {}, [](const OptionSet&) {
    return std::make_shared<torch::nn::SigmoidImpl>();
  }));
  kinds.push_back(Leaf<torch::nn::TanhImpl>("tanh", {}, [](const OptionSet&) {
    return std::make_shared<torch::nn::TanhImpl>();
  }));
  kinds.push_back(Leaf<torch::nn::GELUImpl>("gelu", {}, [](const OptionSet&) {
    return std::make_shared<torch::nn::GELUImpl>();
  }));
  kinds.push_back(Leaf<torch::nn::DropoutImpl>(
      "drop", {{"p", OptionType::kDouble, 0.5}, {"inplace", OptionType::kBool, false}}, [](const OptionSet& o) {
        return std::make_shared<torch::nn::DropoutImpl>(
            torch::nn::DropoutOptions(o.Double("p")).inplace(o.Bool("inplace")));
      }));
  kinds.push_back(Leaf<torch::nn::FlattenImpl>(
      "flatten", {{"start", OptionType::kLong, std::int64_t{1}}, {"end", OptionType::kLong, std::int64_t{-1}}},
      [](const OptionSet& o) {
        return std::make_shared<torch::nn::FlattenImpl>(
            torch::nn::FlattenOptions().start_dim(o.Long("start")).end_dim(o.Long("end")));
      }));
  kinds.push_back(Leaf<torch::nn::SoftmaxImpl>("softmax", {{"dim", OptionType::kLong, {}, true}}, [](const OptionSet& o) {
    return std::make_shared<torch::nn::SoftmaxImpl>(torch::nn::SoftmaxOptions(o.Long("dim")));
  }));
  kinds.push_back(Leaf<torch::nn::LogSoftmaxImpl>("logsoftmax", {{"dim", OptionType::kLong, {}, true}}, [](const OptionSet& o) {
    return std::make_shared<torch::nn::LogSoftmaxImpl>(torch::nn::LogSoftmaxOptions(o.Long("dim")));
  }));
  return kinds;
}

}  // namespace

const ModuleKind* FindModuleKind(absl::string_view name) {
  static const KindTable* const table = new KindTable(Kinds());
  return table->Find(name);
}

}  // namespace kscope::nn
