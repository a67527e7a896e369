#include "api/tensor/tensor.h"

#include <cstring>
#include <functional>
#include <type_traits>

#include <ATen/Context.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/full.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/tensor.h>
#include <c10/core/DefaultDtype.h>
#include <c10/util/Half.h>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_join.h"
#include "api/core/operand.h"
#include "api/core/selection.h"
#include "api/core/values.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "runtime/names.h"
#include "scope/scope_stack.h"

namespace kscope {
namespace {

template <typename T>
constexpr c10::ScalarType DtypeOf() {
  if constexpr (std::is_same_v<T, char>) {
    return c10::ScalarType::Char;  // ktorch maps k chars to int8
  } else {
    return c10::CppTypeToScalarType<T>::value;
  }
}

// Wraps a possibly negative dimension of a `rank`-d tensor; error when out of range.
std::int64_t CheckedDim(std::int64_t dim, std::int64_t rank) {
  const std::int64_t wrapped = dim < 0 ? dim + rank : dim;
  if (wrapped < 0 || wrapped >= rank)
    Fail("tensor: dimension %d out of range for a %d-d tensor", dim, rank);
  return wrapped;
}

// Wraps a possibly negative index along a dimension of `size`; error when out of range.
std::int64_t CheckedIndex(std::int64_t i, std::int64_t dim, std::int64_t size) {
  const std::int64_t wrapped = i < 0 ? i + size : i;
  if (wrapped < 0 || wrapped >= size) {
    Fail("tensor: index %d out of range for dimension %d of size %d", i, dim, size);
  }
  return wrapped;
}

std::int64_t CheckedCount(const Shape& shape, std::size_t values) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0) Fail("tensor: negative dimension %d in shape", d);
    n *= d;
  }
  if (n != static_cast<std::int64_t>(values)) {
    Fail("tensor: %d values do not fill shape %s", values, absl::StrJoin(shape, " "));
  }
  return n;
}

}  // namespace

Options Options::Parse(const char* fn, absl::Span<const std::string> names) {
  static const absl::flat_hash_map<absl::string_view, std::function<void(Options&)>> kFlags = {
      {"grad", [](Options& o) { o.grad = true; }},
      {"nograd", [](Options& o) { o.grad = false; }},
      {"strided", [](Options& o) { o.layout = c10::kStrided; }},
      {"sparse", [](Options& o) { o.layout = c10::kSparse; }},
      {"pinned", [](Options& o) { o.pinned = true; }},
      {"unpinned", [](Options& o) { o.pinned = false; }},
      {"contiguous", [](Options& o) { o.memory = c10::MemoryFormat::Contiguous; }},
      {"preserve", [](Options& o) { o.memory = c10::MemoryFormat::Preserve; }},
      {"channel2d", [](Options& o) { o.memory = c10::MemoryFormat::ChannelsLast; }},
      {"channel3d", [](Options& o) { o.memory = c10::MemoryFormat::ChannelsLast3d; }},
  };
  Options o;
  for (const std::string& name : names) {
    if (auto flag = kFlags.find(name); flag != kFlags.end()) {
      flag->second(o);
    } else if (auto dtype = DtypeFromName(name)) {
      o.dtype = dtype;
    } else if (auto device = DeviceFromName(name)) {
      if (device->is_mps() && !at::hasMPS()) Fail("%s: `%s device not available", fn, name);
      if (device->is_cuda() && !at::hasCUDA()) Fail("%s: `%s device not available", fn, name);
      o.device = device;
    } else {
      Fail("unrecognized tensor option: `%s", name);  // ktorch's text
    }
  }
  return o;
}

at::TensorOptions Options::factory() const {
  at::TensorOptions options;
  if (dtype) options = options.dtype(*dtype);
  if (device) options = options.device(*device);
  if (layout) options = options.layout(*layout);
  if (pinned) options = options.pinned_memory(*pinned);
  return options;
}

template <typename T>
Handle tensor(const std::vector<T>& values, const Shape& shape, const Options& options) {
  const Shape dims = shape.empty() ? Shape{static_cast<std::int64_t>(values.size())} : shape;
  const std::int64_t n = CheckedCount(dims, values.size());
  at::Tensor t = at::empty(dims, at::TensorOptions().dtype(DtypeOf<T>()));
  if constexpr (std::is_same_v<T, bool>) {
    bool* out = t.data_ptr<bool>();
    for (std::int64_t i = 0; i < n; ++i) out[i] = values[i];
  } else if (n > 0) {
    std::memcpy(t.data_ptr(), values.data(), n * sizeof(T));
  }
  return OwnTensor("tensor", std::move(t), options);
}

template <typename T>
Handle scalar(T value, const Options& options) {
  using Stored = std::conditional_t<std::is_same_v<T, char>, std::int8_t, T>;
  const c10::Scalar s(static_cast<Stored>(value));
  return OwnTensor("tensor", at::full(at::IntArrayRef{}, s, DtypeOf<T>()), options);
}

Handle tensor(const at::Tensor& data, const Options& options) {
  return OwnTensor("tensor", data, options);
}

Handle OwnTensor(const char* fn, at::Tensor t, const Options& o) {
  if (o.dtype || o.device)
    t = t.to(o.device.value_or(t.device()), o.dtype.value_or(t.scalar_type()));
  if (o.layout && *o.layout != t.layout())
    t = *o.layout == c10::kSparse ? t.to_sparse() : t.to_dense();
  if (o.pinned.value_or(false) && !t.is_pinned()) t = t.pin_memory();
  if (o.memory && *o.memory != c10::MemoryFormat::Preserve) t = t.contiguous(*o.memory);
  if (o.grad) t.set_requires_grad(true);
  return Own(Object(std::move(t)), fn);
}

void tensor_out(Handle out, const at::Tensor& data) {
  TensorOf("tensor", out);  // a live tensor handle: Emit reads a null handle as "no output"
  Emit("tensor", data, false, out);
}

at::Tensor tensor(Handle h) { return HostCopy(TensorOf("tensor", h)); }

at::Tensor tensor(Handle h, std::int64_t dim, std::int64_t index) {
  const at::Tensor t = TensorOf("tensor", h);
  const std::int64_t d = CheckedDim(dim, t.dim());
  return HostCopy(t.select(d, CheckedIndex(index, dim, t.size(d))));
}

at::Tensor tensor(Handle h, std::int64_t dim, const std::vector<std::int64_t>& indices) {
  const at::Tensor t = TensorOf("tensor", h);
  const std::int64_t d = CheckedDim(dim, t.dim());
  std::vector<std::int64_t> wrapped;
  wrapped.reserve(indices.size());
  for (std::int64_t i : indices) wrapped.push_back(CheckedIndex(i, dim, t.size(d)));
  return HostCopy(t.index_select(
      d, at::tensor(wrapped, at::TensorOptions().dtype(at::kLong).device(t.device()))));
}

std::vector<Handle> element_handles(Handle vector) {
  std::vector<Handle> handles;
  for (const at::Tensor& t : VectorElements("tensor", vector, {}))
    handles.push_back(Own(Object(t), "tensor"));
  return handles;
}

std::vector<std::pair<std::string, Handle>> named_element_handles(Handle dict) {
  std::vector<std::pair<std::string, Handle>> handles;
  for (auto& [key, t] : DictElements("tensor", dict, {}))
    handles.emplace_back(key, Own(Object(t), "tensor"));
  return handles;
}

Handle element_handle(Handle vector, std::int64_t i) {
  return Own(Object(VectorElements("tensor", vector, {i}).front()), "tensor");
}

Handle element_handle(Handle dict, const std::string& key) {
  return Own(Object(DictElements("tensor", dict, {key}).front().second), "tensor");
}

template <typename T>
std::vector<T> values(Handle h) {
  const at::Tensor t = HostCopy(TensorOf("tensor", h)).to(DtypeOf<T>());
  std::vector<T> out(static_cast<std::size_t>(t.numel()));
  const T* data = static_cast<const T*>(t.data_ptr());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = data[i];
  return out;
}

void seed(std::uint64_t s) { at::manual_seed(s); }

std::string default_device() { return at::hasCUDA() ? "cuda" : "cpu"; }

std::string default_dtype() {
  return DtypeName(c10::typeMetaToScalarType(c10::get_default_dtype()));
}

void set_default_dtype(c10::ScalarType t) {
  if (!c10::isFloatingType(t))
    Fail("dtype: default must be a floating point type, given %s", DtypeName(t));
  c10::set_default_dtype(c10::scalarTypeToTypeMeta(t));
}

#define KSCOPE_INSTANTIATE_TENSOR(T)                                              \
  template Handle tensor<T>(const std::vector<T>&, const Shape&, const Options&); \
  template Handle scalar<T>(T, const Options&);                                   \
  template std::vector<T> values<T>(Handle);
KSCOPE_INSTANTIATE_TENSOR(bool)
KSCOPE_INSTANTIATE_TENSOR(std::uint8_t)
KSCOPE_INSTANTIATE_TENSOR(std::int8_t)
KSCOPE_INSTANTIATE_TENSOR(char)
KSCOPE_INSTANTIATE_TENSOR(std::int16_t)
KSCOPE_INSTANTIATE_TENSOR(std::int32_t)
KSCOPE_INSTANTIATE_TENSOR(std::int64_t)
KSCOPE_INSTANTIATE_TENSOR(c10::Half)
KSCOPE_INSTANTIATE_TENSOR(float)
KSCOPE_INSTANTIATE_TENSOR(double)
#undef KSCOPE_INSTANTIATE_TENSOR

}  // namespace kscope
