#include "api/nn/optimizer.h"

#include <algorithm>
#include <optional>

#include <torch/nn/modules/container/parameterdict.h>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "api/model/model_object.h"
#include "api/nn/module_object.h"
#include "api/nn/optimizer_kind.h"
#include "api/nn/optimizer_object.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "runtime/out_of_memory.h"
#include "scope/scope_stack.h"

namespace kscope {
namespace {

using nn::OptimizerObject;
using nn::ParameterBatch;

const nn::OptimizerKind& KindNamed(const std::string& kind) {
  const nn::OptimizerKind* k = nn::FindOptimizerKind(kind);
  if (k == nullptr) Fail("unrecognized optimizer: %s", kind);
  return *k;
}

// The parameters of module (or model) `source.from`: all of them, or those the keys name (a
// parameter by its full name, as ktorch's gpt example picks them, or every parameter of a
// submodule) and those of the children at the indices given.
ParameterBatch ModuleBatch(const ParameterSource& source) {
  auto m = nn::ModuleOrModelsModule("opt", source.from);
  const auto named = m->module().named_parameters();
  ParameterBatch batch{{m->module_ptr(), m->spec_ptr()}, {}};
  if (source.keys.empty() && source.indices.empty()) {
    for (const auto& item : named) batch.parameters.emplace_back(item.key(), item.value());
    return batch;
  }
  const std::vector<std::string> children = m->module().named_children().keys();
  std::vector<std::string> chosen;
  for (const std::string& key : source.keys) {
    if (const at::Tensor* p = named.find(key)) {
      batch.parameters.emplace_back(key, *p);
      continue;
    }
    const std::string prefix = key + ".";
    if (std::none_of(named.begin(), named.end(),
                     [&](const auto& item) { return absl::StartsWith(item.key(), prefix); })) {
      Fail("opt: no parameter or child module `%s in %s module", key, m->spec().kind->name);
    }
    chosen.push_back(key);
  }
  for (std::int64_t i : source.indices) {
    if (i < 0 || i >= static_cast<std::int64_t>(children.size())) {
      Fail("opt: child index %d invalid for %s module with %d child module(s)", i,
           m->spec().kind->name, children.size());
    }
    chosen.push_back(children[i]);
  }
  for (const std::string& child : chosen) {
    const std::string prefix = child + ".";
    for (const auto& item : named) {
      if (item.key().compare(0, prefix.size(), prefix) == 0)
        batch.parameters.emplace_back(item.key(), item.value());
    }
  }
  return batch;
}

// Loose tensors: a tensor, a vector (all, or at indices) or a dictionary (all, or under keys),
// held in a parameter dictionary made for them (ktorch's parmdict).
ParameterBatch LooseBatch(const ParameterSource& source) {
  const Object o = HandleTable::Global().Get(source.from);
  std::vector<std::pair<std::string, at::Tensor>> chosen;
  if (const at::Tensor* t = o.tensor()) {
    if (!source.keys.empty() || !source.indices.empty())
      Fail("opt: a tensor takes no keys or indices");
    chosen.emplace_back("0", *t);
  } else if (const TensorVector* v = o.vector()) {
    if (!source.keys.empty()) Fail("opt: a vector takes indices, not keys");
    for (std::size_t i = 0; source.indices.empty() && i < v->size(); ++i)
      chosen.emplace_back(std::to_string(i), (*v)[i]);
    for (std::int64_t i : source.indices) {
      if (i < 0 || i >= static_cast<std::int64_t>(v->size()))
        Fail("opt: vector index %d invalid for %d tensor(s)", i, v->size());
      chosen.emplace_back(std::to_string(i), (*v)[i]);
    }
  } else if (const TensorDict* d = o.dict()) {
    if (!source.indices.empty()) Fail("opt: a dictionary takes keys, not indices");
    if (source.keys.empty()) {
      for (const auto& item : *d) chosen.emplace_back(item.key(), item.value());
    }
    for (const std::string& key : source.keys) {
      const at::Tensor* t = d->find(key);
      if (t == nullptr) Fail("opt: no key `%s in dictionary", key);
      chosen.emplace_back(key, *t);
    }
  }
  auto holder = std::make_shared<torch::nn::ParameterDictImpl>();
  for (const auto& [name, t] : chosen) holder->insert(name, t);
  return ParameterBatch{{std::move(holder), nullptr}, std::move(chosen)};
}

// The parameters `source` names (its handle stays the caller's).
ParameterBatch BatchOf(const ParameterSource& source) {
  if (source.from.is_null()) return {};
  const ObjectClass c = HandleTable::Global().Info(source.from).object_class;
  switch (c) {
    case ObjectClass::kModule:
    case ObjectClass::kModel: return ModuleBatch(source);
    case ObjectClass::kTensor:
    case ObjectClass::kVector:
    case ObjectClass::kDictionary: return LooseBatch(source);
    default:
      Fail("opt: expected module, model, tensor, vector or dictionary, given %s", ClassName(c));
  }
}

// `base` with the options given positionally and by name put in.
nn::OptionSet Override(const nn::OptimizerKind& kind, const nn::OptionSet& base,
                       const std::vector<nn::OptionValue>& positional,
                       const nn::NamedValues& named) {
  const nn::OptionSet given = nn::OptionSet::Parse(kind.name, kind.options, positional, named);
  const std::vector<std::string> names = nn::OptionNames(kind.options);
  absl::flat_hash_set<std::string> chosen(names.begin(), names.begin() + positional.size());
  for (const auto& item : named) chosen.insert(item.first);
  nn::NamedValues values = base.Values(true);
  for (auto& [name, value] : values) {
    if (chosen.contains(name)) value = given.At(name.c_str());
  }
  return nn::OptionSet::Parse(kind.name, kind.options, {}, values);
}

// The kind of the module holding parameter `name` in `holder` (the deepest module of its
// definition the dotted name reaches), or parmdict for loose tensors.
std::string HolderKind(const nn::ParameterHolder& holder, const std::string& name) {
  if (holder.spec == nullptr) return "parmdict";
  const nn::ModuleSpec* spec = holder.spec.get();
  const std::vector<absl::string_view> path = absl::StrSplit(name, '.');
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    auto it = std::find_if(spec->children.begin(), spec->children.end(),
                           [&](const auto& c) { return c->name == path[i]; });
    if (it == spec->children.end()) break;
    spec = it->get();
  }
  return spec->kind->name;
}

void CheckRate(double rate) {
  if (!(rate >= 0)) Fail("lr: invalid learning rate %g", rate);
}

}  // namespace

Handle opt(const std::string& kind, const std::vector<nn::OptionValue>& positional,
           const nn::NamedValues& named) {
  return opt_group(kind, 0, ParameterSource{}, positional, named);
}

Handle opt_module(const std::string& kind, Handle module,
                  const std::vector<nn::OptionValue>& positional, const nn::NamedValues& named) {
  const ParameterSource source{module, {}, {}};
  nn::ModuleOrModelsModule("opt", source.from);  // a module or a model only, by this name
  return opt_group(kind, 0, source, positional, named);
}

Handle opt_group(const std::string& kind, std::int64_t group, const ParameterSource& parameters,
                 const std::vector<nn::OptionValue>& positional, const nn::NamedValues& named) {
  const nn::OptimizerKind& k = KindNamed(kind);
  auto object = OptimizerObject::Make(k, nn::OptionSet::Parse(kind, k.options, positional, named));
  object->Add(group, BatchOf(parameters), nullptr);
  return Own(Object(std::shared_ptr<CompositeObject>(std::move(object))), "opt");
}

void opt_edit(Handle o, std::int64_t group, const ParameterSource& parameters,
              const std::vector<nn::OptionValue>& positional, const nn::NamedValues& named) {
  auto object = nn::OptimizerOf("opt", o);
  ParameterBatch batch = BatchOf(parameters);
  std::optional<nn::OptionSet> options;
  if (!positional.empty() || !named.empty()) {
    options = Override(*object->spec().kind, object->group_options(group), positional, named);
  }
  object->Add(group, std::move(batch), options ? &*options : nullptr);
}

std::vector<std::string> opt_options(const std::string& kind) {
  const nn::OptimizerKind* k = nn::FindOptimizerKind(kind);
  return k ? nn::OptionNames(k->options) : std::vector<std::string>{};
}

OptimizerDescription describe_opt(Handle o, bool all_options) {
  auto object = nn::OptimizerOf("opt", o);
  const nn::OptimizerSpec& spec = object->spec();
  OptimizerDescription d{spec.kind->name, {}, {}};
  const auto& groups = object->optimizer().param_groups();
  for (std::size_t g = 0; g < groups.size(); ++g) {
    d.options.push_back(spec.groups[g].Values(all_options));
    for (std::size_t i = 0; i < groups[g].params().size(); ++i) {
      const at::Tensor& p = groups[g].params()[i];
      const nn::ParameterOrigin& origin = spec.origins[g][i];
      d.parameters.push_back(OptimizerParameter{
          static_cast<std::int64_t>(g),
          static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(p.unsafeGetTensorImpl())),
          HolderKind(spec.holders[origin.holder], origin.name), origin.name, p.sizes().vec()});
    }
  }
  return d;
}

void step(Handle o) {
  auto object = nn::OptimizerOf("step", o);
  if (const char* refusal = object->spec().kind->step_refusal) Fail("%s", refusal);
  NamingOutOfMemory("step", [&] { object->optimizer().step(); });
}

namespace {

// The optimizer of handle h: an optimizer, or a model's (ktorch's lr m).
std::shared_ptr<nn::OptimizerObject> OptimizerOrModels(const char* fn, Handle h) {
  if (HandleTable::Global().Info(h).object_class == ObjectClass::kModel)
    return nn::ModelOf(fn, h)->model().optimizer;
  return nn::OptimizerOf(fn, h);
}

}  // namespace

std::vector<double> lr(Handle o) {
  std::vector<double> rates;
  for (const auto& group : OptimizerOrModels("lr", o)->optimizer().param_groups())
    rates.push_back(group.options().get_lr());
  return rates;
}

void lr(Handle o, double rate) {
  auto object = OptimizerOrModels("lr", o);
  CheckRate(rate);
  object->set_lr(rate);
}

void lr(Handle o, const std::vector<double>& rates) {
  auto object = OptimizerOrModels("lr", o);
  if (static_cast<std::int64_t>(rates.size()) != object->group_count()) {
    Fail("lr: %d rates given for %d groups", rates.size(), object->group_count());
  }
  for (double rate : rates) CheckRate(rate);
  for (std::size_t g = 0; g < rates.size(); ++g)
    object->set_lr(static_cast<std::int64_t>(g), rates[g]);
}

}  // namespace kscope
