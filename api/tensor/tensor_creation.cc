#include "api/tensor/tensor_creation.h"

#include <ATen/ops/arange.h>
#include <ATen/ops/complex.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/eye.h>
#include <ATen/ops/full.h>
#include <ATen/ops/full_like.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/logspace.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/rand_like.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randint_like.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/randn_like.h>
#include <ATen/ops/randperm.h>
#include <ATen/ops/range.h>
#include <ATen/ops/sparse_coo_tensor.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>

#include "runtime/errors.h"

namespace kscope {
namespace {

constexpr const char* kFn = "tensor";

// The options of a _like call: those given, the memory format preserved unless one is given.
at::TensorOptions LikeOptions(const Options& o) {
  return o.factory().memory_format(o.memory.value_or(c10::MemoryFormat::Preserve));
}

// The example's tensor, and a new handle for f(example, like-options).
template <typename F>
Handle Like(const char* fn, const Operand& example, const Options& o, F f) {
  const at::Tensor t = Resolve(kFn, {&example}).tensors[0];
  return OwnTensor(fn, f(t, LikeOptions(o)), o);
}

// Options for a factory whose default dtype is long unless options say otherwise.
at::TensorOptions LongByDefault(const Options& o) {
  at::TensorOptions options = o.factory();
  return o.dtype ? options : options.dtype(c10::ScalarType::Long);
}

// Runs libtorch's _out function `f` into a fresh tensor of out's dtype, device and layout, then
// writes the result into out (so that out is unchanged when f throws).
template <typename F>
void WriteOut(Handle out, F f) {
  at::Tensor result = at::empty({0}, TensorOf(kFn, out).options());
  f(result);
  Emit(kFn, std::move(result), false, out);
}

}  // namespace

namespace {
constexpr CreationMode kCreationModes[] = {
    {"empty", 1, 1, 1, 1, false},    {"zeros", 1, 1, 1, 1, false},
    {"ones", 1, 1, 1, 1, false},     {"rand", 1, 1, 1, 1, false},
    {"randn", 1, 1, 1, 1, false},    {"full", 2, 2, 2, 2, false},
    {"randint", 2, 3, 2, 3, false},  {"randperm", 1, 1, 0, 0, false},
    {"arange", 1, 3, 0, 0, false},   {"range", 2, 3, 0, 0, false},
    {"linspace", 2, 3, 0, 0, false}, {"logspace", 2, 4, 0, 0, false},
    {"eye", 1, 2, 0, 0, false},      {"complex", 2, 2, 0, 0, true},
    {"sparse", 2, 3, 0, 0, true},
};
}  // namespace

absl::Span<const CreationMode> creation_modes() { return kCreationModes; }

const CreationMode& creation_mode(absl::string_view name) {
  for (const CreationMode& mode : kCreationModes) {
    if (name == mode.name) return mode;
  }
  Fail("unrecognized tensor creation mode: %s", name);
}

Handle empty(const Shape& size, const Options& o) {
  return OwnTensor("empty", at::empty(size, o.factory()), o);
}
Handle zeros(const Shape& size, const Options& o) {
  return OwnTensor("zeros", at::zeros(size, o.factory()), o);
}
Handle ones(const Shape& size, const Options& o) {
  return OwnTensor("ones", at::ones(size, o.factory()), o);
}
Handle full(const Shape& size, const c10::Scalar& value, const Options& o) {
  return OwnTensor("full", at::full(size, value, o.factory()), o);
}
Handle rand(const Shape& size, const Options& o) {
  return OwnTensor("rand", at::rand(size, o.factory()), o);
}
Handle randn(const Shape& size, const Options& o) {
  return OwnTensor("randn", at::randn(size, o.factory()), o);
}
Handle randint(std::int64_t low, std::int64_t high, const Shape& size, const Options& o) {
  return OwnTensor("randint", at::randint(low, high, size, LongByDefault(o)), o);
}

Handle empty_like(const Operand& example, const Options& o) {
  return Like("empty", example, o, [](const at::Tensor& t, const at::TensorOptions& opt) {
    return at::empty_like(t, opt);
  });
}
Handle zeros_like(const Operand& example, const Options& o) {
  return Like("zeros", example, o, [](const at::Tensor& t, const at::TensorOptions& opt) {
    return at::zeros_like(t, opt);
  });
}
Handle ones_like(const Operand& example, const Options& o) {
  return Like("ones", example, o, [](const at::Tensor& t, const at::TensorOptions& opt) {
    return at::ones_like(t, opt);
  });
}
Handle full_like(const Operand& example, const c10::Scalar& value, const Options& o) {
  return Like("full", example, o, [&](const at::Tensor& t, const at::TensorOptions& opt) {
    return at::full_like(t, value, opt);
  });
}
Handle rand_like(const Operand& example, const Options& o) {
  return Like("rand", example, o, [](const at::Tensor& t, const at::TensorOptions& opt) {
    return at::rand_like(t, opt);
  });
}
Handle randn_like(const Operand& example, const Options& o) {
  return Like("randn", example, o, [](const at::Tensor& t, const at::TensorOptions& opt) {
    return at::randn_like(t, opt);
  });
}
Handle randint_like(const Operand& example, std::int64_t low, std::int64_t high, const Options& o) {
  return Like("randint", example, o, [&](const at::Tensor& t, const at::TensorOptions& opt) {
    return at::randint_like(t, low, high, opt);
  });
}

Handle arange(const c10::Scalar& start, const c10::Scalar& end, const c10::Scalar& step,
              const Options& o) {
  return OwnTensor("arange", at::arange(start, end, step, o.factory()), o);
}
Handle range(const c10::Scalar& start, const c10::Scalar& end, const c10::Scalar& step,
             const Options& o) {
  return OwnTensor("range", at::range(start, end, step, o.factory()), o);
}
Handle linspace(const c10::Scalar& start, const c10::Scalar& end, std::int64_t steps,
                const Options& o) {
  return OwnTensor("linspace", at::linspace(start, end, steps, o.factory()), o);
}
Handle logspace(const c10::Scalar& start, const c10::Scalar& end, std::int64_t steps, double base,
                const Options& o) {
  return OwnTensor("logspace", at::logspace(start, end, steps, base, o.factory()), o);
}
Handle eye(std::int64_t n, std::optional<std::int64_t> m, const Options& o) {
  return OwnTensor("eye", m ? at::eye(n, *m, o.factory()) : at::eye(n, o.factory()), o);
}
Handle randperm(std::int64_t n, const Options& o) {
  return OwnTensor("randperm", at::randperm(n, LongByDefault(o)), o);
}

Handle complex(const Operand& real, const Operand& imag, const Options& o) {
  Resolved r = Resolve(kFn, {&real, &imag});
  at::Tensor re = r.tensors[0], im = r.tensors[1];
  if (o.dtype || o.device) {
    auto convert = [&](const at::Tensor& t) {
      const c10::ScalarType type = o.dtype ? c10::toRealValueType(*o.dtype) : t.scalar_type();
      return t.to(o.device.value_or(t.device()), type);
    };
    re = convert(re);
    im = convert(im);
  }
  return OwnTensor("complex", at::complex(re, im), o);
}

Handle sparse_coo(const Operand& indices, const Operand& values, const Shape& size,
                  const Options& o) {
  Resolved r = Resolve(kFn, {&indices, &values});
  const at::TensorOptions options = o.factory().layout(c10::kSparse);
  at::Tensor t = size.empty() ? at::sparse_coo_tensor(r.tensors[0], r.tensors[1], options)
                              : at::sparse_coo_tensor(r.tensors[0], r.tensors[1], size, options);
  return OwnTensor("sparse", std::move(t), o);
}

void empty_out(Handle out, const Shape& size) {
  WriteOut(out, [&](at::Tensor& t) { at::empty_out(t, size); });
}
void zeros_out(Handle out, const Shape& size) {
  WriteOut(out, [&](at::Tensor& t) { at::zeros_out(t, size); });
}
void ones_out(Handle out, const Shape& size) {
  WriteOut(out, [&](at::Tensor& t) { at::ones_out(t, size); });
}
void full_out(Handle out, const Shape& size, const c10::Scalar& value) {
  WriteOut(out, [&](at::Tensor& t) { at::full_out(t, size, value); });
}
void rand_out(Handle out, const Shape& size) {
  WriteOut(out, [&](at::Tensor& t) { at::rand_out(t, size); });
}
void randn_out(Handle out, const Shape& size) {
  WriteOut(out, [&](at::Tensor& t) { at::randn_out(t, size); });
}
void randint_out(Handle out, std::int64_t low, std::int64_t high, const Shape& size) {
  WriteOut(out, [&](at::Tensor& t) { at::randint_out(t, low, high, size); });
}
void arange_out(Handle out, const c10::Scalar& start, const c10::Scalar& end,
                const c10::Scalar& step) {
  WriteOut(out, [&](at::Tensor& t) { at::arange_out(t, start, end, step); });
}
void range_out(Handle out, const c10::Scalar& start, const c10::Scalar& end,
               const c10::Scalar& step) {
  WriteOut(out, [&](at::Tensor& t) { at::range_out(t, start, end, step); });
}
void linspace_out(Handle out, const c10::Scalar& start, const c10::Scalar& end,
                  std::int64_t steps) {
  WriteOut(out, [&](at::Tensor& t) { at::linspace_out(t, start, end, steps); });
}
void logspace_out(Handle out, const c10::Scalar& start, const c10::Scalar& end, std::int64_t steps,
                  double base) {
  WriteOut(out, [&](at::Tensor& t) { at::logspace_out(t, start, end, steps, base); });
}
void eye_out(Handle out, std::int64_t n, std::optional<std::int64_t> m) {
  WriteOut(out, [&](at::Tensor& t) { m ? at::eye_out(t, n, *m) : at::eye_out(t, n); });
}
void randperm_out(Handle out, std::int64_t n) {
  WriteOut(out, [&](at::Tensor& t) { at::randperm_out(t, n); });
}
void complex_out(Handle out, const Operand& real, const Operand& imag) {
  Resolved r = Resolve(kFn, {&real, &imag});
  WriteOut(out, [&](at::Tensor& t) { at::complex_out(t, r.tensors[0], r.tensors[1]); });
}

}  // namespace kscope
