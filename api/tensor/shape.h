// Reshaping, joining and selecting, with ktorch's conventions (data in -> data out, handle in
// -> a new handle out; the `_as` forms take their sizes from an example, and return a handle
// when either operand is one). The in-place forms (transpose_, squeeze_, unsqueeze_) change
// tensor h's own view, seen by every handle sharing it, and return nothing. Results of view,
// reshape, transpose, permute, squeeze, unsqueeze, narrow and select may be views: a view handle
// keeps its base's storage alive after the base handle is freed. Errors: libtorch's messages for
// bad dims; kscope::Error for bad handles. Thread-safety: any thread.
#ifndef KSCOPE_API_TENSOR_SHAPE_H_
#define KSCOPE_API_TENSOR_SHAPE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "api/core/operand.h"
#include "api/tensor/tensor.h"

namespace kscope {

Result view(const Operand& x, const Shape& size);
Result reshape(const Operand& x, const Shape& size);
Result reshape_as(const Operand& x, const Operand& example);
// A view of x broadcast to `size` (-1 keeps a dim, below -1 fails), or to the example's size.
Result expand(const Operand& x, const Shape& size);
Result expand_as(const Operand& x, const Operand& example);
Result transpose(const Operand& x, std::int64_t dim0 = 0, std::int64_t dim1 = 1);
void transpose_(Handle t, std::int64_t dim0 = 0, std::int64_t dim1 = 1);
Result permute(const Operand& x, const Shape& dims);
// Removes every size-1 dim, or only `dim`.
Result squeeze(const Operand& x, std::optional<std::int64_t> dim = std::nullopt);
void squeeze_(Handle t, std::optional<std::int64_t> dim = std::nullopt);
Result unsqueeze(const Operand& x, std::int64_t dim);
void unsqueeze_(Handle t, std::int64_t dim);
// Joins tensors along an existing (cat) or a new (stack) dim. A single vector handle given
// as the only item joins the vector's tensors (ktorch's `cat v`) into a new handle.
Result cat(const std::vector<Operand>& xs, std::int64_t dim = 0, Handle out = Handle());
Result stack(const std::vector<Operand>& xs, std::int64_t dim = 0, Handle out = Handle());
Result narrow(const Operand& x, std::int64_t dim, std::int64_t start, std::int64_t length);
Result select(const Operand& x, std::int64_t dim, std::int64_t index);
// index_select: the rows of `indices` (a long tensor) along dim.
Result index(const Operand& x, std::int64_t dim, const Operand& indices);

}  // namespace kscope

#endif  // KSCOPE_API_TENSOR_SHAPE_H_
