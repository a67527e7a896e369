// The inputs and output of a kind's forward, as every caller that runs one shares them: the
// module forward, losses (objects and functions) and the functional forms of layers.
//
// Internal to api/. CheckInputCount throws kscope::Error naming the function and the kind;
// EmitOutput registers a new handle in the current scope when asked. Thread-safety: any thread.
#ifndef KSCOPE_API_NN_FORWARD_IO_H_
#define KSCOPE_API_NN_FORWARD_IO_H_

#include <cstddef>
#include <string>

#include "api/core/operand.h"
#include "api/nn/module_kind.h"

namespace kscope::nn {

// Fails unless `given` lies in [fewest, most]: "<fn>: `<kind> expects 2 inputs, given 3" (or
// "1 to 3 inputs" where the count may vary).
void CheckInputCount(const char* fn, const std::string& kind, std::size_t fewest, std::size_t most,
                     std::size_t given);
inline void CheckInputCount(const char* fn, const ModuleKind& kind, std::size_t given) {
  CheckInputCount(fn, kind.name, kind.inputs, kind.max_inputs, given);
}

// A forward's output as a Result: one tensor as a tensor, several as a vector; a new handle
// when `as_handle`, else data.
Result EmitOutput(const char* fn, ModuleOutput out, bool as_handle);

}  // namespace kscope::nn

#endif  // KSCOPE_API_NN_FORWARD_IO_H_
