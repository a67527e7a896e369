// The typed façade over the math catalogue: each function is the catalogue's entry of the same
// behaviour (add is the catalogue's add, div its Div, var its variance ...), run with typed
// arguments, so the catalogue is the one implementation. softmax and logsoftmax, which the
// catalogue does not hold (they are layers: api/nn/functional.h), run here with an output form.
#include "api/math/math.h"

#include <ATen/ops/log_softmax.h>
#include <ATen/ops/softmax.h>

#include "api/math/math_catalogue.h"
#include "runtime/errors.h"

namespace kscope {
namespace {

// The catalogue's entry `name`, looked up once per call site.
const math::Function& Entry(const char* name) {
  const math::Function* f = math::Find(name);
  if (f == nullptr) Fail("math: no catalogue entry %s", name);
  return *f;
}

// An optional dimension as the catalogue's optional dims argument.
math::Arg Dim(std::optional<std::int64_t> dim) {
  return dim ? math::Arg(*dim) : math::Arg(std::monostate());
}

}  // namespace

#define KSCOPE_FROM_CATALOGUE(name, entry, params, ...) \
  Result name params {                                  \
    static const math::Function& f = Entry(entry);      \
    return math::Run(f, __VA_ARGS__);                   \
  }

KSCOPE_FROM_CATALOGUE(add, "add", (const Operand& a, const Operand& b, Handle out), {a, b}, out)
KSCOPE_FROM_CATALOGUE(sub, "sub", (const Operand& a, const Operand& b, Handle out), {a, b}, out)
KSCOPE_FROM_CATALOGUE(mul, "mul", (const Operand& a, const Operand& b, Handle out), {a, b}, out)
KSCOPE_FROM_CATALOGUE(div, "Div", (const Operand& a, const Operand& b, Handle out), {a, b}, out)
KSCOPE_FROM_CATALOGUE(pow, "pow", (const Operand& a, const Operand& b, Handle out), {a, b}, out)
KSCOPE_FROM_CATALOGUE(matmul, "matmul", (const Operand& a, const Operand& b, Handle out), {a, b},
                      out)
KSCOPE_FROM_CATALOGUE(mm, "mm", (const Operand& a, const Operand& b, Handle out), {a, b}, out)
KSCOPE_FROM_CATALOGUE(neg, "Neg", (const Operand& x, Handle out), {x}, out)
KSCOPE_FROM_CATALOGUE(abs, "Abs", (const Operand& x, Handle out), {x}, out)
KSCOPE_FROM_CATALOGUE(exp, "Exp", (const Operand& x, Handle out), {x}, out)
KSCOPE_FROM_CATALOGUE(log, "Log", (const Operand& x, Handle out), {x}, out)
KSCOPE_FROM_CATALOGUE(sqrt, "Sqrt", (const Operand& x, Handle out), {x}, out)
KSCOPE_FROM_CATALOGUE(mean, "mean",
                      (const Operand& x, std::optional<std::int64_t> dim, bool keepdim, Handle out),
                      {x, Dim(dim), keepdim}, out)
KSCOPE_FROM_CATALOGUE(sum, "Sum",
                      (const Operand& x, std::optional<std::int64_t> dim, bool keepdim, Handle out),
                      {x, Dim(dim), keepdim}, out)
KSCOPE_FROM_CATALOGUE(std_, "std",
                      (const Operand& x, std::optional<std::int64_t> dim, bool unbiased,
                       bool keepdim, Handle out),
                      {x, Dim(dim), unbiased, keepdim}, out)
KSCOPE_FROM_CATALOGUE(var, "variance",
                      (const Operand& x, std::optional<std::int64_t> dim, bool unbiased,
                       bool keepdim, Handle out),
                      {x, Dim(dim), unbiased, keepdim}, out)
KSCOPE_FROM_CATALOGUE(max, "Max", (const Operand& x, Handle out), {x}, out)
KSCOPE_FROM_CATALOGUE(max, "Max", (const Operand& x, std::int64_t dim, bool keepdim),
                      {x, dim, keepdim})
KSCOPE_FROM_CATALOGUE(min, "Min", (const Operand& x, Handle out), {x}, out)
KSCOPE_FROM_CATALOGUE(min, "Min", (const Operand& x, std::int64_t dim, bool keepdim),
                      {x, dim, keepdim})
KSCOPE_FROM_CATALOGUE(argmax, "argmax",
                      (const Operand& x, std::optional<std::int64_t> dim, bool keepdim, Handle out),
                      {x, Dim(dim), keepdim}, out)
#undef KSCOPE_FROM_CATALOGUE

Result softmax(const Operand& x, std::int64_t dim, Handle out) {
  return Compute("softmax", {&x}, out, [&](const TensorList& t) { return at::softmax(t[0], dim); });
}

std::int64_t default_softmax_dim(std::int64_t input_dims) {
  return input_dims == 0 || input_dims == 1 || input_dims == 3 ? 0 : 1;
}

Result logsoftmax(const Operand& x, std::int64_t dim, Handle out) {
  return Compute("logsoftmax", {&x}, out,
                 [&](const TensorList& t) { return at::log_softmax(t[0], dim); });
}

}  // namespace kscope
