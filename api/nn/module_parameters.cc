#include "api/nn/module_parameters.h"

#include <algorithm>

#include <ATen/Functions.h>
#include <c10/core/GradMode.h>
#include <torch/nn/module.h>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_join.h"
#include "api/model/model_object.h"
#include "api/nn/module_object.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "runtime/names.h"
#include "scope/scope_stack.h"

namespace kscope {
namespace {

using nn::ModuleObject;
using nn::ModuleSpec;

constexpr char kCount[] = ".n";  // avgparms' key for the count

// A tensor's sizes for messages: "3 4", or "scalar".

std::shared_ptr<ModuleObject> ModuleOf(const char* fn, Handle q) {
  return nn::ModuleOf(fn, q, ObjectClass::kModule);
}

// One defined submodule: its dotted name, its definition and the libtorch module.
struct Submodule {
  std::string name;
  std::shared_ptr<ModuleSpec> spec;
  std::shared_ptr<torch::nn::Module> module;
};

void Collect(const ModuleSpec& spec, const torch::nn::Module& m, const std::string& prefix,
             std::vector<Submodule>* out) {
  const auto named = m.named_children();  // a new dictionary: keep it while reading
  for (const auto& c : spec.children) {
    const auto* found = named.find(c->name);
    if (found == nullptr) continue;
    out->push_back(Submodule{prefix + c->name, c, *found});
    Collect(*c, **found, out->back().name + ".", out);
  }
}

// q's defined submodules at every depth, depth first (q excluded).
std::vector<Submodule> Submodules(const ModuleSpec& spec, const torch::nn::Module& m) {
  std::vector<Submodule> out;
  Collect(spec, m, "", &out);
  return out;
}

// q (named "") and its submodules with their kinds, depth first, as ktorch lists them: each
// defined submodule followed by the internal submodules its kind is built of (embedseq's tok and
// pos).
NameKinds AllKinds(const ModuleObject& q) {
  NameKinds out;
  const auto add = [&](const std::string& name, const ModuleSpec& spec,
                       const torch::nn::Module& m) {
    out.emplace_back(name, spec.kind->name);
    const auto named = m.named_children();  // a new dictionary: keep it while reading
    for (const auto& [child, kind] : spec.kind->internal) {
      if (named.contains(child)) out.emplace_back(name.empty() ? child : name + "." + child, kind);
    }
  };
  add("", q.spec(), q.module());
  for (const Submodule& s : Submodules(q.spec(), q.module())) add(s.name, *s.spec, *s.module);
  return out;
}

// The submodule of q named `child`, or q itself for an empty name.
Submodule Find(const char* fn, const ModuleObject& q, const std::string& child) {
  if (child.empty()) return Submodule{"", q.spec_ptr(), q.module_ptr()};
  for (Submodule& s : Submodules(q.spec(), q.module())) {
    if (s.name == child) return std::move(s);
  }
  Fail("%s: no child module `%s in %s module", fn, child, q.spec().kind->name);
}

// The tensors `names` name among `named` (q's parameters or buffers, a `what`).
std::vector<at::Tensor> Lookup(const char* fn, const char* what, const ModuleObject& q,
                               const TensorDict& named, const std::vector<std::string>& names) {
  std::vector<at::Tensor> found;
  found.reserve(names.size());
  for (const std::string& name : names) {
    const at::Tensor* t = named.find(name);
    if (t == nullptr) Fail("%s: no %s `%s in %s module", fn, what, name, q.spec().kind->name);
    found.push_back(*t);
  }
  return found;
}

// Copies values[i] into targets[i] (named names[i]) once every value resolved to a tensor of
// its target's size.
void CopyIn(const char* fn, const char* what, const std::vector<std::string>& names,
            const std::vector<at::Tensor>& targets, const std::vector<Operand>& values) {
  if (values.size() != names.size())
    Fail("%s: %d name(s) but %d value(s)", fn, names.size(), values.size());
  const Resolved in = Resolve(fn, values);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (targets[i].sizes() != in.tensors[i].sizes()) {
      Fail("%s: size mismatch for %s `%s, %s vs %s", fn, what, names[i],
           SizeText(targets[i].sizes()), SizeText(in.tensors[i].sizes()));
    }
  }
  c10::AutoGradMode no_grad(false);
  for (std::size_t i = 0; i < targets.size(); ++i) targets[i].copy_(in.tensors[i]);
}

// freeze/unfreeze: sets requires_grad on all parameters, or the named ones (after copying in
// their values when given).
void SetRequiresGrad(const char* fn, bool flag, Handle q, const std::vector<std::string>* names,
                     const std::vector<Operand>* values) {
  auto m = ModuleOf(fn, q);
  const TensorDict parms = m->module().named_parameters();
  const std::vector<at::Tensor> targets =
      names ? Lookup(fn, "parameter", *m, parms, *names) : parms.values();
  if (values) CopyIn(fn, "parameter", *names, targets, *values);
  for (const at::Tensor& t : targets) t.requires_grad_(flag);
}

// The dictionary behind handle d (its tensors shared).
TensorDict DictOf(const char* fn, Handle d) {
  TensorDict out;
  HandleTable::Global().Read(d, [&](const Object& o) {
    if (o.dict() != nullptr) out = *o.dict();
  });
  const ObjectClass given = HandleTable::Global().Info(d).object_class;
  if (given != ObjectClass::kDictionary)
    Fail("%s: expected dictionary, given %s", fn, ClassName(given));
  return out;
}

void Put(TensorDict& d, const std::string& key, at::Tensor value) {
  if (at::Tensor* existing = d.find(key)) {
    *existing = std::move(value);
  } else {
    d.insert(key, std::move(value));
  }
}

// The count of parameter sets a dictionary's running average holds: `.n`, a number scalar, or 1
// when absent (the entries are the first set, as copyparms makes them).
double CountOf(const TensorDict& d) {
  const at::Tensor* n = d.find(kCount);
  if (n == nullptr) return 1;
  if (n->numel() != 1 || n->is_complex() || n->scalar_type() == at::kBool ||
      !(n->item<double>() >= 1)) {
    Fail("avgparms: key `%s must hold a count, a number scalar of at least 1", kCount);
  }
  return n->item<double>();
}

}  // namespace

Handle buffer(Handle q, const std::string& name) {
  auto m = ModuleOf("buffer", q);
  return Own(Object(Lookup("buffer", "buffer", *m, m->module().named_buffers(), {name})[0]),
             "buffer");
}

void buffer(Handle q, const std::string& name, const Operand& value) {
  auto m = ModuleOf("buffer", q);
  CopyIn("buffer", "buffer", {name},
         Lookup("buffer", "buffer", *m, m->module().named_buffers(), {name}), {value});
}

Handle buffers(Handle q, const std::string& child) {
  const Submodule s = Find("buffers", *ModuleOf("buffers", q), child);
  return Own(Object(s.module->named_buffers()), "buffers");
}

std::vector<std::string> buffernames(Handle q) {
  return ModuleOf("buffernames", q)->module().named_buffers().keys();
}

std::vector<std::string> names(Handle q, const std::string& child) {
  const Submodule s = Find("names", *ModuleOf("names", q), child);
  std::vector<std::string> out;
  for (const Submodule& sub : Submodules(*s.spec, *s.module)) out.push_back(sub.name);
  return out;
}

std::vector<std::pair<std::string, Handle>> modules(Handle q, const std::string& child) {
  const Submodule s = Find("modules", *ModuleOf("modules", q), child);
  std::vector<std::pair<std::string, Handle>> out;
  for (Submodule& sub : Submodules(*s.spec, *s.module)) {
    auto object = std::make_shared<ModuleObject>(ObjectClass::kModule, std::move(sub.spec),
                                                 std::move(sub.module));
    out.emplace_back(std::move(sub.name), Own(Object(std::move(object)), "modules"));
  }
  return out;
}

NameKinds moduletypes(Handle q, const std::vector<std::string>& types) {
  NameKinds out;
  for (auto& [name, kind] : AllKinds(*ModuleOf("moduletypes", q))) {
    if (types.empty() || std::find(types.begin(), types.end(), kind) != types.end())
      out.emplace_back(name, kind);
  }
  return out;
}

NameKinds parmtypes(Handle q) {
  auto m = ModuleOf("parmtypes", q);
  absl::flat_hash_map<std::string, std::string> kinds;  // submodule name -> kind
  for (auto& [name, kind] : AllKinds(*m)) kinds[name] = kind;
  NameKinds out;
  for (const std::string& name : m->module().named_parameters().keys()) {
    std::string owner = name;
    const std::string* kind = &m->spec().kind->name;
    for (auto dot = owner.rfind('.'); dot != std::string::npos; dot = owner.rfind('.')) {
      owner.resize(dot);
      if (auto it = kinds.find(owner); it != kinds.end()) {
        kind = &it->second;
        break;
      }
    }
    out.emplace_back(name, *kind);
  }
  return out;
}

void freeze(Handle q) { SetRequiresGrad("freeze", false, q, nullptr, nullptr); }
void freeze(Handle q, const std::vector<std::string>& names) {
  SetRequiresGrad("freeze", false, q, &names, nullptr);
}
void freeze(Handle q, const std::vector<std::string>& names, const std::vector<Operand>& values) {
  SetRequiresGrad("freeze", false, q, &names, &values);
}
void unfreeze(Handle q) { SetRequiresGrad("unfreeze", true, q, nullptr, nullptr); }
void unfreeze(Handle q, const std::vector<std::string>& names) {
  SetRequiresGrad("unfreeze", true, q, &names, nullptr);
}
void unfreeze(Handle q, const std::vector<std::string>& names, const std::vector<Operand>& values) {
  SetRequiresGrad("unfreeze", true, q, &names, &values);
}

Handle copyparms(Handle q) {
  TensorDict copies;
  for (const auto& p : nn::ModuleOrModelsModule("copyparms", q)->module().named_parameters()) {
    copies.insert(p.key(), p.value().detach().clone());
  }
  return Own(Object(std::move(copies)), "copyparms");
}

std::vector<std::pair<std::string, bool>> copyparms(Handle q, Handle d) {
  auto m = nn::ModuleOrModelsModule("copyparms", q);
  const TensorDict from = DictOf("copyparms", d);
  const TensorDict parms = m->module().named_parameters();
  std::vector<std::pair<std::string, bool>> copied;
  c10::AutoGradMode no_grad(false);
  for (const auto& p : parms) {
    const at::Tensor* value = from.find(p.key());
    const bool fits = value != nullptr && value->sizes() == p.value().sizes();
    if (fits) p.value().copy_(*value);
    copied.emplace_back(p.key(), fits);
  }
  return copied;
}

std::int64_t avgparms(Handle q, Handle d) {
  auto m = nn::ModuleOrModelsModule("avgparms", q);
  TensorDict average = DictOf("avgparms", d);
  const double n = CountOf(average);
  const TensorDict parms = m->module().named_parameters();
  for (const auto& p : parms) {
    const at::Tensor* a = average.find(p.key());
    if (a == nullptr) Fail("avgparms: parameter %s not found, unable to compute average", p.key());
    if (a->sizes() != p.value().sizes()) {
      Fail("avgparms: size mismatch for parameter `%s, %s vs %s", p.key(),
           SizeText(p.value().sizes()), SizeText(a->sizes()));
    }
  }
  {
    c10::AutoGradMode no_grad(false);
    for (const auto& p : parms) {
      at::Tensor& a = average[p.key()];
      a.add_((p.value().to(a.options()) - a).div_(n + 1));
    }
  }
  Put(average, kCount, at::scalar_tensor(n + 1, at::kDouble));
  HandleTable::Global().Replace(d, Object(std::move(average)));
  return static_cast<std::int64_t>(n + 1);
}

}  // namespace kscope
