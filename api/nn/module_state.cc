#include "api/nn/module_state.h"

#include <algorithm>

#include <c10/core/GradMode.h>
#include <torch/nn/module.h>

#include "absl/strings/str_join.h"
#include "api/core/pointer.h"
#include "api/core/values.h"
#include "api/nn/module_object.h"
#include "runtime/errors.h"
#include "runtime/names.h"

namespace kscope {
namespace {

using nn::ModuleObject;
using nn::ModuleSpec;

// A module of a definition tree with its definition.
struct RowModule {
  torch::nn::Module* module;
  const ModuleSpec* spec;
};

void Walk(const ModuleSpec& spec, torch::nn::Module& m, std::vector<RowModule>* out) {
  out->push_back(RowModule{&m, &spec});
  const auto named = m.named_children();  // a new dictionary: keep it while reading
  for (const auto& c : spec.children) Walk(*c, *named[c->name], out);
}

// q and its defined submodules, depth first: describe(q)'s rows, in order.
std::vector<RowModule> Modules(const ModuleObject& q) {
  std::vector<RowModule> out;
  Walk(q.spec(), q.module(), &out);
  return out;
}

// The parameters (or buffers) a row holds: all of its module's, but those of its defined
// children (their own rows). Submodules libtorch made itself (a selfattention's linear layers)
// belong to the row, under their dotted names.
TensorDict OwnTensors(const RowModule& r, bool parameters) {
  const TensorDict all = parameters ? r.module->named_parameters() : r.module->named_buffers();
  TensorDict own;
  for (const auto& item : all) {
    const std::string first = item.key().substr(0, item.key().find('.'));
    const bool in_child = item.key().find('.') != std::string::npos &&
                          std::any_of(r.spec->children.begin(), r.spec->children.end(),
                                      [&](const auto& c) { return c->name == first; });
    if (!in_child) own.insert(item.key(), item.value());
  }
  return own;
}

// A tensor's sizes for messages: "3 4", or "scalar" (as api/nn/module_parameters.cc writes them).

TensorDict HostCopies(const TensorDict& d) {
  TensorDict out;
  out.reserve(d.size());
  for (const auto& item : d) out.insert(item.key(), HostCopy(item.value()));
  return out;
}

// Checks that `given` (state row i) holds a value of the right size for each of the module's
// own tensors (`what`s), and nothing else.
void CheckValues(const char* what, const TensorDict& own, const TensorDict& given,
                 const ModuleRow& row, std::size_t i) {
  for (const auto& t : own) {
    const at::Tensor* g = given.find(t.key());
    if (g == nullptr)
      Fail("module: no value for %s `%s of %s module in state row %d", what, t.key(), row.kind, i);
    if (g->sizes() != t.value().sizes()) {
      Fail("module: size mismatch for %s `%s of %s module in state row %d, %s vs %s", what, t.key(),
           row.kind, i, SizeText(t.value().sizes()), SizeText(g->sizes()));
    }
  }
  for (const auto& g : given) {
    if (!own.contains(g.key()))
      Fail("module: no %s `%s in %s module (state row %d)", what, g.key(), row.kind, i);
  }
}

// Copies from[name] into each tensor of `to` (from holds every name: checked before).
void CopyValues(const TensorDict& from, const TensorDict& to) {
  for (const auto& t : to) t.value().copy_(from[t.key()]);
}

// Gives each tensor of `to` a copy of from[name] (same names): values, dtype and device.
void Replicate(const TensorDict& from, const TensorDict& to) {
  for (const auto& t : to) t.value().set_data(from[t.key()].detach().clone());
}

ModuleDefinition DefinitionOf(const ModuleRow& row) {
  return ModuleDefinition{row.kind, row.name, {}, row.options, {}};
}

// Runs `fill` on the new module h; frees h if it throws.
template <typename Fill>
Handle FillOrFree(Handle h, Fill fill) {
  try {
    fill(*nn::ModuleOf("module", h, ObjectClass::kModule));
  } catch (...) {
    kscope::free(h);
    throw;
  }
  return h;
}

}  // namespace

ModuleState state(Handle q, bool all_options) {
  const auto m = nn::ModuleOf("state", q, ObjectClass::kModule);
  std::vector<ModuleRow> rows = describe(q, all_options);
  const std::vector<RowModule> modules = Modules(*m);
  ModuleState out;
  out.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out.push_back(ModuleStateRow{std::move(rows[i]), HostCopies(OwnTensors(modules[i], true)),
                                 HostCopies(OwnTensors(modules[i], false))});
  }
  return out;
}

ModuleDefinition definition(const std::vector<ModuleRow>& rows) {
  if (rows.empty()) Fail("module: no module definition rows");
  if (rows[0].depth != 0)
    Fail("module: the first definition row must be at depth 0, given depth %d", rows[0].depth);
  ModuleDefinition root = DefinitionOf(rows[0]);
  std::vector<ModuleDefinition*> path = {&root};  // the open definition at each depth
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const int depth = rows[i].depth;
    if (depth < 1 || static_cast<std::size_t>(depth) > path.size()) {
      Fail("module: depth %d of row %d does not follow depth %d", depth, i, rows[i - 1].depth);
    }
    path.resize(depth);
    path.back()->children.push_back(DefinitionOf(rows[i]));
    path.push_back(&path.back()->children.back());
  }
  return root;
}

Handle module(const ModuleState& state) {
  std::vector<ModuleRow> rows;
  rows.reserve(state.size());
  for (const ModuleStateRow& r : state) rows.push_back(r.module);
  return FillOrFree(module(definition(rows)), [&](const ModuleObject& made) {
    const std::vector<RowModule> modules = Modules(made);  // one per row: built from them
    for (std::size_t i = 0; i < state.size(); ++i) {
      CheckValues("parameter", OwnTensors(modules[i], true), state[i].parms, state[i].module, i);
      CheckValues("buffer", OwnTensors(modules[i], false), state[i].buffers, state[i].module, i);
    }
    c10::AutoGradMode no_grad(false);
    for (std::size_t i = 0; i < state.size(); ++i) {
      CopyValues(state[i].parms, OwnTensors(modules[i], true));
      CopyValues(state[i].buffers, OwnTensors(modules[i], false));
    }
  });
}

Handle clone(Handle q) {
  const auto m = nn::ModuleOf("clone", q, ObjectClass::kModule);
  return FillOrFree(module(definition(describe(q))), [&](ModuleObject& made) {
    const TensorDict from = m->module().named_parameters(), to = made.module().named_parameters();
    {
      c10::AutoGradMode no_grad(false);
      Replicate(from, to);
      Replicate(m->module().named_buffers(), made.module().named_buffers());
    }
    for (const auto& t : to) t.value().requires_grad_(from[t.key()].requires_grad());
    made.module().train(m->module().is_training());
  });
}

}  // namespace kscope
