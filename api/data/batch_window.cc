#include "api/data/batch_window.h"

#include <algorithm>
#include <vector>

#include <ATen/ops/set.h>
#include <c10/core/GradMode.h>

#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "runtime/errors.h"

namespace kscope {
namespace {

using Dims = absl::InlinedVector<std::int64_t, 6>;

// A batchable tensor and the contiguous tensor it is a window of.
struct Frame {
  at::Tensor tensor;
  Dims full;     // sizes of the full tensor
  Dims start;    // where the window starts, per dimension
  Dims strides;  // shared by the window and the full tensor
};

[[noreturn]] void NotAWindow(const char* fn) {
  Fail("%s: tensor is not contiguous over its own storage (a view of part of another tensor?)", fn);
}

// Validates that t is batchable (see the header) and finds its full tensor: the last stride is
// 1, each stride divides the one before it (the storage's element count before the first),
// and the window lies inside.
Frame FrameOf(const char* fn, const at::Tensor& t) {
  if (!t.defined() || !t.has_storage() || t.layout() != at::kStrided)
    Fail("%s: expected a dense tensor", fn);
  if (t.dim() == 0) Fail("%s: tensor has no dimensions", fn);
  const auto itemsize = static_cast<std::int64_t>(t.element_size());
  const auto nbytes = static_cast<std::int64_t>(t.storage().nbytes());
  if (nbytes % itemsize != 0 || t.strides().back() != 1) NotAWindow(fn);
  Frame f{t, Dims(t.dim()), Dims(t.dim()), Dims(t.strides().begin(), t.strides().end())};
  std::int64_t offset = t.storage_offset();
  for (std::int64_t d = 0; d < t.dim(); ++d) {
    const std::int64_t outer = d == 0 ? nbytes / itemsize : f.strides[d - 1];
    const std::int64_t stride = f.strides[d];
    if (stride <= 0 || outer % stride != 0) NotAWindow(fn);
    f.full[d] = outer / stride;
    f.start[d] = offset / stride;
    offset %= stride;
    if (f.start[d] + t.size(d) > f.full[d]) NotAWindow(fn);
  }
  return f;
}

// The frames of the distinct tensors, validated, sharing their full size along dim.
std::vector<Frame> FramesOf(const char* fn, absl::Span<const at::Tensor> tensors,
                            std::int64_t dim) {
  if (tensors.empty()) Fail("%s: no tensors", fn);
  std::vector<Frame> frames;
  absl::flat_hash_set<const void*> seen;
  for (const auto& t : tensors) {
    if (!seen.insert(t.unsafeGetTensorImpl()).second) continue;
    Frame f = FrameOf(fn, t);
    if (dim < 0 || dim >= t.dim())
      Fail("%s: dimension %d out of range for a %d-dim tensor", fn, dim, t.dim());
    if (!frames.empty() && f.full[dim] != frames[0].full[dim]) {
      Fail("tensor size mismatch, %d vs %d", frames[0].full[dim], f.full[dim]);
    }
    frames.push_back(std::move(f));
  }
  return frames;
}

// Re-points f's tensor at the window starting at `start` with `sizes` (no copy).
void Show(const Frame& f, const Dims& start, const Dims& sizes) {
  std::int64_t offset = 0;
  for (std::size_t d = 0; d < start.size(); ++d) offset += start[d] * f.strides[d];
  c10::NoGradGuard no_grad;
  f.tensor.set_(f.tensor.storage(), offset, sizes, f.strides);
}

void ShowFull(const Frame& f) { Show(f, Dims(f.full.size(), 0), f.full); }

// Rows [first, first + rows) along dim; other dimensions keep their window.
void ShowRows(const Frame& f, std::int64_t dim, std::int64_t first, std::int64_t rows) {
  Dims start = f.start;
  Dims sizes(f.tensor.sizes().begin(), f.tensor.sizes().end());
  start[dim] = first;
  sizes[dim] = rows;
  Show(f, start, sizes);
}

}  // namespace

std::int64_t BatchCount(std::int64_t rows, std::int64_t size, bool droplast) {
  if (rows == 0 || size == 0) return 0;
  return droplast ? rows / size : (rows + size - 1) / size;
}

std::int64_t FullSize(const char* fn, absl::Span<const at::Tensor> tensors, std::int64_t dim) {
  return FramesOf(fn, tensors, dim)[0].full[dim];
}

std::int64_t RestoreFull(const char* fn, absl::Span<const at::Tensor> tensors, std::int64_t dim) {
  const std::vector<Frame> frames = FramesOf(fn, tensors, dim);
  for (const auto& f : frames) ShowFull(f);
  return frames[0].full[dim];
}

void SelectBatch(const char* fn, absl::Span<const at::Tensor> tensors, std::int64_t size,
                 std::int64_t index, std::int64_t dim) {
  const std::vector<Frame> frames = FramesOf(fn, tensors, dim);
  const std::int64_t rows = frames[0].full[dim];
  if (size < 1) Fail("%s: batch size must be at least 1, given %d", fn, size);
  const std::int64_t count = BatchCount(rows, size);
  if (index < 0 || index >= count) {
    Fail("%s: batch index %d out of range for %d batch(es) of %d from %d rows", fn, index, count,
         size, rows);
  }
  const std::int64_t first = index * size;
  for (const auto& f : frames) ShowRows(f, dim, first, std::min(size, rows - first));
}

bool NextBatch(const char* fn, absl::Span<const at::Tensor> tensors, std::int64_t size,
               std::int64_t dim) {
  const std::vector<Frame> frames = FramesOf(fn, tensors, dim);
  const std::int64_t rows = frames[0].full[dim];
  if (size < 1 || size >= rows) {
    Fail("%s: batch size must be at least 1 and less than the full size of %d, given %d", fn, rows,
         size);
  }
  const Frame& lead = frames[0];
  const std::int64_t shown = lead.tensor.size(dim);
  const std::int64_t first = shown == rows ? 0 : lead.start[dim] + shown;
  if (first >= rows) {
    for (const auto& f : frames) ShowFull(f);
    return false;
  }
  for (const auto& f : frames) ShowRows(f, dim, first, std::min(size, rows - first));
  return true;
}

}  // namespace kscope
