#include "api/tensor.h"

#include <cstring>
#include <type_traits>

#include <ATen/Context.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/eye.h>
#include <ATen/ops/full.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/zeros.h>
#include <c10/core/DefaultDtype.h>
#include <c10/util/Half.h>

#include "absl/strings/str_join.h"
#include "api/values.h"
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

at::TensorOptions FactoryOptions(const Options& o) {
  at::TensorOptions options;
  if (o.dtype) options = options.dtype(*o.dtype);
  if (o.device) options = options.device(*o.device);
  return options;
}

// Applies the gradient flag and registers the new tensor.
Handle Register(const char* fn, at::Tensor t, const Options& o) {
  if (o.grad) t.set_requires_grad(true);
  return Own(Object(std::move(t)), fn);
}

// Converts t to the options' dtype and device (no copy when nothing changes), then registers.
Handle ConvertAndRegister(const char* fn, const at::Tensor& t, const Options& o) {
  at::Tensor converted = t;
  if (o.dtype || o.device) {
    converted = t.to(o.device.value_or(t.device()), o.dtype.value_or(t.scalar_type()));
  }
  return Register(fn, std::move(converted), o);
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
  Options o;
  for (const std::string& name : names) {
    if (name == "grad") {
      o.grad = true;
    } else if (name == "nograd") {
      o.grad = false;
    } else if (auto dtype = DtypeFromName(name)) {
      o.dtype = dtype;
    } else if (auto device = DeviceFromName(name)) {
      o.device = device;
    } else {
      Fail("%s: unrecognized option `%s", fn, name);
    }
  }
  return o;
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
  return ConvertAndRegister("tensor", t, options);
}

template <typename T>
Handle scalar(T value, const Options& options) {
  using Stored = std::conditional_t<std::is_same_v<T, char>, std::int8_t, T>;
  const c10::Scalar s(static_cast<Stored>(value));
  return ConvertAndRegister("tensor", at::full(at::IntArrayRef{}, s, DtypeOf<T>()), options);
}

Handle tensor(const at::Tensor& data, const Options& options) {
  return ConvertAndRegister("tensor", data, options);
}

Handle empty(const Shape& size, const Options& o) {
  return Register("empty", at::empty(size, FactoryOptions(o)), o);
}
Handle zeros(const Shape& size, const Options& o) {
  return Register("zeros", at::zeros(size, FactoryOptions(o)), o);
}
Handle ones(const Shape& size, const Options& o) {
  return Register("ones", at::ones(size, FactoryOptions(o)), o);
}
Handle full(const Shape& size, const c10::Scalar& value, const Options& o) {
  return Register("full", at::full(size, value, FactoryOptions(o)), o);
}
Handle rand(const Shape& size, const Options& o) {
  return Register("rand", at::rand(size, FactoryOptions(o)), o);
}
Handle randn(const Shape& size, const Options& o) {
  return Register("randn", at::randn(size, FactoryOptions(o)), o);
}
Handle randint(std::int64_t low, std::int64_t high, const Shape& size, const Options& o) {
  at::TensorOptions options = FactoryOptions(o);
  if (!o.dtype) options = options.dtype(c10::ScalarType::Long);
  return Register("randint", at::randint(low, high, size, options), o);
}
Handle arange(const c10::Scalar& start, const c10::Scalar& end, const c10::Scalar& step,
              const Options& o) {
  return Register("arange", at::arange(start, end, step, FactoryOptions(o)), o);
}
Handle linspace(const c10::Scalar& start, const c10::Scalar& end, std::int64_t steps,
                const Options& o) {
  return Register("linspace", at::linspace(start, end, steps, FactoryOptions(o)), o);
}
Handle eye(std::int64_t n, std::optional<std::int64_t> m, const Options& o) {
  return Register("eye", m ? at::eye(n, *m, FactoryOptions(o)) : at::eye(n, FactoryOptions(o)), o);
}

at::Tensor tensor(Handle h) { return HostCopy(TensorOf("tensor", h)); }

template <typename T>
std::vector<T> values(Handle h) {
  const at::Tensor t = HostCopy(TensorOf("tensor", h)).to(DtypeOf<T>());
  std::vector<T> out(static_cast<std::size_t>(t.numel()));
  const T* data = static_cast<const T*>(t.data_ptr());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = data[i];
  return out;
}

void to(Handle h, const Options& target) {
  if (target.grad) Fail("to: expects a device and/or a dtype; set gradients with gradflag");
  auto convert = [&](const at::Tensor& t) {
    return t.to(target.device.value_or(t.device()), target.dtype.value_or(t.scalar_type()));
  };
  Object o = HandleTable::Global().Get(h);
  if (at::Tensor* t = o.tensor()) {
    *t = convert(*t);
  } else if (TensorVector* v = o.vector()) {
    for (at::Tensor& t : *v) t = convert(t);
  } else if (TensorDict* d = o.dict()) {
    for (auto& item : *d) item.value() = convert(item.value());
  } else {
    o.composite_ptr()->MoveTo(target.device, target.dtype);  // in place: every handle sees it
    return;
  }
  HandleTable::Global().Replace(h, std::move(o));
}

void seed(std::uint64_t s) { at::manual_seed(s); }

std::string default_device() { return at::hasCUDA() ? "cuda" : "cpu"; }

std::string default_dtype() { return DtypeName(c10::typeMetaToScalarType(c10::get_default_dtype())); }

void set_default_dtype(c10::ScalarType t) {
  if (!c10::isFloatingType(t)) Fail("dtype: default must be a floating point type, given %s", DtypeName(t));
  c10::set_default_dtype(c10::scalarTypeToTypeMeta(t));
}

#define KSCOPE_INSTANTIATE_TENSOR(T)                                                       \
  template Handle tensor<T>(const std::vector<T>&, const Shape&, const Options&);          \
  template Handle scalar<T>(T, const Options&);                                            \
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
