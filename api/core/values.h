// Copying values between objects and host data (Value): the one place that decides what a
// "values out" copy is (detached, on the CPU, contiguous, sharing nothing with the object) and
// how host data becomes an object. Stateless; thread-safe.
#ifndef KSCOPE_API_CORE_VALUES_H_
#define KSCOPE_API_CORE_VALUES_H_

#include <ATen/core/Tensor.h>

#include "api/core/operand.h"
#include "runtime/object.h"

namespace kscope {

// A detached, contiguous CPU copy of t (undefined stays undefined).
at::Tensor HostCopy(const at::Tensor& t);
// Host copies of a tensor, vector or dictionary object; kscope::Error
// "<fn>: expecting tensor, vector or dictionary, given <class>" for other classes.
Value HostValue(const char* fn, const Object& o);
// The object holding `v` (no copy).
Object ObjectOf(Value v);
// The class an object built from `v` has.
ObjectClass ClassOf(const Value& v);

}  // namespace kscope

#endif  // KSCOPE_API_CORE_VALUES_H_
