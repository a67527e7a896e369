// PyTorch state dicts — a module's parameters and buffers as the file Python's
// torch.save(model.state_dict(), f) writes and torch.load reads, in both directions.
//
// Names are PyTorch's dotted names for the same architecture (`0.weight`, `1.running_mean`,
// `weight_ih_l0`, `self_attn.in_proj_weight`: libtorch's modules register theirs as PyTorch's
// do), in PyTorch's order: module by module, depth first, each module's own parameters then its
// buffers. A model stands for its module (ktorch's forward(m;x), parm(m;`x)).
//
// save_state_dict(q, path) writes host copies (CPU, whatever q's device), so the file loads on
// any machine; in Python `model.load_state_dict(torch.load(path), strict=True)`. The file is
// written to `path`.tmp and renamed.
//
// load_state_dict(q, path, strict) copies a state dict saved by Python (an OrderedDict, its
// `_metadata` ignored), by kscope, or any dict of tensors by name into q, onto q's devices and
// dtypes. Strict (the default): the file must hold exactly q's names. Not strict: the names in
// both are loaded, and the others are returned (missing: q's names absent from the file;
// unexpected: the file's names q lacks), as PyTorch's load_state_dict(strict=False) does. In
// both forms every name loaded must have q's sizes, and a dtype q's dtype converts from within
// its family (floating point from floating point, integral from integral or bool, complex from
// complex): PyTorch errs on sizes too. Optimizer state is not read or written here: a kscope
// checkpoint (api/model/checkpoint.h) carries it.
//
// Ownership: no handle is made or consumed; q's tensors are updated in place (no gradient
// recorded), so handles sharing them see the new values. Errors: kscope::Error naming the
// function and the file: "loadstatedict: cannot read /x: No such file or directory",
// "loadstatedict: /x is not a state dict (...)", "loadstatedict: /x does not match the module:
// missing `2.weight `2.bias; unexpected `3.weight", "loadstatedict: /x: `0.weight is 8 4 in the
// file, 16 4 in the module", "loadstatedict: /x: `0.weight is long in the file, float in the
// module". Every check runs before anything is copied: on an error q is unchanged.
// Thread-safety: any thread; q must not be trained or changed from another thread meanwhile, and
// one file must not be written by two calls at once.
#ifndef KSCOPE_API_NN_STATE_DICT_H_
#define KSCOPE_API_NN_STATE_DICT_H_

#include <string>
#include <vector>

#include "runtime/handle.h"

namespace kscope {

// What a non-strict load left out (both empty after a strict one).
struct StateDictKeys {
  std::vector<std::string> missing;     // q's names the file lacks
  std::vector<std::string> unexpected;  // the file's names q lacks
};

void save_state_dict(Handle q, const std::string& path);
StateDictKeys load_state_dict(Handle q, const std::string& path, bool strict = true);

}  // namespace kscope

#endif  // KSCOPE_API_NN_STATE_DICT_H_
