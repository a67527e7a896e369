#include "api/math.h"

#include <ATen/ops/abs.h>
#include <ATen/ops/add.h>
#include <ATen/ops/argmax.h>
#include <ATen/ops/div.h>
#include <ATen/ops/exp.h>
#include <ATen/ops/log.h>
#include <ATen/ops/log_softmax.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/max.h>
#include <ATen/ops/mean.h>
#include <ATen/ops/min.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/neg.h>
#include <ATen/ops/pow.h>
#include <ATen/ops/softmax.h>
#include <ATen/ops/sqrt.h>
#include <ATen/ops/std.h>
#include <ATen/ops/sub.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/var.h>

#include "runtime/torch_compat.h"

namespace kscope {
namespace {

using Tensors = TensorList;

// Reduction along an optional dim, as the libtorch overloads for "all" and "dim" differ.
template <typename All, typename Dim>
Result Reduce(const char* fn, const Operand& x, std::optional<std::int64_t> dim, Handle out,
              All all, Dim along) {
  return Compute(fn, {&x}, out, [&](const Tensors& t) {
    return dim ? along(t[0], at::IntArrayRef(*dim)) : all(t[0]);
  });
}

// max/min along a dim: a vector (values; indices).
template <typename F>
Result ValuesAndIndices(const char* fn, const Operand& x, std::int64_t dim, bool keepdim, F f) {
  Resolved r = Resolve(fn, {&x});
  auto [values, indices] = f(r.tensors[0], dim, keepdim);
  return EmitVector(fn, TensorVector{values, indices}, r.any_handle);
}

}  // namespace

#define KSCOPE_BINARY(name, call)                                                     \
  Result name(const Operand& a, const Operand& b, Handle out) {                      \
    return Compute(#name, {&a, &b}, out, [](const Tensors& t) { return call(t[0], t[1]); }); \
  }
KSCOPE_BINARY(add, at::add)
KSCOPE_BINARY(sub, at::sub)
KSCOPE_BINARY(mul, at::mul)
KSCOPE_BINARY(div, at::div)
KSCOPE_BINARY(pow, at::pow)
KSCOPE_BINARY(matmul, at::matmul)
KSCOPE_BINARY(mm, at::mm)
#undef KSCOPE_BINARY

#define KSCOPE_UNARY(name, call)                                                          \
  Result name(const Operand& x, Handle out) {                                            \
    return Compute(#name, {&x}, out, [](const Tensors& t) { return call(t[0]); });       \
  }
KSCOPE_UNARY(neg, at::neg)
KSCOPE_UNARY(abs, at::abs)
KSCOPE_UNARY(exp, at::exp)
KSCOPE_UNARY(log, at::log)
KSCOPE_UNARY(sqrt, at::sqrt)
#undef KSCOPE_UNARY

Result mean(const Operand& x, std::optional<std::int64_t> dim, bool keepdim, Handle out) {
  return Reduce("mean", x, dim, out, [](const at::Tensor& t) { return at::mean(t); },
                [&](const at::Tensor& t, at::IntArrayRef d) { return at::mean(t, d, keepdim); });
}

Result sum(const Operand& x, std::optional<std::int64_t> dim, bool keepdim, Handle out) {
  return Reduce("sum", x, dim, out, [](const at::Tensor& t) { return at::sum(t); },
                [&](const at::Tensor& t, at::IntArrayRef d) { return at::sum(t, d, keepdim); });
}

Result std_(const Operand& x, std::optional<std::int64_t> dim, bool unbiased, bool keepdim,
            Handle out) {
  return Reduce("std", x, dim, out, [&](const at::Tensor& t) { return at::std(t, unbiased); },
                [&](const at::Tensor& t, at::IntArrayRef d) { return at::std(t, d, unbiased, keepdim); });
}

Result var(const Operand& x, std::optional<std::int64_t> dim, bool unbiased, bool keepdim,
           Handle out) {
  return Reduce("var", x, dim, out, [&](const at::Tensor& t) { return at::var(t, unbiased); },
                [&](const at::Tensor& t, at::IntArrayRef d) { return at::var(t, d, unbiased, keepdim); });
}

Result max(const Operand& x, Handle out) {
  return Compute("max", {&x}, out, [](const Tensors& t) { return at::max(t[0]); });
}
Result max(const Operand& x, std::int64_t dim, bool keepdim) {
  return ValuesAndIndices("max", x, dim, keepdim,
                          [](const at::Tensor& t, std::int64_t d, bool k) { return at::max(t, d, k); });
}
Result min(const Operand& x, Handle out) {
  return Compute("min", {&x}, out, [](const Tensors& t) { return at::min(t[0]); });
}
Result min(const Operand& x, std::int64_t dim, bool keepdim) {
  return ValuesAndIndices("min", x, dim, keepdim,
                          [](const at::Tensor& t, std::int64_t d, bool k) { return at::min(t, d, k); });
}

Result argmax(const Operand& x, std::optional<std::int64_t> dim, bool keepdim, Handle out) {
  return Compute("argmax", {&x}, out, [&](const Tensors& t) {
    return at::argmax(t[0], ToAtOptional(dim), keepdim);
  });
}

Result softmax(const Operand& x, std::int64_t dim, Handle out) {
  return Compute("softmax", {&x}, out, [&](const Tensors& t) { return at::softmax(t[0], dim); });
}

Result logsoftmax(const Operand& x, std::int64_t dim, Handle out) {
  return Compute("logsoftmax", {&x}, out, [&](const Tensors& t) { return at::log_softmax(t[0], dim); });
}

}  // namespace kscope
