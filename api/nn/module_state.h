// Module state: everything needed to recreate a module exactly (ktorch's `state q`, `module s`
// and `clone q`), and the loss form of state.
//
// A module's state is its definition rows, depth first as describe() gives them, each with the
// values of that module's own parameters and buffers (not its children's) under their local
// names (`weight`, `running_mean`). module(state) builds the module from the rows and copies
// the values in, so the new module computes what the original did; clone(q) does the same
// straight from q, keeping q's device, dtype, training flag and requires_grad flags.
// A loss holds no values: its state is its description (describe_loss, and loss(description)
// to recreate it, in api/nn/loss.h).
//
// Ownership: state values are host copies (detached, CPU, contiguous) sharing nothing with q;
// module(state) and clone register one new handle in the calling thread's
// innermost scope. Errors: kscope::Error naming the function ("module: depth 2 of row 1 does not
// follow depth 0", "module: no value for parameter `bias of linear module in state row 1");
// on error no handle is registered and q is unchanged. Thread-safety: any thread; a module
// must not be changed from another thread while its state is read.
#ifndef KSCOPE_API_NN_MODULE_STATE_H_
#define KSCOPE_API_NN_MODULE_STATE_H_

#include <vector>

#include "api/nn/module.h"
#include "runtime/handle.h"
#include "runtime/object.h"

namespace kscope {

struct ModuleStateRow {
  ModuleRow module;    // depth, kind, name, options
  TensorDict parms;    // the module's own parameters, by local name
  TensorDict buffers;  // the module's own buffers, by local name
};
using ModuleState = std::vector<ModuleStateRow>;

// state q / state(q;flag): q's state, with all options or only those that differ from the
// defaults. Error "state: expected module, given <class>".
ModuleState state(Handle q, bool all_options = true);

// The definition tree of depth-first rows (describe's or a state's): the first at depth 0,
// each next one at most one level below the row before it.
ModuleDefinition definition(const std::vector<ModuleRow>& rows);

// module(state): a new module with the state's definition and values. Every module must be
// given exactly its own parameters and buffers, of their sizes.
Handle module(const ModuleState& state);

// clone q: a deep copy (new parameters and buffers, same values).
Handle clone(Handle q);

}  // namespace kscope

#endif  // KSCOPE_API_NN_MODULE_STATE_H_
