// Math on tensors with ktorch's conventions: data in -> data out, a handle in -> a new handle
// out (owned by the current scope), and a non-null trailing `out` handle -> the values are
// written into out's tensor (resized to fit) and nothing is returned.
//
// A typed façade over the math catalogue (api/math/math_catalogue.h): each function runs the
// catalogue's entry for the same operation (div is Div, var is variance, max is Max ...), so
// there is one implementation and one set of error texts, which name the catalogue's entry.
// The catalogue holds more forms (add's alpha, several dims, dtypes): math::Run reaches them.
//
// `std` is spelled std_ (a name C++ code reads as the standard namespace). Errors: libtorch's
// own messages for shape and type problems; kscope::Error for stale or non-tensor handles.
// Nothing is registered when a call throws. Thread-safety: any thread.
#ifndef KSCOPE_API_MATH_MATH_H_
#define KSCOPE_API_MATH_MATH_H_

#include <cstdint>
#include <optional>

#include "api/core/operand.h"

namespace kscope {

// Pointwise, two operands (broadcasting).
Result add(const Operand& a, const Operand& b, Handle out = Handle());
Result sub(const Operand& a, const Operand& b, Handle out = Handle());
Result mul(const Operand& a, const Operand& b, Handle out = Handle());
Result div(const Operand& a, const Operand& b, Handle out = Handle());
Result pow(const Operand& a, const Operand& b, Handle out = Handle());
// Matrix products.
Result matmul(const Operand& a, const Operand& b, Handle out = Handle());
Result mm(const Operand& a, const Operand& b, Handle out = Handle());

// Pointwise, one operand.
Result neg(const Operand& x, Handle out = Handle());
Result abs(const Operand& x, Handle out = Handle());
Result exp(const Operand& x, Handle out = Handle());
Result log(const Operand& x, Handle out = Handle());
Result sqrt(const Operand& x, Handle out = Handle());

// Reductions: over every element when dim is nullopt, else along dim.
Result mean(const Operand& x, std::optional<std::int64_t> dim = std::nullopt, bool keepdim = false,
            Handle out = Handle());
Result sum(const Operand& x, std::optional<std::int64_t> dim = std::nullopt, bool keepdim = false,
           Handle out = Handle());
Result std_(const Operand& x, std::optional<std::int64_t> dim = std::nullopt, bool unbiased = true,
            bool keepdim = false, Handle out = Handle());
Result var(const Operand& x, std::optional<std::int64_t> dim = std::nullopt, bool unbiased = true,
           bool keepdim = false, Handle out = Handle());
// Largest / smallest element; along dim: a vector (values; indices).
Result max(const Operand& x, Handle out = Handle());
Result max(const Operand& x, std::int64_t dim, bool keepdim = false);
Result min(const Operand& x, Handle out = Handle());
Result min(const Operand& x, std::int64_t dim, bool keepdim = false);
Result argmax(const Operand& x, std::optional<std::int64_t> dim = std::nullopt,
              bool keepdim = false, Handle out = Handle());
Result softmax(const Operand& x, std::int64_t dim, Handle out = Handle());
// The dimension ktorch's softmax and logsoftmax use when given none (its softdim): 0 for an
// input of 0, 1 or 3 dimensions, else 1.
std::int64_t default_softmax_dim(std::int64_t input_dims);
Result logsoftmax(const Operand& x, std::int64_t dim, Handle out = Handle());

}  // namespace kscope

#endif  // KSCOPE_API_MATH_MATH_H_
