#include "api/module.h"

#include <algorithm>

#include <c10/core/GradMode.h>
#include <torch/nn/module.h>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_format.h"

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

Result forward(Handle q, absl::Span<const Operand> operands, ForwardMode mode, const std::string& child) {
  static constexpr const char* kNames[] = {"forward", "nforward", "eforward", "evaluate"};
  const char* fn = kNames[static_cast<int>(mode)];
  auto m = nn::ModuleOf(fn, q, ObjectClass::kModule);
  const ModuleSpec* spec = &m->spec();
  std::shared_ptr<torch::nn::Module> module = m->module_ptr();
  if (!child.empty()) {
    const auto named = module->named_children();  // a new dictionary: keep it while reading
    const auto* found = named.find(child);
    auto it = std::find_if(spec->children.begin(), spec->children.end(), [&](const auto& c) { return c->name == child; });
    if (found == nullptr || it == spec->children.end()) Fail("%s: no child module `%s in %s module", fn, child, spec->kind->name);
    spec = it->get();
    module = *found;
  }
  const nn::ModuleKind& kind = *spec->kind;
  if (operands.size() < kind.inputs || operands.size() > kind.max_inputs) {
    const std::string expected = kind.inputs == kind.max_inputs
                                     ? absl::StrFormat("%d input%s", kind.inputs, kind.inputs == 1 ? "" : "s")
                                     : absl::StrFormat("%d to %d inputs", kind.inputs, kind.max_inputs);
    Fail("%s: `%s expects %s, given %d", fn, kind.name, expected, operands.size());
  }
  Resolved in = Resolve(fn, operands);
  const std::vector<at::Tensor> inputs(in.tensors.begin(), in.tensors.end());
  const bool as_handle = in.any_handle && mode != ForwardMode::kEvaluate;
  nn::ModuleOutput out;
  {
    c10::AutoGradMode grad(mode == ForwardMode::kForward && c10::GradMode::is_enabled());
    const bool was_training = module->is_training();
    const bool eval = mode == ForwardMode::kEval || mode == ForwardMode::kEvaluate;
    if (eval) module->eval();
    absl::Cleanup restore = [&] { if (eval) module->train(was_training); };
    out = kind.forward(*module, inputs);
  }
  if (auto* t = std::get_if<at::Tensor>(&out)) return Emit(fn, std::move(*t), as_handle);
  return EmitVector(fn, std::move(std::get<std::vector<at::Tensor>>(out)), as_handle);
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
