// Editing a tensor's own storage in place, with ktorch's names: amend (copy values in), reset
// (re-point the tensor at another part of its storage), resize and filldiagonal.
//
// These calls change the tensor every handle sharing it sees, record no gradient (they run
// with grad mode off, as ktorch's do; resize is refused by libtorch for a tensor that requires
// grad), and register no handle. Given data instead of a handle, resize and filldiagonal return
// the edited copy (ktorch: k array in -> k array out). Every argument is checked before
// anything changes. Errors: kscope::Error naming the call, libtorch's text for what it refuses.
// Thread-safety: any thread; one tensor must not be edited from two threads at once.
#ifndef KSCOPE_API_TENSOR_STORAGE_EDIT_H_
#define KSCOPE_API_TENSOR_STORAGE_EDIT_H_

#include <cstdint>
#include <optional>
#include <string>

#include <c10/core/Scalar.h>

#include "absl/types/span.h"
#include "api/core/operand.h"
#include "api/tensor/tensor.h"
#include "runtime/handle.h"

namespace kscope {

// amend(t;vals[;async]): copies `values` (broadcast to t's size, converted to its dtype and
// device; `async` copies without blocking where libtorch can) into tensor t. The vector and
// dictionary forms amend the elements at `indices` / `keys`, one value each.
// kscope::Error "amend: values of size 3 do not fit a tensor of size 2 2",
// "amend: 2 indices (or keys) given with 1 values", and api/core/selection.h's index/key errors.
void amend(Handle t, const Operand& values, bool async = false);
void amend(Handle v, absl::Span<const std::int64_t> indices, absl::Span<const Operand> values,
           bool async = false);
void amend(Handle d, absl::Span<const std::string> keys, absl::Span<const Operand> values,
           bool async = false);

// reset(t;offset[;sizes[;strides]]): tensor t views its own storage from element `offset` with
// `sizes` (default: the rest of the storage, one dim) and `strides` (default: contiguous).
// kscope::Error when the view would reach past the storage ("reset: offset 4 with sizes 3 and
// strides 1 reaches element 7 of a storage of 6 elements"), or for negative offset, sizes or
// strides, or a count of strides other than of sizes.
void reset(Handle t, std::int64_t offset, std::optional<Shape> sizes = std::nullopt,
           std::optional<Shape> strides = std::nullopt);

// resize(t;size): tensor t resized in place (nothing returned); data: a resized copy. New
// elements are uninitialized.
Result resize(const Operand& x, const Shape& size);

// filldiagonal(x;value[;wrap]): the main diagonal set to `value` (for a tall matrix, `wrap`
// restarts it every n+1 rows); in place for a tensor handle (nothing returned), a copy for data.
Result filldiagonal(const Operand& x, const c10::Scalar& value, bool wrap = false);

}  // namespace kscope

#endif  // KSCOPE_API_TENSOR_STORAGE_EDIT_H_
