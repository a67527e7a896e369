#include "api/nn/module.h"

#include <algorithm>

#include <c10/core/GradMode.h>
#include <torch/nn/module.h>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_split.h"

#include "api/core/pointer.h"
#include "api/model/model_object.h"
#include "api/nn/forward_io.h"
#include "api/nn/module_kind.h"
#include "api/nn/module_object.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "runtime/out_of_memory.h"
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
void AddChild(const ModuleSpec& parent_spec, torch::nn::Module& parent, ModuleSpec& parent_tree,
              Built child) {
  const nn::ModuleKind& kind = *parent_spec.kind;
  if (!kind.add_child)
    Fail("module: %s is not a container, it cannot have child modules", kind.name);
  child.spec->name = kind.add_child(parent, child.spec->name, *child.spec->kind, child.module);
  parent_tree.children.push_back(std::move(child.spec));
}

Built Build(const ModuleDefinition& d) {
  const nn::ModuleKind* kind = nn::FindModuleKind(d.kind);
  if (kind == nullptr) Fail("unrecognized module type: `%s", d.kind);
  auto spec = std::make_shared<ModuleSpec>(ModuleSpec{
      kind, nn::OptionSet::Parse(d.kind, kind->options, d.positional, d.named), d.name, {}});
  Built built{spec, kind->make(spec->options)};
  for (const ModuleDefinition& c : d.children) AddChild(*spec, *built.module, *spec, Build(c));
  return built;
}

Handle OwnModule(const char* fn, std::shared_ptr<ModuleSpec> spec,
                 std::shared_ptr<torch::nn::Module> m) {
  return Own(
      Object(std::make_shared<ModuleObject>(ObjectClass::kModule, std::move(spec), std::move(m))),
      fn);
}

void Describe(const ModuleSpec& spec, int depth, bool all, std::vector<ModuleRow>* rows) {
  rows->push_back(ModuleRow{depth, spec.kind->name, spec.name, spec.options.Values(all)});
  for (const auto& c : spec.children) Describe(*c, depth + 1, all, rows);
}

// The definition of `parent`'s child `name`: the one kscope keeps, or, for a submodule libtorch
// made itself (the layers inside a transformer), an opaque one.
std::shared_ptr<ModuleSpec> SpecOfChild(const ModuleSpec& parent, const std::string& name) {
  for (const auto& c : parent.children) {
    if (c->name == name) return c;
  }
  return std::make_shared<ModuleSpec>(ModuleSpec{
      &nn::OpaqueKind(), nn::OptionSet::Parse(nn::OpaqueKind().name, {}, {}, {}), name, {}});
}

// The submodule of q at a dotted path (q itself for an empty path), with its definition.
struct Located {
  std::shared_ptr<ModuleSpec> spec;
  std::shared_ptr<torch::nn::Module> module;
};
Located Locate(const char* fn, Handle q, const std::string& path) {
  auto m = nn::ModuleOrModelsModule(fn, q);
  Located at{m->spec_ptr(), m->module_ptr()};
  if (path.empty()) return at;
  for (absl::string_view part : absl::StrSplit(path, '.')) {
    const auto named = at.module->named_children();  // a new dictionary: keep it while reading
    const auto* found = named.find(std::string(part));
    if (found == nullptr)
      Fail("%s: no child module `%s in %s module", fn, path, m->spec().kind->name);
    at = Located{SpecOfChild(*at.spec, std::string(part)), *found};
  }
  return at;
}

}  // namespace

std::vector<std::string> module_options(const std::string& kind) {
  const nn::ModuleKind* k = nn::FindModuleKind(kind);
  return k ? nn::OptionNames(k->options) : std::vector<std::string>{};
}

std::string nested_kind(const std::string& kind, const std::string& option) {
  const nn::ModuleKind* k = nn::FindModuleKind(kind);
  if (k == nullptr) return "";
  for (const nn::OptionSpec& spec : k->options) {
    if (spec.nested != nullptr && option == spec.name) return spec.nested->kind;
  }
  return "";
}

Handle module(const ModuleDefinition& definition) {
  Built built = Build(definition);
  return OwnModule("module", std::move(built.spec), std::move(built.module));
}

namespace {

// The container a child added at `depth` goes into: q itself at depth 1, then the last child at
// each further depth.
struct Parent {
  ModuleSpec* spec;
  std::shared_ptr<torch::nn::Module> module;
};
Parent ParentAt(const ModuleObject& q, int depth) {
  if (depth < 1) Fail("module: depth %d invalid, expecting 1 or more", depth);
  Parent p{q.spec_ptr().get(), q.module_ptr()};
  for (int d = 1; d < depth; ++d) {
    if (p.spec->children.empty())
      Fail("module: no container at depth %d, %s module has no child", depth, p.spec->kind->name);
    const auto named = p.module->named_children();  // a new dictionary: keep it while reading
    p.spec = p.spec->children.back().get();
    p.module = named[p.spec->name];
  }
  if (!p.spec->kind->add_child)
    Fail("module: %s is not a container, it cannot have child modules", p.spec->kind->name);
  return p;
}

}  // namespace

void module(Handle container, const ModuleDefinition& definition) {
  module(container, 1, definition);
}

void module(Handle container, int depth, const ModuleDefinition& definition) {
  auto q = nn::ModuleOf("module", container, ObjectClass::kModule);
  Parent p = ParentAt(*q, depth);
  AddChild(*p.spec, *p.module, *p.spec, Build(definition));
}

void module(Handle container, Handle child, int depth) {
  auto q = nn::ModuleOf("module", container, ObjectClass::kModule);
  auto c = nn::ModuleOf("module", child, ObjectClass::kModule);
  Parent p = ParentAt(*q, depth);
  for (const auto& m : c->module().modules()) {
    if (m.get() == p.module.get())
      Fail("module: unable to add a module to itself or to one of its own children");
  }
  // A copy of the child's definition: the added child may be renamed by its new container.
  AddChild(*p.spec, *p.module, *p.spec,
           Built{std::make_shared<ModuleSpec>(c->spec()), c->module_ptr()});
  HandleTable::Global().Release(child);
}

std::vector<ModuleRow> describe(Handle q, bool all_options) {
  std::vector<ModuleRow> rows;
  Describe(nn::ModuleOf("module", q, ObjectClass::kModule)->spec(), 0, all_options, &rows);
  return rows;
}

Result forward(Handle q, absl::Span<const Operand> operands, ForwardMode mode,
               const std::string& child) {
  static constexpr const char* kNames[] = {"forward", "nforward", "eforward", "evaluate"};
  const char* fn = kNames[static_cast<int>(mode)];
  const Located located = Locate(fn, q, child);
  const ModuleSpec* spec = located.spec.get();
  const std::shared_ptr<torch::nn::Module>& module = located.module;
  const nn::ModuleKind& kind = *spec->kind;
  nn::CheckInputCount(fn, kind, operands.size());
  Resolved in = Resolve(fn, operands);
  const std::vector<at::Tensor> inputs(in.tensors.begin(), in.tensors.end());
  const bool as_handle = in.any_handle && mode != ForwardMode::kEvaluate;
  nn::ModuleOutput out;
  {
    c10::AutoGradMode grad(mode == ForwardMode::kForward && c10::GradMode::is_enabled());
    const bool was_training = module->is_training();
    const bool eval = mode == ForwardMode::kEval || mode == ForwardMode::kEvaluate;
    if (eval) module->eval();
    absl::Cleanup restore = [&] {
      if (eval) module->train(was_training);
    };
    out = NamingOutOfMemory(fn, [&] { return kind.forward(*module, inputs); });
  }
  return nn::EmitOutput(fn, std::move(out), as_handle);
}

std::vector<std::string> parmnames(Handle q, const std::string& child) {
  return Locate("parmnames", q, child).module->named_parameters().keys();
}

namespace {

at::Tensor ParameterOf(const char* fn, Handle q, const std::string& name) {
  auto m = nn::ModuleOrModelsModule(fn, q);
  const auto named = m->module().named_parameters();  // a new dictionary: keep it while reading
  const at::Tensor* p = named.find(name);
  if (p == nullptr) Fail("%s: no parameter `%s in %s module", fn, name, m->spec().kind->name);
  return *p;
}

}  // namespace

Handle parm(Handle q, const std::string& name) {
  return Own(Object(ParameterOf("parm", q, name)), "parm");
}

void parm(Handle q, const std::string& name, const Operand& value) {
  at::Tensor p = ParameterOf("parm", q, name);
  const at::Tensor v = Resolve("parm", {&value}).tensors[0];
  if (!v.sizes().equals(p.sizes())) {
    Fail("parm: `%s has size %s, given a value of size %s", name, c10::str(p.sizes()),
         c10::str(v.sizes()));
  }
  c10::NoGradGuard no_grad;
  p.copy_(v);
}

Handle parms(Handle q, const std::string& child) {
  TensorDict d;
  for (const auto& item : Locate("parms", q, child).module->named_parameters())
    d.insert(item.key(), item.value());
  return Own(Object(std::move(d)), "parms");
}

std::vector<std::string> childnames(Handle q, const std::string& child) {
  return Locate("childnames", q, child).module->named_children().keys();
}

Handle child(Handle q, const std::string& name) {
  Located c = Locate("child", q, name);
  return OwnModule("child", std::move(c.spec), std::move(c.module));
}

Handle child(Handle q, std::int64_t index) {
  const std::vector<std::string> names = childnames(q);
  if (index < 0 || index >= static_cast<std::int64_t>(names.size())) {
    Fail("child: index %d invalid for a module with %d child module(s)", index, names.size());
  }
  return child(q, names[index]);
}

std::vector<std::pair<std::string, Handle>> children(Handle q, const std::string& child) {
  const Located parent = Locate("children", q, child);
  std::vector<std::pair<std::string, Handle>> out;
  for (const auto& item : parent.module->named_children()) {
    out.emplace_back(item.key(),
                     OwnModule("children", SpecOfChild(*parent.spec, item.key()), item.value()));
  }
  return out;
}

namespace {

// Whether modules of this kind run a forward of their own (ktorch's hasforward).
bool HasOwnForward(const nn::ModuleKind& kind) {
  return kind.name != "sequential" && kind.name != "modulelist" && kind.name != "moduledict" &&
         kind.name != "parmdict";
}

std::string ForwardEnd(const nn::ModuleSpec& s, bool input) {
  if (HasOwnForward(*s.kind)) return s.kind->name;
  if (s.children.empty()) return "";
  return ForwardEnd(input ? *s.children.front() : *s.children.back(), input);
}

std::string ForwardEndOf(const char* fn, Handle h, bool input) {
  switch (class_(h)) {
    case ObjectClass::kLoss: return "";
    case ObjectClass::kModule:
      return ForwardEnd(nn::ModuleOf(fn, h, ObjectClass::kModule)->spec(), input);
    case ObjectClass::kModel: return ForwardEnd(nn::ModelOf(fn, h)->model().module->spec(), input);
    case ObjectClass::kOptimizer: Fail("%s: not implemented for optimizers", fn);
    case ObjectClass::kGroup: Fail("%s: not implemented for groups", fn);
    default: Fail("%s: not implemented for tensors", fn);
  }
}

}  // namespace

std::string inputmodule(Handle h) { return ForwardEndOf("inputmodule", h, true); }
std::string outputmodule(Handle h) { return ForwardEndOf("outputmodule", h, false); }

bool training(Handle q) {
  return nn::ModuleOf("training", q, ObjectClass::kModule)->module().is_training();
}

void training(Handle q, bool flag) {
  nn::ModuleOf("training", q, ObjectClass::kModule)->module().train(flag);
}

}  // namespace kscope
