// Module state and descriptions between k and C++, as ktorch shows them: a dictionary
// `depth`module`name`options`parms`buffers for a single module (depth 0), a table of those
// columns for a container (parms and buffers: one dictionary
// of name -> k array per module). `module q`'s form is the same without parms and buffers.
//
// Shared by `state` (q/nn/state_fns.cc) and `module` (q/nn/module_fns.cc), which recreates a module
// from either form. Errors: kscope::Error naming `module`. K results are owned by the caller;
// arguments are borrowed; nothing is allocated in k on the way in.
#ifndef KSCOPE_Q_CONVERT_K_MODULE_STATE_H_
#define KSCOPE_Q_CONVERT_K_MODULE_STATE_H_

#include "api/nn/module_state.h"
#include "q/convert/k_abi.h"
#include "runtime/handle.h"

namespace kscope::q {

kabi::K KFromModuleState(const ModuleState& state);
// `module q`'s form of describe()'s rows: a dictionary `depth`module`name`options for a
// single module, a table of those columns for a container.
kabi::K KFromModuleRows(const std::vector<ModuleRow>& rows);

// Whether x has the shape of a description or state (a dictionary or a table).
bool IsModuleTable(kabi::K x);
// A new module from a description or state: with parms or buffers, the values are copied in.
Handle ModuleFromK(kabi::K x);

}  // namespace kscope::q

#endif  // KSCOPE_Q_CONVERT_K_MODULE_STATE_H_
