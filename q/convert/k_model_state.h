// Models as k values: ktorch's description (`model m`), state (`state m`) and the model made
// back from either (`model d`). Used by `model` (q/model/model_fns.cc) and `state`
// (q/nn/state_fns.cc).
//
// The k form is the dictionary `module`loss`optimizer`train`test: the module's description or
// state (q/convert/k_module_state.h), the loss dictionary `module`options, the optimizer's
// description or state (q/convert/k_optimizer_state.h) and the training and testing options by
// name. Every K returned is owned by the caller; K arguments are borrowed. Errors: kscope::Error
// naming `model` (or the part's function); on error no handle is left behind. Call them with the
// plugin's lock held (as every adapter is, inside Guard).
#ifndef KSCOPE_Q_CONVERT_K_MODEL_STATE_H_
#define KSCOPE_Q_CONVERT_K_MODEL_STATE_H_

#include "api/model/model.h"
#include "q/convert/k_abi.h"
#include "runtime/handle.h"

namespace kscope::q {

kabi::K KFromModelDescription(const ModelDescription& d);
kabi::K KFromModelState(const ModelState& s);

// A new model from a description or state dictionary (train and test may be left out: the
// defaults); with parameter values (a state), they are copied in.
Handle ModelFromK(kabi::K d);

}  // namespace kscope::q

#endif  // KSCOPE_Q_CONVERT_K_MODEL_STATE_H_
