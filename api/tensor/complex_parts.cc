#include "api/tensor/complex_parts.h"

#include <ATen/ops/imag.h>
#include <ATen/ops/isreal.h>
#include <ATen/ops/real.h>

#include "runtime/errors.h"
#include "runtime/names.h"

namespace kscope {
namespace {

// t, when it is complex; kscope::Error naming fn otherwise.
const at::Tensor& Complex(const char* fn, const at::Tensor& t) {
  if (!t.is_complex())
    Fail("%s: expects complex tensor, given %s tensor", fn, DtypeName(t.scalar_type()));
  return t;
}

}  // namespace

Result real(const Operand& x) {
  return Compute("real", {&x}, Handle(),
                 [](const TensorList& t) { return at::real(Complex("real", t[0])); });
}

Result imag(const Operand& x) {
  return Compute("imag", {&x}, Handle(),
                 [](const TensorList& t) { return at::imag(Complex("imag", t[0])); });
}

Result isreal(const Operand& x) {
  return Compute("isreal", {&x}, Handle(), [](const TensorList& t) { return at::isreal(t[0]); });
}

}  // namespace kscope
