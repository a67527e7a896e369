// api/math/math_linear_algebra.cc: every D6 function of the catalogue checked against the same
// libtorch call made directly, on data, on handles and into an output handle (a tensor, or a
// vector for several results); the add-product family in place; bad arguments name the
// function and change nothing.
#include <functional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <ATen/ops/addbmm.h>
#include <ATen/ops/addmm.h>
#include <ATen/ops/addmv.h>
#include <ATen/ops/addr.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/baddbmm.h>
#include <ATen/ops/bmm.h>
#include <ATen/ops/cholesky_inverse.h>
#include <ATen/ops/cholesky_solve.h>
#include <ATen/ops/dot.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/eye.h>
#include <ATen/ops/geqrf.h>
#include <ATen/ops/linalg_cholesky.h>
#include <ATen/ops/linalg_cholesky_ex.h>
#include <ATen/ops/linalg_cross.h>
#include <ATen/ops/linalg_det.h>
#include <ATen/ops/linalg_eig.h>
#include <ATen/ops/linalg_eigh.h>
#include <ATen/ops/linalg_eigvals.h>
#include <ATen/ops/linalg_eigvalsh.h>
#include <ATen/ops/linalg_householder_product.h>
#include <ATen/ops/linalg_inv.h>
#include <ATen/ops/linalg_lstsq.h>
#include <ATen/ops/linalg_lu_factor.h>
#include <ATen/ops/linalg_lu_factor_ex.h>
#include <ATen/ops/linalg_lu_solve.h>
#include <ATen/ops/linalg_matrix_power.h>
#include <ATen/ops/linalg_matrix_rank.h>
#include <ATen/ops/linalg_multi_dot.h>
#include <ATen/ops/linalg_pinv.h>
#include <ATen/ops/linalg_qr.h>
#include <ATen/ops/linalg_slogdet.h>
#include <ATen/ops/linalg_solve.h>
#include <ATen/ops/linalg_solve_triangular.h>
#include <ATen/ops/linalg_svd.h>
#include <ATen/ops/linalg_svdvals.h>
#include <ATen/ops/logdet.h>
#include <ATen/ops/lu_unpack.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/mv.h>
#include <ATen/ops/outer.h>
#include <ATen/ops/tensor.h>

#include "api/core/pointer.h"
#include "api/math/math_catalogue.h"
#include "api/tensor/container.h"
#include "api/tensor/tensor.h"
#include "api/tensor/tensor_creation.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "tests/error_text.h"
#include "tests/math_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace math_linear_algebra_test {

using testing::EmptyOf;
using testing::ErrorOf;
using testing::ExpectSameTensors;
using ::testing::HasSubstr;
using testing::LeakCheckTest;
using testing::TensorsOf;

using MathLinearAlgebraTest = LeakCheckTest;
using Tensors = std::vector<at::Tensor>;

// Linear algebra's results are compared more tightly than the default (rtol 1e-6, atol 1e-8).
void ExpectSame(const Tensors& got, const Tensors& want, const std::string& what) {
  ExpectSameTensors(got, want, what, /*rtol=*/1e-6, /*atol=*/1e-8);
}

// Tuples of results as a list.
template <typename... T>
Tensors Many(const std::tuple<T...>& t) {
  return std::apply([](const auto&... x) { return Tensors{x...}; }, t);
}

// One function, its tensor inputs, its other arguments (after the tensors) and the reference.
struct Case {
  const char* name;
  Tensors inputs;
  std::vector<math::Arg> options;
  std::function<Tensors(const Tensors&)> reference;
};

// Runs the case on data, on handles and into an output handle, comparing each with the
// reference; with handles also in place where the function has that form.
void ExpectEveryForm(const Case& c) {
  const Tensors want = c.reference(c.inputs);
  std::vector<math::Arg> data;
  for (const at::Tensor& t : c.inputs) data.emplace_back(Operand(t.clone()));
  data.insert(data.end(), c.options.begin(), c.options.end());
  const Result by_data = math::Run(c.name, data);
  ASSERT_FALSE(by_data.is_handle()) << c.name;
  ExpectSame(TensorsOf(by_data), want, std::string(c.name) + " data");

  Scope scope = Scope::Open();
  std::vector<math::Arg> handles;
  for (const at::Tensor& t : c.inputs) handles.emplace_back(Operand(tensor(t.clone())));
  handles.insert(handles.end(), c.options.begin(), c.options.end());
  const Result by_handle = math::Run(c.name, handles);
  ASSERT_TRUE(by_handle.is_handle()) << c.name;
  ExpectSame(TensorsOf(by_handle), want, std::string(c.name) + " handle");

  const Handle out =
      want.size() == 1 ? EmptyOf(want[0].scalar_type()) : vector(std::vector<Operand>{});
  EXPECT_TRUE(math::Run(c.name, handles, out).is_none()) << c.name;
  ExpectSame(TensorsOf(Result(out)), want, std::string(c.name) + " output");

  if (math::Find(c.name)->in_place != nullptr) {
    const Handle first = std::get<Operand>(handles[0]).handle();
    EXPECT_TRUE(math::Run(c.name, handles, Handle(), /*in_place=*/true).is_none()) << c.name;
    ExpectSame({tensor(first)}, {want[0]}, std::string(c.name) + " in place");
  }
}

// Inputs: a general square matrix, a symmetric positive definite one, its Cholesky factors,
// right-hand sides, a tall matrix, batches and vectors.
const at::Tensor kSquare =
    at::tensor({2.0, -1.0, 0.5, 1.0, 3.0, -2.0, 0.0, 1.0, 4.0}, at::kDouble).view({3, 3});
const at::Tensor kSpd = kSquare.mm(kSquare.t()) + 3 * at::eye(3, at::kDouble);
const at::Tensor kLower = at::linalg_cholesky(kSpd);
const at::Tensor kUpper = at::linalg_cholesky(kSpd, /*upper=*/true);
const at::Tensor kRhs = at::tensor({1.0, 0.0, -1.0, 2.0, 0.5, 3.0}, at::kDouble).view({3, 2});
const at::Tensor kTall =
    at::tensor({1.0, 2.0, 0.0, -1.0, 1.0, 3.0, 2.0, 0.0, 1.0, 1.0, 1.0, 1.0}, at::kDouble)
        .view({4, 3});
const at::Tensor kTallRhs = at::tensor({1.0, 2.0, 3.0, 4.0}, at::kDouble).view({4, 1});
const at::Tensor kBatch = at::stack({kSquare, kSpd});
const at::Tensor kBatchRhs = at::stack({kRhs, 2 * kRhs});
const at::Tensor kU = at::tensor({1.0, -2.0, 0.5}, at::kDouble);
const at::Tensor kV = at::tensor({3.0, 1.0, -1.0}, at::kDouble);

TEST_F(MathLinearAlgebraTest, EveryFunctionMatchesLibtorch) {
  const auto [lu, pivots] = at::linalg_lu_factor(kSquare);
  const auto [reflectors, tau] = at::geqrf(kTall);
  const std::vector<Case> cases = {
      {"det", {kSquare}, {}, [](auto& x) { return Tensors{at::linalg_det(x[0])}; }},
      {"logdet", {kSpd}, {}, [](auto& x) { return Tensors{at::logdet(x[0])}; }},
      {"slogdet", {kSquare}, {}, [](auto& x) { return Many(at::linalg_slogdet(x[0])); }},
      {"mrank", {kTall}, {}, [](auto& x) { return Tensors{at::linalg_matrix_rank(x[0])}; }},
      {"mrank",
       {kSpd},
       {0.5, std::monostate(), true},
       [](auto& x) { return Tensors{at::linalg_matrix_rank(x[0], 0.5, c10::nullopt, true)}; }},
      {"chol", {kSpd}, {}, [](auto& x) { return Tensors{at::linalg_cholesky(x[0])}; }},
      {"chol", {kSpd}, {true}, [](auto& x) { return Tensors{at::linalg_cholesky(x[0], true)}; }},
      {"cholx",
       {kSquare},
       {false, false},
       [](auto& x) { return Many(at::linalg_cholesky_ex(x[0])); }},
      {"eig", {kSquare}, {}, [](auto& x) { return Many(at::linalg_eig(x[0])); }},
      {"eigvals", {kSquare}, {}, [](auto& x) { return Tensors{at::linalg_eigvals(x[0])}; }},
      {"eigh", {kSpd}, {}, [](auto& x) { return Many(at::linalg_eigh(x[0])); }},
      {"eigh", {kSpd.triu()}, {true}, [](auto& x) { return Many(at::linalg_eigh(x[0], "U")); }},
      {"eigvalsh", {kSpd.tril()}, {}, [](auto& x) { return Tensors{at::linalg_eigvalsh(x[0])}; }},
      {"qr", {kTall}, {}, [](auto& x) { return Many(at::linalg_qr(x[0])); }},
      {"qr",
       {kTall},
       {std::string("complete")},
       [](auto& x) { return Many(at::linalg_qr(x[0], "complete")); }},
      {"qr", {kTall}, {std::string("r")}, [](auto& x) { return Many(at::linalg_qr(x[0], "r")); }},
      {"lu", {kBatch}, {}, [](auto& x) { return Many(at::linalg_lu_factor(x[0])); }},
      {"lux",
       {kSquare},
       {true, true},
       [](auto& x) { return Many(at::linalg_lu_factor_ex(x[0], true, true)); }},
      {"lun", {lu, pivots}, {}, [](auto& x) { return Many(at::lu_unpack(x[0], x[1])); }},
      {"lun",
       {lu, pivots},
       {true, false},
       [](auto& x) { return Many(at::lu_unpack(x[0], x[1], true, false)); }},
      {"svd", {kTall}, {}, [](auto& x) { return Many(at::linalg_svd(x[0])); }},
      {"svd", {kTall}, {false}, [](auto& x) { return Many(at::linalg_svd(x[0], false)); }},
      {"svdvals", {kTall}, {}, [](auto& x) { return Tensors{at::linalg_svdvals(x[0])}; }},
      {"solve", {kSquare, kRhs}, {}, [](auto& x) { return Tensors{at::linalg_solve(x[0], x[1])}; }},
      {"solve",
       {kSquare, kRhs.t()},
       {false},
       [](auto& x) { return Tensors{at::linalg_solve(x[0], x[1], false)}; }},
      {"trisolve",
       {kUpper, kRhs},
       {true},
       [](auto& x) { return Tensors{at::linalg_solve_triangular(x[0], x[1], true)}; }},
      {"trisolve",
       {kLower, kRhs.t()},
       {false, false, true},
       [](auto& x) {
         return Tensors{at::linalg_solve_triangular(x[0], x[1], false, false, true)};
       }},
      {"cholsolve",
       {kRhs, kLower},
       {},
       [](auto& x) { return Tensors{at::cholesky_solve(x[0], x[1])}; }},
      {"cholsolve",
       {kRhs, kUpper},
       {true},
       [](auto& x) { return Tensors{at::cholesky_solve(x[0], x[1], true)}; }},
      {"lstsq", {kTall, kTallRhs}, {}, [](auto& x) { return Many(at::linalg_lstsq(x[0], x[1])); }},
      {"lstsq",
       {kTall, kTallRhs},
       {1e-10, std::string("gelsd")},
       [](auto& x) { return Many(at::linalg_lstsq(x[0], x[1], 1e-10, "gelsd")); }},
      {"lusolve",
       {kRhs, lu, pivots},
       {},
       [](auto& x) { return Tensors{at::linalg_lu_solve(x[1], x[2], x[0])}; }},
      {"inverse", {kSquare}, {}, [](auto& x) { return Tensors{at::linalg_inv(x[0])}; }},
      {"pinverse", {kTall}, {}, [](auto& x) { return Tensors{at::linalg_pinv(x[0])}; }},
      {"pinverse",
       {kSpd},
       {std::monostate(), 0.1, true},
       [](auto& x) { return Tensors{at::linalg_pinv(x[0], c10::nullopt, 0.1, true)}; }},
      {"cholinverse", {kLower}, {}, [](auto& x) { return Tensors{at::cholesky_inverse(x[0])}; }},
      {"cholinverse",
       {kUpper},
       {true},
       [](auto& x) { return Tensors{at::cholesky_inverse(x[0], true)}; }},
      {"power",
       {kSquare},
       {std::int64_t{3}},
       [](auto& x) { return Tensors{at::linalg_matrix_power(x[0], 3)}; }},
      {"power",
       {kSquare},
       {std::int64_t{-2}},
       [](auto& x) { return Tensors{at::linalg_matrix_power(x[0], -2)}; }},
      {"bmm", {kBatch, kBatchRhs}, {}, [](auto& x) { return Tensors{at::bmm(x[0], x[1])}; }},
      {"Cross", {kU, kV}, {}, [](auto& x) { return Tensors{at::linalg_cross(x[0], x[1])}; }},
      {"Cross",
       {kSquare, kSpd},
       {std::int64_t{0}},
       [](auto& x) { return Tensors{at::linalg_cross(x[0], x[1], 0)}; }},
      {"dot", {kU, kV}, {}, [](auto& x) { return Tensors{at::dot(x[0], x[1])}; }},
      {"householder",
       {reflectors, tau},
       {},
       [](auto& x) { return Tensors{at::linalg_householder_product(x[0], x[1])}; }},
      {"matmul", {kBatch, kRhs}, {}, [](auto& x) { return Tensors{at::matmul(x[0], x[1])}; }},
      {"mm", {kSquare, kRhs}, {}, [](auto& x) { return Tensors{at::mm(x[0], x[1])}; }},
      {"mmt", {kSquare, kRhs.t()}, {}, [](auto& x) { return Tensors{at::mm(x[0], x[1].t())}; }},
      {"mtm", {kTall, kTallRhs}, {}, [](auto& x) { return Tensors{at::mm(x[0].t(), x[1])}; }},
      {"mv", {kSquare, kU}, {}, [](auto& x) { return Tensors{at::mv(x[0], x[1])}; }},
      {"outer", {kU, kV}, {}, [](auto& x) { return Tensors{at::outer(x[0], x[1])}; }},
      {"addbmm",
       {kRhs, kBatch, kBatchRhs},
       {},
       [](auto& x) { return Tensors{at::addbmm(x[0], x[1], x[2])}; }},
      {"addmm",
       {kRhs, kSquare, kRhs},
       {0.5, 2.0},
       [](auto& x) { return Tensors{at::addmm(x[0], x[1], x[2], 0.5, 2.0)}; }},
      {"addmv",
       {kU, kSquare, kV},
       {std::monostate(), 3.0},
       [](auto& x) { return Tensors{at::addmv(x[0], x[1], x[2], 1, 3.0)}; }},
      {"addr",
       {kSquare, kU, kV},
       {2.0},
       [](auto& x) { return Tensors{at::addr(x[0], x[1], x[2], 2.0)}; }},
      {"baddbmm",
       {kBatchRhs, kBatch, kBatchRhs},
       {},
       [](auto& x) { return Tensors{at::baddbmm(x[0], x[1], x[2])}; }},
  };
  std::set<std::string> covered;
  for (const Case& c : cases) {
    ExpectEveryForm(c);
    covered.insert(c.name);
  }
  EXPECT_EQ(covered.size(), 40u);  // every D6 function but multidot, below
  EXPECT_EQ(math::LinearAlgebraFunctions().size(), 41u);
}

TEST_F(MathLinearAlgebraTest, MultidotTakesAListOrAVector) {
  const Tensors matrices{kTall, kSquare, kRhs};
  const at::Tensor want = at::linalg_multi_dot(matrices);
  ExpectSame(TensorsOf(math::Run("multidot", {std::vector<Operand>{Operand(kTall), Operand(kSquare),
                                                                   Operand(kRhs)}})),
             {want}, "multidot data");
  Scope scope = Scope::Open();
  const Handle v = vector(std::vector<Operand>{Operand(kTall.clone()), Operand(kSquare.clone()),
                                               Operand(kRhs.clone())});
  const Result by_vector = math::Run("multidot", {Operand(v)});
  ASSERT_TRUE(by_vector.is_handle());
  ExpectSame(TensorsOf(by_vector), {want}, "multidot vector");
  const Handle out = EmptyOf(at::kDouble);
  EXPECT_TRUE(
      math::Run("multidot",
                {std::vector<Operand>{Operand(tensor(kTall)), Operand(kSquare), Operand(kRhs)}},
                out)
          .is_none());
  ExpectSame({tensor(out)}, {want}, "multidot output");
}

TEST_F(MathLinearAlgebraTest, CholxReportsTheFailingMinorUnlessAskedToCheck) {
  const at::Tensor not_definite = at::tensor({1.0, 2.0, 2.0, 1.0}, at::kDouble).view({2, 2});
  const Result r = math::Run("cholx", {Operand(not_definite)});
  const Tensors parts = TensorsOf(r);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].item<int>(), 2);
  EXPECT_THROW(math::Run("cholx", {Operand(not_definite), false, true}), c10::Error);
  EXPECT_THROW(math::Run("chol", {Operand(not_definite)}), c10::Error);
}

TEST_F(MathLinearAlgebraTest, BadArgumentsNameTheFunctionAndChangeNothing) {
  Scope scope = Scope::Open();
  const Handle x = tensor(kSquare.clone());
  const Handle out = EmptyOf(at::kDouble);
  const std::size_t live = HandleTable::Global().size();
  const auto error = [](const std::string& name, std::vector<math::Arg> args, Handle o = Handle()) {
    try {
      math::Run(name, std::move(args), o);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no kscope::Error");
  };
  EXPECT_THAT(error("qr", {Operand(x), std::string("full")}),
              HasSubstr("qr: mode expected `reduced, `complete or `r, given `full"));
  EXPECT_THAT(error("svd", {Operand(x), true, std::string("gesdd")}),
              HasSubstr("svd: driver expected `gesvd, `gesvdj or `gesvda, given `gesdd"));
  EXPECT_THAT(error("svdvals", {Operand(x), std::string("x")}),
              HasSubstr("svdvals: driver expected `gesvd"));
  EXPECT_THAT(error("lstsq", {Operand(x), Operand(x), std::monostate(), std::string("qr")}),
              HasSubstr("lstsq: method expected `gels, `gelsy, `gelsd or `gelss, given `qr"));
  EXPECT_THAT(error("power", {Operand(x), 1.5}), HasSubstr("power: arg[1] expected long"));
  EXPECT_THAT(error("power", {Operand(x)}), HasSubstr("power: arg[1] (long) is required"));
  EXPECT_THAT(error("trisolve", {Operand(x), Operand(x)}),
              HasSubstr("trisolve: arg[2] (boolean) is required"));
  EXPECT_THAT(error("chol", {Operand(x), std::int64_t{1}}),
              HasSubstr("chol: arg[1] expected boolean"));
  EXPECT_THAT(ErrorOf([&] { math::Run("det", {Operand(x)}, Handle(), /*in_place=*/true); }),
              HasSubstr("det: has no in-place form"));
  EXPECT_THAT(error("qr", {Operand(x)}, out),
              HasSubstr("qr: output for several results must be a vector, given tensor"));
  // libtorch's own errors for shapes pass through, and change nothing either.
  EXPECT_THAT(ErrorOf([&] { math::Run("det", {Operand(kTall)}); }), HasSubstr("square"));
  EXPECT_THAT(ErrorOf([&] {
                math::Run("mm", {Operand(x), Operand(kTall)}, out);
              }),
              HasSubstr("mat1 and mat2"));
  EXPECT_EQ(HandleTable::Global().size(), live);
  EXPECT_TRUE(at::equal(tensor(x), kSquare));
  EXPECT_EQ(tensor(out).numel(), 0);
}

}  // namespace math_linear_algebra_test
}  // namespace kscope
