#include "api/tensor/shape.h"

#include <ATen/ops/cat.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/narrow.h>
#include <ATen/ops/permute.h>
#include <ATen/ops/reshape.h>
#include <ATen/ops/select.h>
#include <ATen/ops/squeeze.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/transpose.h>
#include <ATen/ops/unsqueeze.h>

#include "runtime/errors.h"
#include "runtime/handle_table.h"

namespace kscope {
namespace {

using Tensors = TensorList;

// The tensors to join: a lone vector handle's elements, else the operands themselves.
Resolved JoinInputs(const char* fn, const std::vector<Operand>& xs) {
  if (xs.size() == 1 && xs[0].is_handle()) {
    Object o = HandleTable::Global().Get(xs[0].handle());
    if (const TensorVector* v = o.vector()) return Resolved{TensorList(v->begin(), v->end()), true};
  }
  return Resolve(fn, xs);
}

template <typename F>
Result Join(const char* fn, const std::vector<Operand>& xs, Handle out, F f) {
  Resolved r = JoinInputs(fn, xs);
  return Emit(fn, f(r.tensors), r.any_handle, out);
}

}  // namespace

Result view(const Operand& x, const Shape& size) {
  return Compute("view", {&x}, Handle(), [&](const Tensors& t) { return t[0].view(size); });
}

Result reshape(const Operand& x, const Shape& size) {
  return Compute("reshape", {&x}, Handle(),
                 [&](const Tensors& t) { return at::reshape(t[0], size); });
}

Result reshape_as(const Operand& x, const Operand& example) {
  return Compute("reshape", {&x, &example}, Handle(),
                 [](const Tensors& t) { return at::reshape(t[0], t[1].sizes()); });
}

Result expand(const Operand& x, const Shape& size) {
  // libtorch accepts a negative size in a new leading dimension when the result has no elements
  // (zeros 0 expanded to -3 0 gives sizes [-3, 0]); such a tensor breaks whatever reads it.
  for (std::size_t d = 0; d < size.size(); ++d) {
    if (size[d] < -1)
      Fail("expand: size %d at dimension %d; expects a size >= 0, or -1 to keep the input's size",
           size[d], d);
  }
  return Compute("expand", {&x}, Handle(), [&](const Tensors& t) { return t[0].expand(size); });
}

Result expand_as(const Operand& x, const Operand& example) {
  return Compute("expand", {&x, &example}, Handle(),
                 [](const Tensors& t) { return t[0].expand_as(t[1]); });
}

Result transpose(const Operand& x, std::int64_t dim0, std::int64_t dim1) {
  return Compute("transpose", {&x}, Handle(),
                 [&](const Tensors& t) { return at::transpose(t[0], dim0, dim1); });
}

void transpose_(Handle t, std::int64_t dim0, std::int64_t dim1) {
  TensorOf("transpose", t).transpose_(dim0, dim1);
}

Result permute(const Operand& x, const Shape& dims) {
  return Compute("permute", {&x}, Handle(),
                 [&](const Tensors& t) { return at::permute(t[0], dims); });
}

Result squeeze(const Operand& x, std::optional<std::int64_t> dim) {
  return Compute("squeeze", {&x}, Handle(), [&](const Tensors& t) {
    return dim ? at::squeeze(t[0], *dim) : at::squeeze(t[0]);
  });
}

void squeeze_(Handle t, std::optional<std::int64_t> dim) {
  at::Tensor x = TensorOf("squeeze", t);
  if (dim) {
    x.squeeze_(*dim);
  } else {
    x.squeeze_();
  }
}

Result unsqueeze(const Operand& x, std::int64_t dim) {
  return Compute("unsqueeze", {&x}, Handle(),
                 [&](const Tensors& t) { return at::unsqueeze(t[0], dim); });
}

void unsqueeze_(Handle t, std::int64_t dim) { TensorOf("unsqueeze", t).unsqueeze_(dim); }

Result cat(const std::vector<Operand>& xs, std::int64_t dim, Handle out) {
  return Join("cat", xs, out,
              [&](const Tensors& t) { return at::cat(at::TensorList(t.data(), t.size()), dim); });
}

Result stack(const std::vector<Operand>& xs, std::int64_t dim, Handle out) {
  return Join("stack", xs, out,
              [&](const Tensors& t) { return at::stack(at::TensorList(t.data(), t.size()), dim); });
}

Result narrow(const Operand& x, std::int64_t dim, std::int64_t start, std::int64_t length) {
  return Compute("narrow", {&x}, Handle(),
                 [&](const Tensors& t) { return at::narrow(t[0], dim, start, length); });
}

Result select(const Operand& x, std::int64_t dim, std::int64_t index) {
  return Compute("select", {&x}, Handle(),
                 [&](const Tensors& t) { return at::select(t[0], dim, index); });
}

Result index(const Operand& x, std::int64_t dim, const Operand& indices) {
  return Compute("index", {&x, &indices}, Handle(),
                 [&](const Tensors& t) { return at::index_select(t[0], dim, t[1]); });
}

}  // namespace kscope
