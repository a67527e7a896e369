// The catalogue's comparison group D4 (api/math/math_comparison.cc): every function run on data,
// on handles, into an output handle and, where it has one, in place, each result compared
// with the same libtorch call made directly; and bad arguments that change nothing.
#include <functional>
#include <limits>

#include <ATen/ops/equal.h>
#include <ATen/ops/isin.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/tensor.h>

#include "api/core/pointer.h"
#include "api/math/math_catalogue.h"
#include "api/tensor/container.h"
#include "api/tensor/tensor.h"
#include "api/tensor/tensor_creation.h"
#include "runtime/handle_table.h"
#include "tests/error_text.h"
#include "tests/math_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace math_comparison_test {

using testing::ErrorOf;
using testing::ExpectSameTensors;
using ::testing::HasSubstr;
using testing::LeakCheckTest;
using testing::TensorsOf;

using MathComparisonTest = LeakCheckTest;

// One call: the tensor arguments (first), the other arguments, and libtorch's results.
struct Case {
  const char* name;
  std::vector<at::Tensor> tensors;
  std::vector<math::Arg> rest;
  std::function<std::vector<at::Tensor>()> want;
};

// Comparisons here are exact: NaN where the reference has NaN, the same values elsewhere.
void ExpectSame(const std::vector<at::Tensor>& got, const std::vector<at::Tensor>& want,
                const std::string& what) {
  ExpectSameTensors(got, want, what, /*rtol=*/0, /*atol=*/0);
}

std::vector<math::Arg> ArgsOf(const Case& c, bool handles) {
  std::vector<math::Arg> args;
  for (const at::Tensor& t : c.tensors) {
    args.emplace_back(handles ? Operand(tensor(t.clone())) : Operand(t.clone()));
  }
  args.insert(args.end(), c.rest.begin(), c.rest.end());
  return args;
}

// Data in, data out; handles in, a handle out (data for Returns::kData); into an output handle
// where the function writes one; in place where it has that form.
void ExpectEveryForm(const Case& c) {
  const math::Function& f = *math::Find(c.name);
  const std::vector<at::Tensor> want = c.want();
  const Result by_data = math::Run(c.name, ArgsOf(c, false));
  EXPECT_FALSE(by_data.is_handle()) << c.name;
  ExpectSame(TensorsOf(by_data), want, std::string(c.name) + " data");

  Scope scope = Scope::Open();
  const std::vector<math::Arg> handles = ArgsOf(c, true);
  const Result by_handle = math::Run(c.name, handles);
  EXPECT_EQ(by_handle.is_handle(), f.returns != math::Returns::kData) << c.name;
  ExpectSame(TensorsOf(by_handle), want, std::string(c.name) + " handle");

  if (f.writes_output) {
    Options dtype;
    dtype.dtype = want[0].scalar_type();
    const Handle out = want.size() == 1 ? empty({0}, dtype) : vector(std::vector<Operand>{});
    EXPECT_TRUE(math::Run(c.name, handles, out).is_none()) << c.name;
    ExpectSame(TensorsOf(Result(out)), want, std::string(c.name) + " out");
  }
  if (f.in_place != nullptr) {
    const Handle x = std::get<Operand>(handles[0]).handle();
    const at::ScalarType dtype = c.tensors[0].scalar_type();
    EXPECT_TRUE(math::Run(c.name, handles, Handle(), /*in_place=*/true).is_none()) << c.name;
    ExpectSame({tensor(x)}, {want[0].to(dtype)}, std::string(c.name) + " in place");
  }
}

std::vector<at::Tensor> One(at::Tensor t) { return {std::move(t)}; }
std::vector<at::Tensor> Two(std::tuple<at::Tensor, at::Tensor> r) {
  return {std::get<0>(r), std::get<1>(r)};
}

TEST_F(MathComparisonTest, EveryFunctionMatchesLibtorchInEveryForm) {
  const at::Tensor x = at::tensor({1.0, 2.5, -3.0, 2.5, 0.0});
  const at::Tensor y = at::tensor({1.0, 2.0, -3.0, 4.0, 1e-9});
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const at::Tensor odd = at::tensor({1.0, inf, -inf, nan, 0.0});
  const at::Tensor m = at::tensor({3.0, 1.0, 2.0, 1.0, 5.0, 4.0}).reshape({2, 3});
  const at::Tensor ints = at::tensor({4, 1, 3, 1}, at::kLong);
  const std::vector<Case> cases = {
      {"allclose",
       {x, x + 1e-7},
       {},
       [&] { return One(at::scalar_tensor(x.allclose(x + 1e-7), at::kBool)); }},
      {"allclose",
       {x, y},
       {0.1, 0.6},
       [&] { return One(at::scalar_tensor(x.allclose(y, 0.1, 0.6), at::kBool)); }},
      {"allclose",
       {odd, odd},
       {1e-5, 1e-8, true},
       [&] { return One(at::scalar_tensor(odd.allclose(odd, 1e-5, 1e-8, true), at::kBool)); }},
      {"close", {x, y}, {}, [&] { return One(x.isclose(y)); }},
      {"close",
       {odd, odd},
       {0.1, 0.1, true},
       [&] { return One(odd.isclose(odd, 0.1, 0.1, true)); }},
      {"equal", {x, x}, {}, [&] { return One(at::scalar_tensor(true, at::kBool)); }},
      {"equal", {x, y}, {}, [&] { return One(at::scalar_tensor(false, at::kBool)); }},
      {"eq", {x, y}, {}, [&] { return One(x.eq(y)); }},
      {"ge", {x, y}, {}, [&] { return One(x.ge(y)); }},
      {"gt", {x, y}, {}, [&] { return One(x.gt(y)); }},
      {"le", {x, y}, {}, [&] { return One(x.le(y)); }},
      {"lt", {x, y}, {}, [&] { return One(x.lt(y)); }},
      {"ne", {x, y}, {}, [&] { return One(x.ne(y)); }},
      {"eq", {ints}, {std::int64_t{1}}, [&] { return One(ints.eq(1)); }},
      {"lt", {x}, {2.0}, [&] { return One(x.lt(2.0)); }},
      {"finite", {odd}, {}, [&] { return One(odd.isfinite()); }},
      {"inf", {odd}, {}, [&] { return One(odd.isinf()); }},
      {"nan", {odd}, {}, [&] { return One(odd.isnan()); }},
      {"neginf", {odd}, {}, [&] { return One(odd.isneginf()); }},
      {"posinf", {odd}, {}, [&] { return One(odd.isposinf()); }},
      {"fmax", {odd, x}, {}, [&] { return One(odd.fmax(x)); }},
      {"fmin", {odd, x}, {}, [&] { return One(odd.fmin(x)); }},
      {"maximum", {odd, x}, {}, [&] { return One(odd.maximum(x)); }},
      {"minimum", {x, y}, {}, [&] { return One(x.minimum(y)); }},
      {"sort", {x}, {}, [&] { return Two(x.sort()); }},
      {"sort", {m}, {std::int64_t{0}, true}, [&] { return Two(m.sort(0, true)); }},
      {"sort",
       {ints},
       {std::monostate(), std::monostate(), true},
       [&] { return Two(ints.sort(AtOptional<bool>(true), -1, false)); }},
      {"msort", {m}, {}, [&] { return One(m.msort()); }},
      {"argsort", {m}, {}, [&] { return One(m.argsort()); }},
      {"argsort", {m}, {std::int64_t{0}, true}, [&] { return One(m.argsort(0, true)); }},
      {"topk", {x}, {std::int64_t{2}}, [&] { return Two(x.topk(2)); }},
      {"topk",
       {m},
       {std::int64_t{1}, std::int64_t{0}, false},
       [&] { return Two(m.topk(1, 0, false)); }},
      {"kthvalue", {x}, {std::int64_t{2}}, [&] { return Two(x.kthvalue(2)); }},
      {"kthvalue",
       {m},
       {std::int64_t{1}, std::int64_t{1}, true},
       [&] { return Two(m.kthvalue(1, 1, true)); }},
      {"In",
       {ints, at::tensor({1, 3}, at::kLong)},
       {},
       [&] {
         return One(at::isin(ints, at::tensor({1, 3}, at::kLong)));
       }},
      {"In",
       {ints, at::tensor({1, 3}, at::kLong)},
       {false, true},
       [&] {
         return One(at::isin(ints, at::tensor({1, 3}, at::kLong), false, true));
       }},
  };
  for (const Case& c : cases) ExpectEveryForm(c);
}

TEST_F(MathComparisonTest, AllclosePlaceholdersTakeLibtorchDefaults) {
  // within atol 1e-7, not within the default 1e-8
  const at::Tensor x = at::tensor({0.0, 1.0});
  const at::Tensor y = at::tensor({5e-8, 1.0});
  const Result r = math::Run("allclose", {Operand(x), Operand(y), std::monostate(), 1e-7});
  EXPECT_TRUE(TensorsOf(r)[0].item<bool>());
  EXPECT_EQ(TensorsOf(r)[0].item<bool>(), x.allclose(y, 1e-5, 1e-7));
  EXPECT_FALSE(TensorsOf(math::Run("allclose", {Operand(x), Operand(y)}))[0].item<bool>());
}

TEST_F(MathComparisonTest, BadArgumentsNameTheFunctionAndChangeNothing) {
  Scope scope = Scope::Open();
  const Handle x = tensor(std::vector<float>{3, 1, 2});
  const Handle v = vector(std::vector<Operand>{Operand(at::ones({2}))});
  const std::size_t live = HandleTable::Global().size();
  EXPECT_THAT(ErrorOf([&] { math::Run("equal", {Operand(x)}); }),
              HasSubstr("equal: arg[1] (tensor) is required"));
  EXPECT_THAT(ErrorOf([&] {
                math::Run("topk", {Operand(x), 1.5});
              }),
              HasSubstr("topk: arg[1] expected long"));
  EXPECT_THAT(ErrorOf([&] {
                math::Run("sort", {Operand(x), std::int64_t{0}, std::int64_t{1}});
              }),
              HasSubstr("sort: arg[2] expected boolean"));
  EXPECT_THAT(ErrorOf([&] { math::Run("argsort", {Operand(x)}, v); }),
              HasSubstr("argsort: has no output form"));
  EXPECT_THAT(ErrorOf([&] {
                math::Run("allclose", {Operand(x), Operand(x)}, x);
              }),
              HasSubstr("allclose: has no output form"));
  EXPECT_THAT(ErrorOf([&] {
                math::Run("maximum", {Operand(x), Operand(x)}, Handle(), true);
              }),
              HasSubstr("maximum: has no in-place form"));
  EXPECT_THAT(ErrorOf([&] { math::Run("sort", {Operand(x)}, x); }),
              HasSubstr("sort: output for several results must be a vector, given tensor"));
  EXPECT_THAT(ErrorOf([&] {
                math::Run("eq", {Operand(v), Operand(x)});
              }),
              HasSubstr("eq: expected tensor, given vector"));
  EXPECT_THAT(ErrorOf([&] {
                math::Run("kthvalue", {Operand(x), std::int64_t{9}});
              }),
              HasSubstr("kthvalue"));
  EXPECT_EQ(HandleTable::Global().size(), live);
  EXPECT_TRUE(at::equal(tensor(x), at::tensor({3.0f, 1.0f, 2.0f})));
  EXPECT_TRUE(at::equal(vector(v, 0), at::ones({2})));
}

}  // namespace math_comparison_test
}  // namespace kscope
