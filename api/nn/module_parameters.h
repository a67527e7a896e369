// Module introspection beyond api/nn/module.h: buffers, submodules at every depth and their kinds,
// freezing parameters, and copying or averaging parameter values (ktorch's buffer buffers
// buffernames names modules moduletypes parmtypes freeze unfreeze copyparms avgparms).
//
// Names are libtorch's dotted names (`0.weight`, `a.b`); submodules are those the module was
// defined with (its ModuleSpec tree), depth first, q itself excluded. `child`, where a function
// takes one, is such a dotted submodule name (empty: q itself).
//
// Ownership: every call that returns handles registers them, new, in the calling thread's
// innermost scope; tensor, dictionary and module handles share q's tensors and submodules
// (ktorch's addref semantics), except copyparms q, whose dictionary holds copies. Values given
// (Operand: a handle or data) are copied in, never consumed.
// Errors: kscope::Error naming the function ("buffer: no buffer `foo in batchnorm1d module",
// "freeze: no parameter `x in sequential module", "names: no child module `c in sequential
// module"); every argument is validated before anything changes, so a failed call leaves q, d
// and every handle as they were. Thread-safety: any thread; a module must not be changed from
// two threads at once.
#ifndef KSCOPE_API_NN_MODULE_PARAMETERS_H_
#define KSCOPE_API_NN_MODULE_PARAMETERS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "api/core/operand.h"
#include "runtime/handle.h"

namespace kscope {

using NameKinds = std::vector<std::pair<std::string, std::string>>;  // name -> module kind

// buffer(q;name): a new tensor handle sharing the buffer.
Handle buffer(Handle q, const std::string& name);
// buffer(q;name;value): copies value into the buffer (sizes must match).
void buffer(Handle q, const std::string& name, const Operand& value);
// buffers q / buffers(q;child): a new dictionary handle of the (child's) buffers, dotted names.
Handle buffers(Handle q, const std::string& child = "");
std::vector<std::string> buffernames(Handle q);

// names q / names(q;child): the dotted names of every submodule (of child).
std::vector<std::string> names(Handle q, const std::string& child = "");
// modules q / modules(q;child): every submodule (of child) as a new module handle, by name.
std::vector<std::pair<std::string, Handle>> modules(Handle q, const std::string& child = "");
// moduletypes q / moduletypes(q;types): the kind of q itself (named "") and of every
// submodule, the internal layers of embedseq and selfattention included, as ktorch lists them,
// or only those of the kinds in `types` (unknown kinds simply match nothing).
NameKinds moduletypes(Handle q, const std::vector<std::string>& types = {});
// parmtypes q: each parameter's name -> the kind of the module holding it (an internal layer's
// own kind: embedseq's tok.weight is embed's; otherwise its nearest defined ancestor's).
NameKinds parmtypes(Handle q);

// freeze q: every parameter stops requiring gradients; freeze(q;names): the named ones;
// freeze(q;names;values) (and ktorch's freeze(q;dict)): copies the values in first (one per
// name, sizes must match). unfreeze: the same, turning requires_grad back on.
void freeze(Handle q);
void freeze(Handle q, const std::vector<std::string>& names);
void freeze(Handle q, const std::vector<std::string>& names, const std::vector<Operand>& values);
void unfreeze(Handle q);
void unfreeze(Handle q, const std::vector<std::string>& names);
void unfreeze(Handle q, const std::vector<std::string>& names, const std::vector<Operand>& values);

// copyparms and avgparms take a module or a model (its module), as ktorch's do.
// copyparms q: a new dictionary handle of detached copies of every parameter.
Handle copyparms(Handle q);
// copyparms(q;d): copies each entry of dictionary d into q's parameter of that name; per
// parameter of q, as ktorch gives it, whether it was copied (false when d has no entry of its
// name and size; d's other keys, avgparms' `.n among them, are ignored).
std::vector<std::pair<std::string, bool>> copyparms(Handle q, Handle d);
// avgparms(q;d): folds q's parameters into the running average kept in dictionary d (made by
// copyparms q), as ktorch does: d's key `.n` holds the count of parameter sets averaged so far
// (a double scalar; absent: 1, d's entries being the first set). Every parameter must have an
// entry of its size in d, updated in place to d + (p - d) / (n + 1). Returns the new count,
// also stored under `.n`.
std::int64_t avgparms(Handle q, Handle d);

}  // namespace kscope

#endif  // KSCOPE_API_NN_MODULE_PARAMETERS_H_
