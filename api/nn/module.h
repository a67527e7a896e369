// Modules: defining them the way ktorch users do, querying them back, running them, and
// reaching their parameters and children.
//
// A definition is a kind (`linear`), an optional name, options positionally then by name, and,
// for containers (`sequential`), child definitions. An option may itself hold a definition
// (nn::NestedDefinition: an encoder's layer and final norm, a transformer's custom encoder). Every
// call that makes a module registers one new handle in the current scope; parm, parms and children
// give new handles that share the module's tensors and submodules (ktorch's addref semantics).
// Errors: kscope::Error naming the function and the kind ("linear: option `in required"; ktorch's
// "unrecognized module type: `foo"); libtorch's own messages pass through. Thread-safety: any
// thread; a module must not be run from two threads at once.
#ifndef KSCOPE_API_NN_MODULE_H_
#define KSCOPE_API_NN_MODULE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "api/core/operand.h"
#include "api/nn/options.h"
#include "runtime/handle.h"

namespace kscope {

struct ModuleDefinition {
  std::string kind;
  std::string name;  // optional
  std::vector<nn::OptionValue> positional;
  nn::NamedValues named;
  std::vector<ModuleDefinition> children;  // containers only
};

// The option names of a module kind, in order (empty for an unknown kind).
std::vector<std::string> module_options(const std::string& kind);
// The kind whose definition option `option` of module kind `kind` takes (encoder's
// `encoderlayer: "encoderlayer"; given as nn::NestedDefinition), or "" for any other option.
std::string nested_kind(const std::string& kind, const std::string& option);

// ktorch's `module`: a new module from a definition (a tree for containers).
Handle module(const ModuleDefinition& definition);
// module(q;defn): adds a child defined by `definition` to the container q. module(q;depth;defn)
// adds it further down: depth 1 is q itself, depth 2 q's last child, and so on (the last
// container at that depth, as in a depth-value definition).
void module(Handle container, const ModuleDefinition& definition);
void module(Handle container, int depth, const ModuleDefinition& definition);
// module(q;child) / module(q;depth;child): adds the module behind handle `child` as a child,
// consuming the handle (stale afterwards; addref first to keep one). On error nothing changes.
void module(Handle container, Handle child, int depth = 1);

// One module of a definition tree, as ktorch's `module q` shows it.
struct ModuleRow {
  int depth;  // 0 for q itself
  std::string kind;
  std::string name;
  nn::NamedValues options;  // all options, or only those that differ from the defaults
};
// q's definition, depth first: one row for a single module, one per module for a container.
std::vector<ModuleRow> describe(Handle q, bool all_options = true);

// How a forward runs: ktorch's forward (the module's own training flag, gradients recorded),
// nforward (no gradients), eforward and evaluate (evaluation mode for the call, no gradients;
// evaluate always returns data).
enum class ForwardMode { kForward, kNoGrad, kEval, kEvaluate };

// Runs q's forward on `inputs` (as many as its kind takes: one for most layers, two for
// bilinear or cat, one to three for attention). A handle among the inputs -> a new handle out
// (a vector handle when the module returns several tensors), data in -> data out. `child`,
// when not empty, names a submodule of q to run instead (ktorch's forward(q;`child;x)).
// Errors: "forward: `linear expects 1 input, given 2"; libtorch's for shapes and types.
Result forward(Handle q, absl::Span<const Operand> inputs, ForwardMode mode = ForwardMode::kForward,
               const std::string& child = "");
inline Result forward(Handle q, const Operand& x) { return forward(q, absl::MakeConstSpan(&x, 1)); }
inline Result nforward(Handle q, const Operand& x) {
  return forward(q, absl::MakeConstSpan(&x, 1), ForwardMode::kNoGrad);
}
inline Result eforward(Handle q, const Operand& x) {
  return forward(q, absl::MakeConstSpan(&x, 1), ForwardMode::kEval);
}
inline Result evaluate(Handle q, const Operand& x) {
  return forward(q, absl::MakeConstSpan(&x, 1), ForwardMode::kEvaluate);
}

// Submodules are named by dotted paths (`decoder.layers.0`); an empty path is q itself. Here and
// in forward, q may also be a model, standing for its module (ktorch's forward(m;x), parm(m;`x)). A
// submodule libtorch made on its own (the layers inside a transformer) has no kscope
// definition: its handle describes as kind `libtorch and cannot be run alone.
//
// Parameter names (dotted, e.g. `0.weight`) of q or of its submodule `child`, a parameter as a
// new tensor handle sharing it, and all parameters as a new dictionary handle.
std::vector<std::string> parmnames(Handle q, const std::string& child = "");
Handle parm(Handle q, const std::string& name);
// parm(q;name;value): copies value into the parameter (same shape; the dtype converted).
void parm(Handle q, const std::string& name, const Operand& value);
Handle parms(Handle q, const std::string& child = "");
// Names of the direct children of q (or of its submodule `child`), and a submodule as a new
// module handle sharing it.
std::vector<std::string> childnames(Handle q, const std::string& child = "");
Handle child(Handle q, const std::string& name);
// The direct child at `index` in childnames order (ktorch's child(q;i)). Error: "child: index
// <i> invalid for a module with <n> child module(s)".
Handle child(Handle q, std::int64_t index);
// ktorch's `children q` / children(q;child): every direct child as a new module handle, by
// name, in order.
std::vector<std::pair<std::string, Handle>> children(Handle q, const std::string& child = "");
// ktorch's inputmodule / outputmodule: the kind of the module that receives forward's input
// (or produces its output): the module's own kind, or for a sequential, modulelist,
// moduledict or parmdict (no forward of their own) that of its first (last) child, descending;
// "" for such a container without children, and for a loss. A model stands for its module.
// Errors: "<fn>: not implemented for tensors" (vectors, dictionaries), "... for optimizers".
std::string inputmodule(Handle h);
std::string outputmodule(Handle h);
// Training flag (dropout, batchnorm behave differently in training).
bool training(Handle q);
void training(Handle q, bool flag);

}  // namespace kscope

#endif  // KSCOPE_API_NN_MODULE_H_
