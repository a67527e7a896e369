// Zero-copy batch windows over tensors: the machinery behind batch/restore on tensors, vectors
// and dictionaries, and behind a model's batching of its training and test data.
//
// Mechanism (ktorch's): a batch is the tensor itself re-pointed, with at::Tensor::set_, at a
// window of its own storage along one dimension — same storage, same strides, a shifted
// storage offset and a smaller size. Nothing is copied and no side state is kept: the full
// tensor is recovered from the storage and the strides (the window of a contiguous tensor
// spanning its whole storage), so every reference to the same tensor (another handle from
// addref, a vector element, a model's data) sees the window, and bytes/elements (storage
// based) stay those of the full tensor.
//
// Contracts:
//  - A batchable tensor has at least one dimension, strided storage of its own layout: it is
//    the window of a contiguous tensor that spans its whole storage (any freshly created or
//    index_select'ed tensor; not a strided slice, an expanded or a transposed tensor).
//    A view that is itself such a window (x.narrow(0, 2, 5) of a contiguous x) is taken for a
//    batch window of x, as in ktorch: the window state is the tensor's geometry.
//  - Tensors given together are batched together: they must share the full size along the
//    dimension, else kscope::Error "tensor size mismatch, 100 vs 10" (ktorch's exact text, no
//    function prefix, as the model's data checks need it). A tensor listed twice (or two
//    entries sharing one TensorImpl) is windowed once.
//  - Every function validates all its tensors before changing any: on error (kscope::Error
//    naming `fn`) nothing has changed.
//  - set_ runs with autograd off, so leaves that require grad keep being leaves. Gradients are
//    not windowed: batch data, not parameters.
// Thread-safety: the tensors are mutated in place: callers must not use them concurrently.
#ifndef KSCOPE_API_DATA_BATCH_WINDOW_H_
#define KSCOPE_API_DATA_BATCH_WINDOW_H_

#include <cstdint>

#include <ATen/core/Tensor.h>

#include "absl/types/span.h"

namespace kscope {

// Number of batches of `size` rows in `rows` rows: 0 if either is 0, else ceil(rows/size), or
// floor with droplast.
std::int64_t BatchCount(std::int64_t rows, std::int64_t size, bool droplast = false);

// The common full size of the tensors along `dim` (whatever window they show now).
std::int64_t FullSize(const char* fn, absl::Span<const at::Tensor> tensors, std::int64_t dim = 0);

// Restores every tensor to its full size in all dimensions; returns the full size along `dim`.
std::int64_t RestoreFull(const char* fn, absl::Span<const at::Tensor> tensors,
                         std::int64_t dim = 0);

// Windows every tensor at batch `index` of `size` rows along `dim` (the last batch may be
// shorter; a size at or above the full size gives one batch of all rows). Requires size >= 1
// and 0 <= index < BatchCount(full size, size).
void SelectBatch(const char* fn, absl::Span<const at::Tensor> tensors, std::int64_t size,
                 std::int64_t index, std::int64_t dim = 0);

// Sequential batching with the state read from the tensors themselves (the first tensor's
// window decides for all): at full size, selects the first window of `size` rows; inside a
// window, selects the next window after it, or, past the end, restores full size (all
// dimensions) and returns false. Requires 1 <= size < full size, so that a window is never
// mistaken for the full tensor.
bool NextBatch(const char* fn, absl::Span<const at::Tensor> tensors, std::int64_t size,
               std::int64_t dim = 0);

}  // namespace kscope

#endif  // KSCOPE_API_DATA_BATCH_WINDOW_H_
