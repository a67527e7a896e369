// Tensors: creation from C++ data and by mode, values back out, conversion, seed and info.
//
// Every creating function registers one new handle owned by the calling thread's innermost
// scope (the API call's name is its origin). Element types map to ktorch's dtypes: bool ->
// bool, uint8_t -> byte, char and int8_t -> char (as ktorch maps k chars), int16_t -> short,
// int32_t -> int, int64_t -> long, at::Half -> half, float -> float, double -> double.
// Errors: kscope::Error naming the function (bad shape, stale or wrong-class handle) and
// libtorch's own c10::Error text; nothing is registered when a call throws.
// Thread-safety: any thread; handles land in the calling thread's scopes.
#ifndef KSCOPE_API_TENSOR_TENSOR_H_
#define KSCOPE_API_TENSOR_TENSOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/Layout.h>
#include <c10/core/MemoryFormat.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>

#include "absl/types/span.h"
#include "api/core/operand.h"
#include "runtime/handle.h"

namespace kscope {

using Shape = std::vector<std::int64_t>;

// Tensor options as ktorch's option symbols give them (`cuda`float`grad ...): a plain value
// type, every field unset (or false) by default, meaning "libtorch's default" (or, for _like
// forms, "as the example tensor").
struct Options {
  std::optional<c10::ScalarType>
      dtype;  // float double half bool byte char long int short chalf cfloat cdouble
  std::optional<c10::Device> device;        // cpu cuda cuda:N mps mps:N
  std::optional<c10::Layout> layout;        // strided sparse
  bool grad = false;                        // grad nograd (requires_grad)
  std::optional<bool> pinned;               // pinned unpinned (pinned host memory)
  std::optional<c10::MemoryFormat> memory;  // contiguous preserve channel2d channel3d

  // Parses ktorch option names; a later name of the same kind overrides an earlier one.
  // kscope::Error "unrecognized tensor option: `x" (ktorch's text) for an unknown name, and
  // "<fn>: `mps device not available" (or cuda) for a device this libtorch cannot reach.
  static Options Parse(const char* fn, absl::Span<const std::string> names);

  // The factory options: dtype, device, layout and pinning where set (not grad or memory).
  at::TensorOptions factory() const;
  // Whether anything beyond a device and a dtype is set (what `to` refuses).
  bool beyond_device_and_dtype() const { return grad || layout || pinned || memory; }
};

// From C++ values: `shape` defaults to one dimension of values.size(); the product of shape
// must equal values.size() ("tensor: 6 values do not fill shape 4 2").
template <typename T>
Handle tensor(const std::vector<T>& values, const Shape& shape = {}, const Options& options = {});
// A 0-dimensional tensor.
template <typename T>
Handle scalar(T value, const Options& options = {});
// Registers a tensor built by C++ code (no copy: `data` and the handle share it), after
// applying options (a dtype/device change makes a converted copy). With options.grad and no
// conversion, the caller's `data` requires grad too: it is the same tensor.
Handle tensor(const at::Tensor& data, const Options& options = {});
// The same with the origin `fn`: applies every option t does not already satisfy (dtype and
// device: a converted copy; layout: to_sparse/to_dense; pinned: pinned copy; memory format
// other than preserve: contiguous in it; grad last), then registers the result.
Handle OwnTensor(const char* fn, at::Tensor t, const Options& options);

// tensor(x; out): copies `data` into out's tensor (resized to data's shape, converted to its
// dtype and device, without recording a gradient); no new handle. On error out is unchanged.
void tensor_out(Handle out, const at::Tensor& data);

// The values of tensor h as host data (a detached contiguous CPU copy).
at::Tensor tensor(Handle h);
// tensor(t; dim; i): the values of t.select(dim, i); tensor(t; dim; indices): of
// t.index_select(dim, indices). Negative dim and indices count from the end. kscope::Error
// "tensor: dimension d out of range for a n-d tensor" / "tensor: index i out of range for
// dimension d of size n".
at::Tensor tensor(Handle h, std::int64_t dim, std::int64_t index);
at::Tensor tensor(Handle h, std::int64_t dim, const std::vector<std::int64_t>& indices);

// A vector's or dictionary's elements as new tensor handles sharing the element tensors (no
// copy): ktorch's `tensor v`, `tensor d`, `tensor(v;i)`, `tensor(d;k)`. kscope::Error
// "tensor: expected vector, given <class>" (dictionary likewise), and api/core/selection.h's index
// and key errors.
std::vector<Handle> element_handles(Handle vector);
std::vector<std::pair<std::string, Handle>> named_element_handles(Handle dict);
Handle element_handle(Handle vector, std::int64_t i);
Handle element_handle(Handle dict, const std::string& key);
// The values as a flat std::vector<T> (converted to T).
template <typename T>
std::vector<T> values(Handle h);

// Moving and converting in place (`to`) and to a new tensor (`copyto`): api/core/move.h.

// Seeds libtorch's random generators (CPU, and CUDA when present).
void seed(std::uint64_t s);

// ktorch's device[]: "cuda" when libtorch sees a CUDA device, else "cpu".
std::string default_device();
// ktorch's dtype[] and dtype`name: the dtype factories use when none is given.
std::string default_dtype();
void set_default_dtype(c10::ScalarType t);

}  // namespace kscope

// The creation modes (zeros, randn, arange, ..., their _like and _out forms) live beside, in
// api/tensor/tensor_creation.h; included here so that callers of tensor.h see every creating call.
#include "api/tensor/tensor_creation.h"

#endif  // KSCOPE_API_TENSOR_TENSOR_H_
