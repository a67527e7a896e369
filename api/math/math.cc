// The typed façade over the math catalogue: each function is the catalogue's entry of the same
// behaviour (add is the catalogue's add, div its Div, var its variance ...), run with typed
// arguments, so the catalogue is the one implementation. softmax and logsoftmax, which the
// catalogue does not hold (they are layers: api/nn/functional.h), run here with an output form.
#include "api/math/math.h"

#include <atomic>

#include <ATen/ops/log_softmax.h>
#include <ATen/ops/softmax.h>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "api/math/math_catalogue.h"
#include "runtime/errors.h"

namespace kscope {
namespace {

// The catalogue's entry `name`, looked up at its first use and kept. Constant-initialized, so a
// function-local one has no initialization guard: a call that finds the entry kept goes on to
// the run function after one load and test (a guarded reference cost a guard check and three
// more saved registers per call). Thread-safety: racing first calls store the same entry.
class CatalogueEntry {
 public:
  constexpr explicit CatalogueEntry(const char* name) : name_(name) {}
  const math::Function& get() const {
    const math::Function* f = function_.load(std::memory_order_acquire);
    return ABSL_PREDICT_TRUE(f != nullptr) ? *f : Lookup();
  }

 private:
  ABSL_ATTRIBUTE_NOINLINE const math::Function& Lookup() const {
    const math::Function* f = math::Find(name_);
    if (f == nullptr) Fail("math: no catalogue entry %s", name_);
    function_.store(f, std::memory_order_release);
    return *f;
  }

  const char* const name_;
  mutable std::atomic<const math::Function*> function_{nullptr};
};

// An optional dimension as the catalogue's optional dims argument.
math::Arg Dim(std::optional<std::int64_t> dim) {
  return dim ? math::Arg(*dim) : math::Arg(std::monostate());
}

}  // namespace

// `run` is math::Run, or math::RunOperands for a call of one or two tensors only.
#define KSCOPE_FROM_CATALOGUE(name, entry, run, params, ...) \
  Result name params {                                       \
    static CatalogueEntry f(entry);                          \
    return math::run(f.get(), __VA_ARGS__);                  \
  }

KSCOPE_FROM_CATALOGUE(add, "add", RunOperands, (const Operand& a, const Operand& b, Handle out), a,
                      b, out)
KSCOPE_FROM_CATALOGUE(sub, "sub", RunOperands, (const Operand& a, const Operand& b, Handle out), a,
                      b, out)
KSCOPE_FROM_CATALOGUE(mul, "mul", RunOperands, (const Operand& a, const Operand& b, Handle out), a,
                      b, out)
KSCOPE_FROM_CATALOGUE(div, "Div", RunOperands, (const Operand& a, const Operand& b, Handle out), a,
                      b, out)
KSCOPE_FROM_CATALOGUE(pow, "pow", RunOperands, (const Operand& a, const Operand& b, Handle out), a,
                      b, out)
KSCOPE_FROM_CATALOGUE(matmul, "matmul", RunOperands,
                      (const Operand& a, const Operand& b, Handle out), a, b, out)
KSCOPE_FROM_CATALOGUE(mm, "mm", RunOperands, (const Operand& a, const Operand& b, Handle out), a, b,
                      out)
KSCOPE_FROM_CATALOGUE(neg, "Neg", RunOperands, (const Operand& x, Handle out), x, out)
KSCOPE_FROM_CATALOGUE(abs, "Abs", RunOperands, (const Operand& x, Handle out), x, out)
KSCOPE_FROM_CATALOGUE(exp, "Exp", RunOperands, (const Operand& x, Handle out), x, out)
KSCOPE_FROM_CATALOGUE(log, "Log", RunOperands, (const Operand& x, Handle out), x, out)
KSCOPE_FROM_CATALOGUE(sqrt, "Sqrt", RunOperands, (const Operand& x, Handle out), x, out)
KSCOPE_FROM_CATALOGUE(mean, "mean", Run,
                      (const Operand& x, std::optional<std::int64_t> dim, bool keepdim, Handle out),
                      {x, Dim(dim), keepdim}, out)
KSCOPE_FROM_CATALOGUE(sum, "Sum", Run,
                      (const Operand& x, std::optional<std::int64_t> dim, bool keepdim, Handle out),
                      {x, Dim(dim), keepdim}, out)
KSCOPE_FROM_CATALOGUE(std_, "std", Run,
                      (const Operand& x, std::optional<std::int64_t> dim, bool unbiased,
                       bool keepdim, Handle out),
                      {x, Dim(dim), unbiased, keepdim}, out)
KSCOPE_FROM_CATALOGUE(var, "variance", Run,
                      (const Operand& x, std::optional<std::int64_t> dim, bool unbiased,
                       bool keepdim, Handle out),
                      {x, Dim(dim), unbiased, keepdim}, out)
KSCOPE_FROM_CATALOGUE(max, "Max", RunOperands, (const Operand& x, Handle out), x, out)
KSCOPE_FROM_CATALOGUE(max, "Max", Run, (const Operand& x, std::int64_t dim, bool keepdim),
                      {x, dim, keepdim})
KSCOPE_FROM_CATALOGUE(min, "Min", RunOperands, (const Operand& x, Handle out), x, out)
KSCOPE_FROM_CATALOGUE(min, "Min", Run, (const Operand& x, std::int64_t dim, bool keepdim),
                      {x, dim, keepdim})
KSCOPE_FROM_CATALOGUE(argmax, "argmax", Run,
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
