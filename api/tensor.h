// Tensors: creation from C++ data and by mode, values back out, conversion, seed and info.
//
// Every creating function registers one new handle owned by the calling thread's innermost
// scope (the API call's name is its origin). Element types map to ktorch's dtypes: bool ->
// bool, uint8_t -> byte, char and int8_t -> char (as ktorch maps k chars), int16_t -> short,
// int32_t -> int, int64_t -> long, at::Half -> half, float -> float, double -> double.
// Errors: kscope::Error naming the function (bad shape, stale or wrong-class handle) and
// libtorch's own c10::Error text; nothing is registered when a call throws.
// Thread-safety: any thread; handles land in the calling thread's scopes.
#ifndef KSCOPE_API_TENSOR_H_
#define KSCOPE_API_TENSOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>

#include "absl/types/span.h"
#include "api/operand.h"
#include "runtime/handle.h"

namespace kscope {

using Shape = std::vector<std::int64_t>;

// Tensor options as ktorch's option symbols give them (`cuda`float`grad ...).
struct Options {
  std::optional<c10::ScalarType> dtype;
  std::optional<c10::Device> device;
  bool grad = false;  // requires_grad

  // Parses ktorch option names: a device (cpu cuda cuda:N mps), a dtype (float long ...),
  // `grad` or `nograd`. kscope::Error "<fn>: unrecognized option `x`" otherwise.
  static Options Parse(const char* fn, absl::Span<const std::string> names);
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

// Creation modes.
Handle empty(const Shape& size, const Options& options = {});
Handle zeros(const Shape& size, const Options& options = {});
Handle ones(const Shape& size, const Options& options = {});
Handle full(const Shape& size, const c10::Scalar& value, const Options& options = {});
Handle rand(const Shape& size, const Options& options = {});
Handle randn(const Shape& size, const Options& options = {});
// Integers in [low, high); long unless options say otherwise.
Handle randint(std::int64_t low, std::int64_t high, const Shape& size, const Options& options = {});
Handle arange(const c10::Scalar& start, const c10::Scalar& end, const c10::Scalar& step = 1,
              const Options& options = {});
Handle linspace(const c10::Scalar& start, const c10::Scalar& end, std::int64_t steps,
                const Options& options = {});
Handle eye(std::int64_t n, std::optional<std::int64_t> m = std::nullopt, const Options& options = {});

// The values of tensor h as host data (a detached contiguous CPU copy).
at::Tensor tensor(Handle h);
// The values as a flat std::vector<T> (converted to T).
template <typename T>
std::vector<T> values(Handle h);

// Moves/converts the tensor, vector or dictionary in place: the handle keeps its id and now
// holds the converted object (other handles to the old object are unaffected). A module or
// loss is moved itself, so every handle sharing it sees the move (optimizers refuse). Only a
// device and a dtype may be given ("to: expects a device and/or a dtype; ..." for `grad`).
void to(Handle h, const Options& target);

// Seeds libtorch's random generators (CPU, and CUDA when present).
void seed(std::uint64_t s);

// ktorch's device[]: "cuda" when libtorch sees a CUDA device, else "cpu".
std::string default_device();
// ktorch's dtype[] and dtype`name: the dtype factories use when none is given.
std::string default_dtype();
void set_default_dtype(c10::ScalarType t);

}  // namespace kscope

#endif  // KSCOPE_API_TENSOR_H_
