// Optimizers as k values: ktorch's description (`opt o`), state (`state o`) and the state read
// back for opt(state;module). Used by `opt` (q/nn/optimizer_fns.cc) and by the `state` export
// (q/nn/state_fns.cc); defined in q/convert/k_optimizer_state.cc.
//
// The k form is ktorch's dictionary `optimizer options parms`: the kind, a general list of one
// options dictionary per parameter group (q shows it as a table) and the parms table
// `parmgroup pointer module name size`, which with the state gains `buffers`: one dictionary of
// state buffers per parameter (empty before the first step). Every K returned is owned by the
// caller; K arguments are borrowed. Errors are kscope::Error naming `opt` or `state`. Call them
// with the plugin's lock held (as every adapter is, inside Guard).
#ifndef KSCOPE_Q_CONVERT_K_OPTIMIZER_STATE_H_
#define KSCOPE_Q_CONVERT_K_OPTIMIZER_STATE_H_

#include <vector>

#include "api/nn/optimizer_state.h"
#include "q/convert/k_abi.h"
#include "runtime/handle.h"

namespace kscope::q {

// The state of optimizer o; all_options false keeps only the options that differ from the
// kind's defaults.
kabi::K KFromOptimizerState(Handle o, bool all_options);

// The groups' options as ktorch gives them: a table, one row per group; a list of dictionaries
// where groups list different options (opt(o;0b) lists only what differs from the defaults).
kabi::K KFromGroupOptions(const std::vector<nn::NamedValues>& groups);

// The description of an optimizer, with a buffers column when `buffers` is given (one entry
// per row of d.parameters).
kabi::K KFromOptimizerDescription(const OptimizerDescription& d,
                                  const std::vector<OptimizerBuffers>* buffers);

// A description or state dictionary read back: the options as a general list of
// dictionaries, a table or one dictionary; the parms table's parmgroup, name and size columns
// and, when present, its buffers column (pointer and module are not read).
OptimizerState OptimizerStateFromK(kabi::K x);

}  // namespace kscope::q

#endif  // KSCOPE_Q_CONVERT_K_OPTIMIZER_STATE_H_
