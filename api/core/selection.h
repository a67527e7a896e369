// The tensors a call acts on when it is given part of a container: a vector's elements by index
// or a dictionary's by key (ktorch's `f(v;inds)` and `f(d;keys)` forms, e.g. detach, gradflag,
// amend). Every index or key is checked before any tensor is returned, so a caller that acts
// only after selecting leaves the container unchanged on a bad index or key.
//
// The tensors returned share their TensorImpl with the container's elements: in-place changes
// (detach_, set_requires_grad, copy_) are seen through the handle. Errors: kscope::Error
// "<fn>: expected vector, given <class>" (dictionary likewise), the index and key errors below,
// "stale pointer". Thread-safety: any thread.
#ifndef KSCOPE_API_CORE_SELECTION_H_
#define KSCOPE_API_CORE_SELECTION_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

#include "absl/types/span.h"
#include "runtime/handle.h"
#include "runtime/object.h"

namespace kscope {

// One selected tensor and how messages name it ("vector[2]", "key `w").
struct Selected {
  at::Tensor tensor;
  std::string where;
};

// The elements of v at `indices`, or every element when indices is empty; likewise d's at
// `keys`. kscope::Error "<fn>: vector index 3 out of range for 2 tensor(s)", "<fn>: no key `k
// in dictionary".
std::vector<Selected> SelectElements(const char* fn, const TensorVector& v,
                                     absl::Span<const std::int64_t> indices);
std::vector<Selected> SelectElements(const char* fn, const TensorDict& d,
                                     absl::Span<const std::string> keys);

// The same read from a vector or dictionary handle.
std::vector<Selected> SelectElements(const char* fn, Handle v,
                                     absl::Span<const std::int64_t> indices);
std::vector<Selected> SelectElements(const char* fn, Handle d, absl::Span<const std::string> keys);
// Only the tensors (and the keys).
std::vector<at::Tensor> VectorElements(const char* fn, Handle v,
                                       absl::Span<const std::int64_t> indices);
std::vector<std::pair<std::string, at::Tensor>> DictElements(const char* fn, Handle d,
                                                             absl::Span<const std::string> keys);

}  // namespace kscope

#endif  // KSCOPE_API_CORE_SELECTION_H_
