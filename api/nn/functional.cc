#include "api/nn/functional.h"

#include <memory>
#include <utility>

#include <ATen/ops/bilinear.h>
#include <ATen/ops/flatten.h>
#include <ATen/ops/linear.h>
#include <ATen/ops/pdist.h>
#include <ATen/ops/prelu.h>

#include "absl/strings/string_view.h"
#include "api/nn/forward_io.h"
#include "api/nn/module_kind.h"
#include "runtime/errors.h"

namespace kscope {
namespace {

using Tensors = std::vector<at::Tensor>;

// A form computed straight from its inputs, with no layer behind it.
struct Direct {
  const char* name;
  std::size_t fewest_inputs;
  std::size_t most_inputs;
  std::vector<nn::OptionSpec> options;
  at::Tensor (*run)(const Tensors& x, const nn::OptionSet& o);
};

// The optional bias x[i] (undefined when not given).
at::Tensor Bias(const Tensors& x, std::size_t i) { return x.size() > i ? x[i] : at::Tensor(); }

const Direct* FindDirect(absl::string_view kind) {
  static const auto* const forms = new std::vector<Direct>{
      {"linear",
       2,
       3,
       {},
       [](const Tensors& x, const nn::OptionSet&) { return at::linear(x[0], x[1], Bias(x, 2)); }},
      {"bilinear",
       3,
       4,
       {},
       [](const Tensors& x, const nn::OptionSet&) {
         return at::bilinear(x[0], x[1], x[2], Bias(x, 3));
       }},
      {"prelu",
       2,
       2,
       {},
       [](const Tensors& x, const nn::OptionSet&) { return at::prelu(x[0], x[1]); }},
      {"pdist",
       1,
       1,
       {{"p", nn::OptionType::kDouble, 2.0}},
       [](const Tensors& x, const nn::OptionSet& o) { return at::pdist(x[0], o.Double("p")); }},
      // ktorch's functional flatten starts at dimension 0 (the layer at 1, keeping the batch)
      {"flatten",
       1,
       1,
       {{"start", nn::OptionType::kLong, std::int64_t{0}},
        {"end", nn::OptionType::kLong, std::int64_t{-1}}},
       [](const Tensors& x, const nn::OptionSet& o) {
         return at::flatten(x[0], o.Long("start"), o.Long("end"));
       }},
  };
  for (const Direct& d : *forms) {
    if (kind == d.name) return &d;
  }
  return nullptr;
}

// The leaf module kind `kind`; kscope::Error unless there is one.
const nn::ModuleKind& LayerKind(const std::string& kind) {
  const nn::ModuleKind* k = nn::FindModuleKind(kind);
  if (k == nullptr) Fail("functional: unrecognized layer `%s", kind);
  if (k->add_child) Fail("functional: %s is a container, not a layer", kind);
  return *k;
}

// Whether the layer's options ask it to write into its input.
bool InPlace(const nn::ModuleKind& kind, const nn::OptionSet& o) {
  for (const nn::OptionSpec& s : kind.options) {
    if (absl::string_view(s.name) == "inplace") return o.Bool("inplace");
  }
  return false;
}

}  // namespace

Signature functional_signature(const std::string& kind) {
  if (const Direct* d = FindDirect(kind))
    return {d->fewest_inputs, d->most_inputs, nn::OptionNames(d->options)};
  const nn::ModuleKind& k = LayerKind(kind);
  return {k.inputs, k.max_inputs, nn::OptionNames(k.options)};
}

Result functional(const std::string& kind, absl::Span<const Operand> inputs,
                  const std::vector<nn::OptionValue>& positional, const nn::NamedValues& named) {
  // fn names the call in messages and, as the new handle's origin, must outlive it: the
  // tables' names do, the caller's `kind` need not.
  if (const Direct* d = FindDirect(kind)) {
    const char* fn = d->name;
    nn::CheckInputCount(fn, kind, d->fewest_inputs, d->most_inputs, inputs.size());
    const nn::OptionSet o = nn::OptionSet::Parse(kind, d->options, positional, named);
    Resolved in = Resolve(fn, inputs);
    return Emit(fn, d->run(Tensors(in.tensors.begin(), in.tensors.end()), o), in.any_handle);
  }
  const nn::ModuleKind& k = LayerKind(kind);
  const char* fn = k.name.c_str();
  nn::CheckInputCount(fn, k, inputs.size());
  const nn::OptionSet o = nn::OptionSet::Parse(kind, k.options, positional, named);
  const std::shared_ptr<torch::nn::Module> layer = k.make(o);
  Resolved in = Resolve(fn, inputs);
  Tensors x(in.tensors.begin(), in.tensors.end());
  const bool in_place = InPlace(k, o);
  if (in_place && !in.any_handle) {
    for (at::Tensor& t : x) t = t.clone();  // data belongs to the caller (a view of k data from q)
  }
  nn::ModuleOutput out = k.forward(*layer, x);
  if (in_place && in.any_handle) return Result();
  return nn::EmitOutput(fn, std::move(out), in.any_handle);
}

}  // namespace kscope
