// Vectors and dictionaries of tensors: building them (from data, or by consuming tensor
// handles), reading values back, element access and replacement.
//
// Consuming calls validate every argument, build, then commit: tensor handles given as items
// become stale and exactly one new handle is registered; on any error (a stale or non-tensor
// handle, the same handle twice) every argument stays alive and nothing is registered.
// Errors: kscope::Error naming the function. Thread-safety: any thread.
#ifndef KSCOPE_API_TENSOR_CONTAINER_H_
#define KSCOPE_API_TENSOR_CONTAINER_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "api/core/operand.h"
#include "runtime/handle.h"
#include "runtime/object.h"

namespace kscope {

using NamedOperands = std::vector<std::pair<std::string, Operand>>;

// vector(x1; x2; ...): a new vector; handles among the items are consumed.
Handle vector(const std::vector<Operand>& items);
// Picks this overload for vector({h}) (one handle) rather than the values-out vector(Handle).
Handle vector(std::initializer_list<Handle> items);
// The values of vector v as host data.
TensorVector vector(Handle v);
// Element i's values. Error "vector: index i out of range for size n".
at::Tensor vector(Handle v, std::int64_t i);
// Replaces element i (a handle is consumed).
void vector(Handle v, std::int64_t i, const Operand& value);

// dict(names!values): a new dictionary; handles among the values are consumed.
// Duplicate names are an error.
Handle dict(const NamedOperands& items);
// The values of dictionary d as host data.
TensorDict dict(Handle d);
// The values under key. Error "dict: no key `k".
at::Tensor dict(Handle d, const std::string& key);
// Inserts or replaces key (a handle is consumed).
void dict(Handle d, const std::string& key, const Operand& value);

}  // namespace kscope

#endif  // KSCOPE_API_TENSOR_CONTAINER_H_
