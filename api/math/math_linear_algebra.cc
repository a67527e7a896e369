// The catalogue's linear algebra (ktorch-api.md §1.5 D6). Every function takes an optional
// trailing output (a vector for several results). Optional parameters default as libtorch's.
// Decompositions and solvers (no in-place forms):
//   det logdet inverse eig eigvals: x.                    slogdet x -> (sign; logabsdet)
//   mrank(x;atol;rtol;hermitian)       matrix rank (a long tensor)
//   chol(x;upper)  cholx(x;upper;check) -> (factor; info, 0 or the order of the failing minor)
//   eigh(x;upper) -> (values; vectors)  eigvalsh(x;upper): the upper triangle read when upper
//   qr(x;mode) -> (Q; R), mode `reduced (default) `complete or `r
//   lu(x;pivot) -> (LU; pivots)   lux(x;pivot;check) -> (LU; pivots; info)
//   lun(LU;pivots;data;pivots) -> (P; L; U), P and L, U left empty when their flag is false
//   svd(x;full;driver) -> (U; S; Vh), full default true; svdvals(x;driver); driver `gesvd
//     `gesvdj or `gesvda (CUDA only, as libtorch says on other devices)
//   solve(a;b;left) a·x = b (left, default) or x·a = b
//   trisolve(a;b;upper;left;unitriangular) a triangular: upper required, left default true
//   cholsolve(b;u;upper) with u a Cholesky factor (lower by default)
//   lstsq(a;b;rcond;method) -> (x; residuals; rank; singular values), method `gels `gelsy
//     `gelsd or `gelss (libtorch's default: gelsy on the CPU)
//   lusolve(b;LU;pivots) with lu's factors    pinverse(x;atol;rtol;hermitian)
//   cholinverse(x;upper)    power(x;n): x to the integer power n
// Symbols for modes and drivers are checked here, so a bad one names the function.
// Products:
//   bmm dot matmul mm mv outer (x;y): libtorch's products of the same names
//   mmt(x;y) x·yᵀ and mtm(x;y) xᵀ·y, for matrices
//   Cross(x;y;dim): the cross product along dim (default -1; size 3 there)
//   householder(x;tau): the product of the Householder matrices x, tau describe (as from geqrf)
//   multidot x: the product of a list of matrices (a vector, or a list of tensors), in the
//     cheapest order
//   addbmm addmm addmv addr baddbmm (x;y;z;beta;alpha): beta·x + alpha·(y op z), beta and alpha
//     default 1; each also in place, (x;y;z[;beta;alpha];::) writing x.
#include <initializer_list>
#include <tuple>
#include <utility>
#include <vector>

#include <ATen/ops/addbmm.h>
#include <ATen/ops/addmm.h>
#include <ATen/ops/addmv.h>
#include <ATen/ops/addr.h>
#include <ATen/ops/baddbmm.h>
#include <ATen/ops/bmm.h>
#include <ATen/ops/cholesky_inverse.h>
#include <ATen/ops/cholesky_solve.h>
#include <ATen/ops/dot.h>
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

#include "absl/strings/str_join.h"
#include "api/math/math_catalogue.h"
#include "runtime/errors.h"

namespace kscope::math {
namespace {

// Several results of one op as the vector the catalogue returns.
template <typename... T>
Output Several(std::tuple<T...> results) {
  return std::apply([](auto&... t) { return Output(std::vector<at::Tensor>{std::move(t)...}); },
                    results);
}

// The symbol at parameter i, one of `choices`, or none when absent. The view is of a literal,
// so it outlives the call.
AtOptional<c10::string_view> Choice(const Call& c, std::size_t i, const char* what,
                                    std::initializer_list<const char*> choices) {
  if (!c.has(i)) return {};
  const std::string given = c.symbol(i, "");
  for (const char* choice : choices) {
    if (given == choice) return c10::string_view(choice);
  }
  const std::vector<const char*> all(choices);
  Fail("%s: %s expected `%s or `%s, given `%s", c.fn(), what,
       absl::StrJoin(all.begin(), all.end() - 1, ", `"), all.back(), given);
}

AtOptional<c10::string_view> SvdDriver(const Call& c, std::size_t i) {
  return Choice(c, i, "driver", {"gesvd", "gesvdj", "gesvda"});
}

// eigh's and eigvalsh's triangle: "U" when upper, else libtorch's default "L".
c10::string_view Triangle(const Call& c) { return c.flag(1, false) ? "U" : "L"; }

// f x: one tensor, one result.
#define KSCOPE_MATRIX(name, op)                                            \
  Function {                                                               \
    name, "t", [](const Call& c) -> Output { return at::op(c.tensor(0)); } \
  }

// f(x;y): at::op.
#define KSCOPE_PRODUCT(name, op)                                                                   \
  Function {                                                                                       \
    name, "tt", [](const Call& c) -> Output { return at::op(c.tensor(0), c.tensor(1)); }, nullptr, \
        true, Returns::kLikeInputs, nullptr,                                                       \
        [](const at::Tensor& x, const at::Tensor& y) { return at::op(x, y); }                      \
  }
// f(x;y;z;beta;alpha): at::op and the in-place method op_.
#define KSCOPE_ADD_PRODUCT(name, op)                                                             \
  Function {                                                                                     \
    name, "ttt|ss",                                                                              \
        [](const Call& c) -> Output {                                                            \
          return at::op(c.tensor(0), c.tensor(1), c.tensor(2), c.optional_scalar(3).value_or(1), \
                        c.optional_scalar(4).value_or(1));                                       \
        },                                                                                       \
        [](const Call& c) {                                                                      \
          c.tensor(0).op##_(c.tensor(1), c.tensor(2), c.optional_scalar(3).value_or(1),          \
                            c.optional_scalar(4).value_or(1));                                   \
        }                                                                                        \
  }

const Function kLinearAlgebra[] = {
    KSCOPE_MATRIX("det", linalg_det),
    KSCOPE_MATRIX("logdet", logdet),
    Function{"slogdet", "t",
             [](const Call& c) { return Several(at::linalg_slogdet(c.tensor(0))); }},
    Function{"mrank", "t|ffb",
             [](const Call& c) -> Output {
               return at::linalg_matrix_rank(c.tensor(0), c.optional_real(1), c.optional_real(2),
                                             c.flag(3, false));
             }},
    Function{
        "chol", "t|b",
        [](const Call& c) -> Output { return at::linalg_cholesky(c.tensor(0), c.flag(1, false)); }},
    Function{"cholx", "t|bb",
             [](const Call& c) {
               return Several(
                   at::linalg_cholesky_ex(c.tensor(0), c.flag(1, false), c.flag(2, false)));
             }},
    Function{"eig", "t", [](const Call& c) { return Several(at::linalg_eig(c.tensor(0))); }},
    KSCOPE_MATRIX("eigvals", linalg_eigvals),
    Function{"eigh", "t|b",
             [](const Call& c) { return Several(at::linalg_eigh(c.tensor(0), Triangle(c))); }},
    Function{"eigvalsh", "t|b",
             [](const Call& c) -> Output { return at::linalg_eigvalsh(c.tensor(0), Triangle(c)); }},
    Function{"qr", "t|y",
             [](const Call& c) {
               const auto mode = Choice(c, 1, "mode", {"reduced", "complete", "r"});
               return Several(at::linalg_qr(c.tensor(0), mode.value_or("reduced")));
             }},
    Function{
        "lu", "t|b",
        [](const Call& c) { return Several(at::linalg_lu_factor(c.tensor(0), c.flag(1, true))); }},
    Function{"lux", "t|bb",
             [](const Call& c) {
               return Several(
                   at::linalg_lu_factor_ex(c.tensor(0), c.flag(1, true), c.flag(2, false)));
             }},
    Function{"lun", "tt|bb",
             [](const Call& c) {
               return Several(
                   at::lu_unpack(c.tensor(0), c.tensor(1), c.flag(2, true), c.flag(3, true)));
             }},
    Function{"svd", "t|by",
             [](const Call& c) {
               return Several(at::linalg_svd(c.tensor(0), c.flag(1, true), SvdDriver(c, 2)));
             }},
    Function{
        "svdvals", "t|y",
        [](const Call& c) -> Output { return at::linalg_svdvals(c.tensor(0), SvdDriver(c, 1)); }},
    Function{"solve", "tt|b",
             [](const Call& c) -> Output {
               return at::linalg_solve(c.tensor(0), c.tensor(1), c.flag(2, true));
             }},
    Function{"trisolve", "ttb|bb",
             [](const Call& c) -> Output {
               return at::linalg_solve_triangular(c.tensor(0), c.tensor(1), c.flag(2, false),
                                                  c.flag(3, true), c.flag(4, false));
             }},
    Function{"cholsolve", "tt|b",
             [](const Call& c) -> Output {
               return at::cholesky_solve(c.tensor(0), c.tensor(1), c.flag(2, false));
             }},
    Function{"lstsq", "tt|fy",
             [](const Call& c) {
               const auto method = Choice(c, 3, "method", {"gels", "gelsy", "gelsd", "gelss"});
               return Several(
                   at::linalg_lstsq(c.tensor(0), c.tensor(1), c.optional_real(2), method));
             }},
    Function{"lusolve", "ttt",
             [](const Call& c) -> Output {
               return at::linalg_lu_solve(c.tensor(1), c.tensor(2), c.tensor(0));
             }},
    KSCOPE_MATRIX("inverse", linalg_inv),
    Function{"pinverse", "t|ffb",
             [](const Call& c) -> Output {
               return at::linalg_pinv(c.tensor(0), c.optional_real(1), c.optional_real(2),
                                      c.flag(3, false));
             }},
    Function{"cholinverse", "t|b",
             [](const Call& c) -> Output {
               return at::cholesky_inverse(c.tensor(0), c.flag(1, false));
             }},
    Function{
        "power", "tl",
        [](const Call& c) -> Output { return at::linalg_matrix_power(c.tensor(0), c.integer(1)); }},
    // Products.
    KSCOPE_PRODUCT("bmm", bmm),
    Function{"Cross", "tt|l",
             [](const Call& c) -> Output {
               return at::linalg_cross(c.tensor(0), c.tensor(1), c.integer(2, -1));
             }},
    KSCOPE_PRODUCT("dot", dot),
    KSCOPE_PRODUCT("householder", linalg_householder_product),
    KSCOPE_PRODUCT("matmul", matmul),
    KSCOPE_PRODUCT("mm", mm),
    Function{"mmt", "tt",
             [](const Call& c) -> Output { return at::mm(c.tensor(0), c.tensor(1).t()); }},
    Function{"mtm", "tt",
             [](const Call& c) -> Output { return at::mm(c.tensor(0).t(), c.tensor(1)); }},
    Function{"multidot", "T",
             [](const Call& c) -> Output { return at::linalg_multi_dot(c.tensors(0)); }},
    KSCOPE_PRODUCT("mv", mv),
    KSCOPE_PRODUCT("outer", outer),
    KSCOPE_ADD_PRODUCT("addbmm", addbmm),
    KSCOPE_ADD_PRODUCT("addmm", addmm),
    KSCOPE_ADD_PRODUCT("addmv", addmv),
    KSCOPE_ADD_PRODUCT("addr", addr),
    KSCOPE_ADD_PRODUCT("baddbmm", baddbmm),
};

#undef KSCOPE_MATRIX
#undef KSCOPE_PRODUCT
#undef KSCOPE_ADD_PRODUCT

}  // namespace

absl::Span<const Function> LinearAlgebraFunctions() { return kLinearAlgebra; }

}  // namespace kscope::math
