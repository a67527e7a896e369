// api/math/math_reduction.cc: the catalogue's D5 reductions, each form (no dim, dims, keepdim,
// dtype, unbiased, several results) checked against the same libtorch call made directly,
// with data, with handles and into an output handle; bad arguments name the function and
// change nothing.
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <ATen/ops/_unique2.h>
#include <ATen/ops/all.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/amax.h>
#include <ATen/ops/amin.h>
#include <ATen/ops/aminmax.h>
#include <ATen/ops/any.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/argmax.h>
#include <ATen/ops/argmin.h>
#include <ATen/ops/dist.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/linalg_matrix_norm.h>
#include <ATen/ops/linalg_vector_norm.h>
#include <ATen/ops/logsumexp.h>
#include <ATen/ops/max.h>
#include <ATen/ops/mean.h>
#include <ATen/ops/median.h>
#include <ATen/ops/min.h>
#include <ATen/ops/mode.h>
#include <ATen/ops/nanmean.h>
#include <ATen/ops/nanmedian.h>
#include <ATen/ops/nansum.h>
#include <ATen/ops/norm.h>
#include <ATen/ops/nuclear_norm.h>
#include <ATen/ops/prod.h>
#include <ATen/ops/std.h>
#include <ATen/ops/std_mean.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/unique_consecutive.h>
#include <ATen/ops/unique_dim.h>
#include <ATen/ops/var.h>
#include <ATen/ops/var_mean.h>

#include "api/core/pointer.h"
#include "api/math/math_catalogue.h"
#include "api/tensor/container.h"
#include "api/tensor/tensor.h"
#include "runtime/handle_table.h"
#include "tests/error_text.h"
#include "tests/math_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace math_reduction_test {

using testing::ErrorOf;
using testing::ExpectSameTensors;
using ::testing::HasSubstr;
using testing::LeakCheckTest;
using testing::TensorsOf;

using MathReductionTest = LeakCheckTest;
using Tensors = std::vector<at::Tensor>;

// One form of a function: its tensor inputs, the arguments after them and libtorch's results.
struct Case {
  const char* name;
  Tensors inputs;
  std::vector<math::Arg> args;
  Tensors want;
};

Tensors Both(std::tuple<at::Tensor, at::Tensor> t) { return {std::get<0>(t), std::get<1>(t)}; }
Tensors Three(std::tuple<at::Tensor, at::Tensor, at::Tensor> t) {
  return {std::get<0>(t), std::get<1>(t), std::get<2>(t)};
}

// Runs a case with data, with handles and, where the function has one, into an output handle.
void ExpectEveryForm(const Case& c) {
  const std::string what = std::string(c.name) + " (" + std::to_string(c.args.size()) + " args)";
  std::vector<math::Arg> data, handles;
  Scope scope = Scope::Open();
  for (const at::Tensor& t : c.inputs) {
    data.emplace_back(Operand(t.clone()));
    handles.emplace_back(Operand(tensor(t.clone())));
  }
  data.insert(data.end(), c.args.begin(), c.args.end());
  handles.insert(handles.end(), c.args.begin(), c.args.end());

  const Result by_data = math::Run(c.name, data);
  ASSERT_FALSE(by_data.is_handle()) << what;
  ExpectSameTensors(TensorsOf(by_data), c.want, what + " data");

  const Result by_handle = math::Run(c.name, handles);
  ASSERT_TRUE(by_handle.is_handle()) << what;
  EXPECT_EQ(class_(by_handle.handle()),
            c.want.size() == 1 ? ObjectClass::kTensor : ObjectClass::kVector)
      << what;
  ExpectSameTensors(TensorsOf(by_handle), c.want, what + " handle");

  if (!math::Find(c.name)->writes_output) return;
  Options dtype;
  if (c.want.size() == 1) dtype.dtype = c.want[0].scalar_type();
  const Handle out = c.want.size() == 1 ? empty({0}, dtype) : vector(std::vector<Operand>{});
  EXPECT_TRUE(math::Run(c.name, handles, out).is_none()) << what;
  ExpectSameTensors(TensorsOf(Result(out)), c.want, what + " out");
}

constexpr std::int64_t kDim0 = 0, kDim1 = 1;
const std::monostate kDefault;

TEST_F(MathReductionTest, EveryFunctionAndFormMatchesLibtorch) {
  const at::Tensor x = at::tensor({3.0, -1.0, 2.5, 0.5, 4.0, -2.0}, at::kDouble).reshape({2, 3});
  const at::Tensor y = at::tensor({1.0, 1.0, 1.0, 2.0, 2.0, 2.0}, at::kDouble).reshape({2, 3});
  const at::Tensor b = at::tensor({1, 0, 1, 1, 1, 1}).reshape({2, 3}).to(at::kBool);
  const at::Tensor n = at::tensor({1.0, NAN, 3.0, NAN, 2.0, 6.0}, at::kDouble).reshape({2, 3});
  const at::Tensor l = at::tensor({1, 2, 2, 3, 3, 3}, at::kLong).reshape({2, 3});
  const at::Tensor u = at::tensor({3, 1, 1, 2, 3, 3}, at::kLong);
  const at::Tensor rows = at::tensor({1, 2, 1, 2, 0, 5}, at::kLong).reshape({3, 2});
  const at::Tensor batch = at::arange(12, at::kDouble).reshape({3, 2, 2}).sin();
  const std::vector<std::int64_t> both{0, 1};
  const std::vector<Case> cases = {
      {"Any", {b}, {}, {at::any(b)}},
      {"Any", {b}, {kDim1}, {at::any(b, 1)}},
      {"All", {b}, {}, {at::all(b)}},
      {"All", {b}, {kDim0, true}, {at::all(b, 0, true)}},
      {"amax", {x}, {}, {at::amax(x)}},
      {"amax", {x}, {both, true}, {at::amax(x, both, true)}},
      {"amin", {x}, {kDim1}, {at::amin(x, 1)}},
      {"aminmax", {x}, {}, Both(at::aminmax(x))},
      {"aminmax", {x}, {kDim1, true}, Both(at::aminmax(x, 1, true))},
      {"argmax", {x}, {}, {at::argmax(x)}},
      {"argmax", {x}, {kDim1, true}, {at::argmax(x, 1, true)}},
      {"argmin", {x}, {kDim0}, {at::argmin(x, 0)}},
      {"Max", {x}, {}, {at::max(x)}},
      {"Max", {x}, {kDim1}, Both(at::max(x, 1))},
      {"Min", {l}, {}, {at::min(l)}},
      {"Min", {x}, {kDim0, true}, Both(at::min(x, 0, true))},
      {"mean", {x}, {}, {at::mean(x)}},
      {"mean", {x}, {kDim1, true}, {at::mean(x, {1}, true)}},
      {"mean", {x}, {both}, {at::mean(x, both)}},
      {"mean", {l}, {kDefault, false, std::string("double")}, {at::mean(l, at::kDouble)}},
      {"nanmean", {n}, {}, {at::nanmean(n)}},
      {"nanmean", {n}, {kDim1}, {at::nanmean(n, {1})}},
      {"median", {x}, {}, {at::median(x)}},
      {"median", {x}, {kDim1}, Both(at::median(x, 1))},
      {"nanmedian", {n}, {}, {at::nanmedian(n)}},
      {"nanmedian", {n}, {kDim1, true}, Both(at::nanmedian(n, 1, true))},
      {"mode", {l}, {}, Both(at::mode(l))},
      {"mode", {l}, {kDim0}, Both(at::mode(l, 0))},
      {"std", {x}, {}, {at::std(x)}},
      {"std", {x}, {kDefault, false}, {at::std(x, false)}},
      {"std", {x}, {kDim1, false, true}, {at::std(x, {1}, false, true)}},
      {"std", {x}, {kDefault, true, true}, {at::std(x, at::OptionalIntArrayRef(), true, true)}},
      {"variance", {x}, {}, {at::var(x)}},
      {"variance", {x}, {both, true}, {at::var(x, both, true)}},
      {"meanstd", {x}, {}, {at::mean(x), at::std(x)}},
      {"meanstd", {x}, {kDim1, false}, {at::mean(x, {1}), at::std(x, {1}, false)}},
      {"meanvar", {x}, {kDim0, true, true}, {at::mean(x, {0}, true), at::var(x, {0}, true, true)}},
      {"prod", {x}, {}, {at::prod(x)}},
      {"prod", {l}, {kDim1, true, std::string("double")}, {at::prod(l, 1, true, at::kDouble)}},
      {"Sum", {l}, {}, {at::sum(l)}},
      {"Sum", {x}, {kDim0}, {at::sum(x, {0})}},
      {"Sum", {x}, {kDefault, true}, {at::sum(x, at::OptionalIntArrayRef(), true)}},
      {"Sum", {x}, {both, true, std::string("float")}, {at::sum(x, both, true, at::kFloat)}},
      {"nansum", {n}, {}, {at::nansum(n)}},
      {"nansum", {n}, {kDim1, true}, {at::nansum(n, {1}, true)}},
      {"unique", {u}, {}, {std::get<0>(at::_unique2(u))}},
      {"unique", {u}, {kDefault, true, true, true}, Three(at::_unique2(u, true, true, true))},
      {"unique",
       {u},
       {kDefault, true, false, true},
       {std::get<0>(at::_unique2(u)), std::get<2>(at::_unique2(u, true, false, true))}},
      {"unique", {rows}, {kDim0}, {std::get<0>(at::unique_dim(rows, 0))}},
      {"uniquec", {u}, {}, {std::get<0>(at::unique_consecutive(u))}},
      {"uniquec", {u}, {kDefault, true, true}, Three(at::unique_consecutive(u, true, true))},
      {"uniquec",
       {rows},
       {kDim1, false, true},
       {std::get<0>(at::unique_consecutive(rows, false, true, 1)),
        std::get<2>(at::unique_consecutive(rows, false, true, 1))}},
      {"dist", {x, y}, {}, {at::dist(x, y)}},
      {"dist", {x, y}, {1.0}, {at::dist(x, y, 1)}},
      {"logsumexp", {x}, {kDim1}, {at::logsumexp(x, {1})}},
      {"logsumexp", {x}, {both, true}, {at::logsumexp(x, both, true)}},
      {"fnorm", {x}, {}, {at::linalg_matrix_norm(x, c10::string_view("fro"))}},
      {"fnorm", {x}, {kDim1, true}, {at::norm(x, 2, {1}, true)}},
      {"nnorm", {x}, {}, {at::nuclear_norm(x)}},
      {"nnorm",
       {batch},
       {std::vector<std::int64_t>{1, 2}, true},
       {at::nuclear_norm(batch, {1, 2}, true)}},
      {"mnorm", {x}, {}, {at::linalg_matrix_norm(x, c10::string_view("fro"))}},
      {"mnorm", {x}, {1.0}, {at::linalg_matrix_norm(x, 1)}},
      {"mnorm",
       {batch},
       {kDefault, std::string("nuc"), kDefault, true},
       {at::linalg_matrix_norm(batch, c10::string_view("nuc"), {-2, -1}, true)}},
      {"mnorm",
       {x.to(at::kFloat)},
       {kDefault, kDefault, both, false, std::string("double")},
       {at::linalg_matrix_norm(x.to(at::kFloat), c10::string_view("fro"), both, false,
                               at::kDouble)}},
      {"vnorm", {x}, {}, {at::linalg_vector_norm(x)}},
      {"vnorm",
       {x},
       {std::numeric_limits<double>::infinity(), kDim1, true},
       {at::linalg_vector_norm(x, INFINITY, {1}, true)}},
  };
  for (const Case& c : cases) ExpectEveryForm(c);

  std::set<std::string> covered;
  for (const Case& c : cases) covered.insert(c.name);
  EXPECT_EQ(covered.size(), 29u);  // ktorch's D5, each at least once
  EXPECT_EQ(math::ReductionFunctions().size(), 29u);
}

TEST_F(MathReductionTest, BadArgumentsNameTheFunctionAndChangeNothing) {
  Scope scope = Scope::Open();
  const Handle x = tensor(std::vector<float>{1, 2, 3, 4});
  const Handle t = tensor(std::vector<float>{0});
  const std::size_t live = HandleTable::Global().size();
  EXPECT_THAT(ErrorOf([&] {
                math::Run("std", {Operand(x), std::string("a")});
              }),
              HasSubstr("std: arg[1] expected long(s)"));
  EXPECT_THAT(ErrorOf([&] { math::Run("logsumexp", {Operand(x)}); }),
              HasSubstr("logsumexp: arg[1] (long(s)) is required"));
  EXPECT_THAT(ErrorOf([&] {
                math::Run("mean", {Operand(x), kDefault, false, std::string("huge")});
              }),
              HasSubstr("mean: unrecognized dtype `huge"));
  EXPECT_THAT(ErrorOf([&] {
                math::Run("mnorm", {Operand(x), kDefault, std::string("inf")});
              }),
              HasSubstr("mnorm: ord expected a number, `fro or `nuc, given `inf"));
  EXPECT_THAT(ErrorOf([&] {
                math::Run("mnorm", {Operand(x), 2.0, std::string("fro")});
              }),
              HasSubstr("mnorm: ord is a number or a symbol, given both"));
  EXPECT_THAT(ErrorOf([&] { math::Run("unique", {Operand(x)}, t); }),
              HasSubstr("unique: has no output form"));
  EXPECT_THAT(ErrorOf([&] { math::Run("Any", {Operand(x)}, Handle(), true); }),
              HasSubstr("Any: has no in-place form"));
  EXPECT_THAT(ErrorOf([&] {
                math::Run("Max", {Operand(x), kDim0}, t);
              }),
              HasSubstr("Max: output for several results must be a vector, given tensor"));
  EXPECT_EQ(HandleTable::Global().size(), live);
  EXPECT_TRUE(at::equal(tensor(x), at::tensor({1.0f, 2.0f, 3.0f, 4.0f})));
  EXPECT_TRUE(at::equal(tensor(t), at::tensor({0.0f})));
}

}  // namespace math_reduction_test
}  // namespace kscope
