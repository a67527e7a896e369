// Shared pieces of the math catalogue's C++ tests (tests/math_*_test.cc): an empty output
// handle, the tensors of a result, and one comparison of results with libtorch's.
#ifndef KSCOPE_TESTS_MATH_TEST_UTIL_H_
#define KSCOPE_TESTS_MATH_TEST_UTIL_H_

#include <string>
#include <variant>
#include <vector>

#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/equal.h>
#include <gtest/gtest.h>

#include "api/tensor/container.h"
#include "api/tensor/tensor.h"
#include "api/tensor/tensor_creation.h"
#include "runtime/handle_table.h"

namespace kscope::testing {

// A new handle to an empty tensor of type dtype, for an output argument (the caller frees it).
inline Handle EmptyOf(at::ScalarType dtype) {
  Options o;
  o.dtype = dtype;
  return empty({0}, o);
}

// The tensors of a result, data or handle: one tensor, or a vector's tensors.
inline std::vector<at::Tensor> TensorsOf(const Result& r) {
  if (r.is_handle()) {
    if (class_(r.handle()) == ObjectClass::kVector) return vector(r.handle());
    return {tensor(r.handle())};
  }
  if (const auto* v = std::get_if<TensorVector>(&r.value())) return *v;
  return {r.tensor()};
}

// Expects got to have want's dtype and sizes and its values: floating and complex within
// rtol/atol (NaN where want has NaN), integer and bool exactly. `what` labels failures.
inline void ExpectSameTensor(const at::Tensor& got, const at::Tensor& want, const std::string& what,
                             double rtol = 1e-5, double atol = 1e-6) {
  EXPECT_EQ(got.scalar_type(), want.scalar_type()) << what;
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  if (at::isFloatingType(want.scalar_type()) || at::isComplexType(want.scalar_type())) {
    EXPECT_TRUE(at::allclose(got, want, rtol, atol, /*equal_nan=*/true)) << what;
  } else {
    EXPECT_TRUE(at::equal(got, want)) << what;
  }
}

// ExpectSameTensor for each of several results, which must be as many as want's.
inline void ExpectSameTensors(const std::vector<at::Tensor>& got,
                              const std::vector<at::Tensor>& want, const std::string& what,
                              double rtol = 1e-5, double atol = 1e-6) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i) {
    ExpectSameTensor(got[i], want[i], what + " result " + std::to_string(i), rtol, atol);
  }
}

}  // namespace kscope::testing

#endif  // KSCOPE_TESTS_MATH_TEST_UTIL_H_
