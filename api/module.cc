#include "api/module.h"

#include <torch/nn/module.h>

#include "api/nn/module_kind.h"
#include "api/nn/module_object.h"
#include "runtime/errors.h"
#include "scope/scope_stack.h"

namespace kscope {
namespace {

using nn::ModuleObject;
using nn::ModuleSpec;

struct Built {
  std::shared_ptr<ModuleSpec> spec;
  std::shared_ptr<torch::nn::Module> module;
};

// Adds `child` to the container `parent` (both libtorch module and definition tree).
void AddChild(const ModuleSpec& parent_spec, torch::nn::Module& parent, ModuleSpec& parent_tree, Built child) {
  const nn::ModuleKind& kind = *parent_spec.kind;
  if (!kind.add_child) Fail("module: %s is not a container, it cannot have child modules", kind.name);
  child.spec->name = kind.add_child(parent, child.spec->name, *child.spec->kind, child.module);
  parent_tree.children.push_back(std::move(child.spec));
}

Built Build(const ModuleDefinition& d) {
  const nn::ModuleKind* kind = nn::FindModuleKind(d.kind);
  if (kind == nullptr) Fail("module: unrecognized module kind `%s", d.kind);
  auto spec = std::make_shared<ModuleSpec>(
      ModuleSpec{kind, nn::OptionSet::Parse(d.kind, kind->options, d.positional, d.named), d.name, {}});
  Built built{spec, kind->make(spec->options)};
  for (const ModuleDefinition& c : d.children) AddChild(*spec, *built.module, *spec, Build(c));
  return built;
}

Handle OwnModule(const char* fn, std::shared_ptr<ModuleSpec> spec, std::shared_ptr<torch::nn::Module> m) {
  return Own(Object(std::make_shared<ModuleObject>(ObjectClass::kModule, std::move(spec), std::move(m))), fn);
}

void Describe(const ModuleSpec& spec, int depth, bool all, std::vector<ModuleRow>* rows) {
  rows->push_back(ModuleRow{depth, spec.kind->name, spec.name, spec.options.Values(all)});
  for (const auto& c : spec.children) Describe(*c, depth + 1, all, rows);
}

}  // namespace

std::vector<std::string> module_options(const std::string& kind) {
  const nn::ModuleKind* k = nn::FindModuleKind(kind);
  return k ? nn::OptionNames(k->options) : std::vector<std::string>{};
}

Handle module(const ModuleDefinition& definition) {
  Built built = Build(definition);
  return OwnModule("module", std::move(built.spec), std::move(built.module));
}

void module(Handle container, const ModuleDefinition& definition) {
  auto q = nn::ModuleOf("module", container, ObjectClass::kModule);
  if (!q->spec().kind->add_child) Fail("module: %s is not a container, it cannot have child modules", q->spec().kind->name);
  AddChild(q->spec(), q->module(), *q->spec_ptr(), Build(definition));
}

std::vector<ModuleRow> describe(Handle q, bool all_options) {
  std::vector<ModuleRow> rows;
  Describe(nn::ModuleOf("module", q, ObjectClass::kModule)->spec(), 0, all_options, &rows);
  return rows;
}

Result forward(Handle q, const Operand& x) {
  auto m = nn::ModuleOf("forward", q, ObjectClass::kModule);
  Resolved in = Resolve("forward", {&x});
  std::vector<at::Tensor> inputs(in.tensors.begin(), in.tensors.end());
  return Emit("forward", m->spec().kind->forward(m->module(), inputs), in.any_handle);
}

std::vector<std::string> parmnames(Handle q) {
  return nn::ModuleOf("parmnames", q, ObjectClass::kModule)->module().named_parameters().keys();
}

Handle parm(Handle q, const std::string& name) {
  auto m = nn::ModuleOf("parm", q, ObjectClass::kModule);
  const auto named = m->module().named_parameters();  // a new dictionary: keep it while reading
  const at::Tensor* p = named.find(name);
  if (p == nullptr) Fail("parm: no parameter `%s in %s module", name, m->spec().kind->name);
  return Own(Object(*p), "parm");
}

Handle parms(Handle q) {
  TensorDict d;
  for (const auto& item : nn::ModuleOf("parms", q, ObjectClass::kModule)->module().named_parameters()) {
    d.insert(item.key(), item.value());
  }
  return Own(Object(std::move(d)), "parms");
}

std::vector<std::string> childnames(Handle q) {
  return nn::ModuleOf("childnames", q, ObjectClass::kModule)->module().named_children().keys();
}

Handle child(Handle q, const std::string& name) {
  auto m = nn::ModuleOf("child", q, ObjectClass::kModule);
  const auto children = m->module().named_children();  // a new dictionary: keep it while reading
  for (const auto& spec : m->spec().children) {
    if (spec->name != name) continue;
    if (const auto* found = children.find(name)) return OwnModule("child", spec, *found);
  }
  Fail("child: no child module `%s in %s module", name, m->spec().kind->name);
}

std::vector<std::pair<std::string, Handle>> children(Handle q) {
  auto m = nn::ModuleOf("children", q, ObjectClass::kModule);
  const auto modules = m->module().named_children();  // a new dictionary: keep it while reading
  std::vector<std::pair<std::string, Handle>> out;
  for (const auto& spec : m->spec().children) {
    if (const auto* found = modules.find(spec->name)) out.emplace_back(spec->name, OwnModule("children", spec, *found));
  }
  return out;
}

bool training(Handle q) { return nn::ModuleOf("training", q, ObjectClass::kModule)->module().is_training(); }

void training(Handle q, bool flag) { nn::ModuleOf("training", q, ObjectClass::kModule)->module().train(flag); }

}  // namespace kscope
