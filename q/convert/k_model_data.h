// Model data as k values: the forms ktorch's train(m;x;y), data, input, target, backward(m;x;y),
// backstep(m;x;y) and run(m;x;y) take, and the k values data m / target m give back.
//
// Data forms: a pointer (tensor, vector or dictionary: all its tensors); (vector;indices) or
// (vector;index); (dictionary;keys) or (dictionary;key); a general list mixing any of these and
// k arrays (each item one part, in order); or one k array — a general list whose items all
// have the same type and count is one array (a matrix), any other general list of arrays is a
// list of parts. K arguments are borrowed; the DataParts returned refer to the handles, which
// api/model/model_data.h looks up. Errors: kscope::Error naming `fn`. Call with the plugin's lock
// held (inside Guard), as every adapter is.
#ifndef KSCOPE_Q_CONVERT_K_MODEL_DATA_H_
#define KSCOPE_Q_CONVERT_K_MODEL_DATA_H_

#include <vector>

#include "api/core/operand.h"
#include "api/model/model_data.h"
#include "q/convert/k_abi.h"

namespace kscope::q {

DataParts DataPartsFromK(const char* fn, kabi::K x);

// ktorch's selection of a container's elements: (vector;indices), (vector;index),
// (dictionary;keys) or (dictionary;key), the container a pointer.
bool IsSelection(kabi::K x);
// Appends the inputs x stands for as a container, as ktorch's forward and loss read them: a
// vector pointer's tensors, or the tensors a selection names (shared with the container's
// elements); false, appending nothing, for any other x.
bool AddContainerInputs(const char* fn, kabi::K x, std::vector<Operand>* inputs);

// The data as k arrays: (::) when none, an array for a tensor, a list of arrays for a vector, a
// dictionary of arrays keyed by symbol for a dictionary. Owned by the caller.
kabi::K KFromDataTensors(const nn::DataTensors& data);

}  // namespace kscope::q

#endif  // KSCOPE_Q_CONVERT_K_MODEL_DATA_H_
