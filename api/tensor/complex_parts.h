// Parts of complex tensors, with ktorch's conventions (data in -> data out, a handle in -> a new
// handle out, owned by the current scope): real and imag, libtorch's views of the real and
// imaginary parts (a result handle keeps the complex tensor's storage alive and shares its
// values), and isreal, a bool tensor that is true where the imaginary part is zero (everywhere
// for a tensor that is not complex).
//
// Errors: kscope::Error "real: expects complex tensor, given float tensor" for real and imag of
// a tensor that is not complex; kscope::Error for stale or non-tensor handles. Nothing is
// registered when a call throws. Thread-safety: any thread.
#ifndef KSCOPE_API_TENSOR_COMPLEX_PARTS_H_
#define KSCOPE_API_TENSOR_COMPLEX_PARTS_H_

#include "api/core/operand.h"

namespace kscope {

Result real(const Operand& x);
Result imag(const Operand& x);
Result isreal(const Operand& x);

}  // namespace kscope

#endif  // KSCOPE_API_TENSOR_COMPLEX_PARTS_H_
