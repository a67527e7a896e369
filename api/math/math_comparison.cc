// The catalogue's comparison functions (ktorch-api.md §1.5 D4): allclose close equal, the
// element-wise comparisons eq ge gt le lt ne (with libtorch's in-place forms, which write 0/1
// in x's dtype), the tests finite inf nan neginf posinf, fmax fmin maximum minimum, and the
// sorting functions sort msort argsort topk kthvalue and In (isin). allclose and equal give a
// k boolean whatever the inputs; sort topk and kthvalue give (values;indices).
#include <tuple>
#include <vector>

#include <ATen/ops/isin.h>
#include <ATen/ops/scalar_tensor.h>

#include "api/math/math_catalogue.h"

namespace kscope::math {
namespace {

// f(x;y): y a tensor or a number; in place x.op_(y).
#define KSCOPE_COMPARE(name, op)                                                     \
  Function {                                                                         \
    name, "tn", [](const Call& c) -> Output { return c.tensor(0).op(c.tensor(1)); }, \
        [](const Call& c) { c.tensor(0).op##_(c.tensor(1)); }                        \
  }
// f(x;y) with no in-place form.
#define KSCOPE_BINARY(name, op)                                                     \
  Function {                                                                        \
    name, "tn", [](const Call& c) -> Output { return c.tensor(0).op(c.tensor(1)); } \
  }
// f x: a boolean test of each element.
#define KSCOPE_TEST(name, op)                                           \
  Function {                                                            \
    name, "t", [](const Call& c) -> Output { return c.tensor(0).op(); } \
  }

// libtorch's defaults for allclose/isclose: rtol, atol, equal_nan.
constexpr double kRtol = 1e-5;
constexpr double kAtol = 1e-8;

at::Tensor Bool(bool b) { return at::scalar_tensor(b, at::kBool); }

// (values;indices) of a libtorch pair.
Output Pair(std::tuple<at::Tensor, at::Tensor> r) {
  return std::vector<at::Tensor>{std::move(std::get<0>(r)), std::move(std::get<1>(r))};
}

// sort(x[;dim;descend;stable]).
Output Sort(const Call& c) {
  return Pair(
      c.tensor(0).sort(AtOptional<bool>(c.flag(3, false)), c.integer(1, -1), c.flag(2, false)));
}

const Function kComparison[] = {
    Function{"allclose", "tt|ffb",
             [](const Call& c) -> Output {
               return Bool(c.tensor(0).allclose(c.tensor(1), c.real(2, kRtol), c.real(3, kAtol),
                                                c.flag(4, false)));
             },
             nullptr, /*writes_output=*/false, Returns::kData},
    Function{"close", "tt|ffb",
             [](const Call& c) -> Output {
               return c.tensor(0).isclose(c.tensor(1), c.real(2, kRtol), c.real(3, kAtol),
                                          c.flag(4, false));
             }},
    Function{"equal", "tt",
             [](const Call& c) -> Output { return Bool(c.tensor(0).equal(c.tensor(1))); }, nullptr,
             /*writes_output=*/false, Returns::kData},
    KSCOPE_COMPARE("eq", eq),
    KSCOPE_COMPARE("ge", ge),
    KSCOPE_COMPARE("gt", gt),
    KSCOPE_COMPARE("le", le),
    KSCOPE_COMPARE("lt", lt),
    KSCOPE_COMPARE("ne", ne),
    KSCOPE_TEST("finite", isfinite),
    KSCOPE_TEST("inf", isinf),
    KSCOPE_TEST("nan", isnan),
    KSCOPE_TEST("neginf", isneginf),
    KSCOPE_TEST("posinf", isposinf),
    KSCOPE_BINARY("fmax", fmax),
    KSCOPE_BINARY("fmin", fmin),
    KSCOPE_BINARY("maximum", maximum),
    KSCOPE_BINARY("minimum", minimum),
    Function{"sort", "t|lbb", Sort},
    Function{"msort", "t", [](const Call& c) -> Output { return c.tensor(0).msort(); }},
    Function{"argsort", "t|lb",
             [](const Call& c) -> Output {
               return c.tensor(0).argsort(c.integer(1, -1), c.flag(2, false));
             },
             nullptr, /*writes_output=*/false},
    Function{"topk", "tl|lbb",
             [](const Call& c) -> Output {
               return Pair(c.tensor(0).topk(c.integer(1), c.integer(2, -1), c.flag(3, true),
                                            c.flag(4, true)));
             }},
    Function{"kthvalue", "tl|lb",
             [](const Call& c) -> Output {
               return Pair(c.tensor(0).kthvalue(c.integer(1), c.integer(2, -1), c.flag(3, false)));
             }},
    Function{"In", "nn|bb",
             [](const Call& c) -> Output {
               return at::isin(c.tensor(0), c.tensor(1), c.flag(2, false), c.flag(3, false));
             }},
};

#undef KSCOPE_COMPARE
#undef KSCOPE_BINARY
#undef KSCOPE_TEST

}  // namespace

absl::Span<const Function> ComparisonFunctions() { return kComparison; }

}  // namespace kscope::math
