// api/math/math_catalogue.h's other group (D9): every function checked against the same libtorch
// call made directly, as data, as handles, into an output handle and in place where the
// function has those forms; errors that name the function and change nothing.
#include <functional>

#include <ATen/ops/allclose.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/bincount.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/eye.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/tensordot.h>
#include <ATen/ops/zeros.h>

#include "api/math/math_catalogue.h"
#include "api/tensor/tensor.h"
#include "api/tensor/tensor_creation.h"
#include "runtime/handle_table.h"
#include "tests/error_text.h"
#include "tests/math_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace math_other_test {

using testing::EmptyOf;
using testing::ErrorOf;
using testing::ExpectSameTensor;
using ::testing::HasSubstr;
using testing::LeakCheckTest;

using MathOtherTest = LeakCheckTest;
using Args = std::vector<math::Arg>;

// `name` on `inputs` then `rest`: as data, as handles, into an output handle and in place
// where the function has those forms, each compared with want.
void ExpectEveryForm(const std::string& name, const std::vector<at::Tensor>& inputs,
                     const Args& rest, const at::Tensor& want) {
  Args data;
  for (const at::Tensor& t : inputs) data.emplace_back(Operand(t.clone()));
  data.insert(data.end(), rest.begin(), rest.end());
  const Result by_data = math::Run(name, data);
  ASSERT_FALSE(by_data.is_handle()) << name;
  ExpectSameTensor(by_data.tensor(), want, name + " data");

  Scope scope = Scope::Open();
  Args handles;
  for (const at::Tensor& t : inputs) handles.emplace_back(Operand(tensor(t.clone())));
  handles.insert(handles.end(), rest.begin(), rest.end());
  const Result by_handle = math::Run(name, handles);
  ASSERT_TRUE(by_handle.is_handle()) << name;
  ExpectSameTensor(tensor(by_handle.handle()), want, name + " handle");

  const math::Function& f = *math::Find(name);
  if (f.writes_output) {
    const Handle out = EmptyOf(want.scalar_type());
    EXPECT_TRUE(math::Run(name, handles, out).is_none()) << name;
    ExpectSameTensor(tensor(out), want, name + " out");
  }
  if (f.in_place != nullptr && want.scalar_type() == inputs[0].scalar_type()) {
    const Handle first = std::get<Operand>(handles[0]).handle();
    EXPECT_TRUE(math::Run(name, handles, Handle(), /*in_place=*/true).is_none()) << name;
    ExpectSameTensor(tensor(first), want, name + " in place");
  }
}

using Reference = std::function<at::Tensor()>;
struct Case {
  const char* name;
  std::vector<at::Tensor> inputs;
  Args rest;
  Reference reference;
};

TEST_F(MathOtherTest, EveryFunctionMatchesLibtorch) {
  const at::Tensor m = at::randn({4, 5}, at::kDouble);
  const at::Tensor cube = at::randn({3, 4, 5});
  const at::Tensor v = at::tensor({1.0, 2.0, 3.0});
  const at::Tensor counts = at::tensor({0, 1, 1, 3}, at::kLong);
  const at::Tensor weights = at::tensor({0.5, 1.0, 2.0, 4.0});
  const at::Tensor y = at::randn({5, 3}, at::kDouble);
  const std::int64_t zero = 0, one = 1, two = 2;
  using Longs = std::vector<std::int64_t>;
  const std::vector<Case> cases = {
      {"bincount", {counts}, {}, [&] { return at::bincount(counts); }},
      {"bincount",
       {counts, weights},
       {std::int64_t{6}},
       [&] { return at::bincount(counts, weights, 6); }},
      {"bincount",
       {counts},
       {std::monostate(), std::int64_t{6}},
       [&] { return at::bincount(counts, {}, 6); }},
      {"cumprod", {m}, {one}, [&] { return m.cumprod(1); }},
      {"cumprod", {m}, {zero, std::string("float")}, [&] { return m.cumprod(0, at::kFloat); }},
      {"cumsum", {m}, {one}, [&] { return m.cumsum(1); }},
      {"cumsum", {m}, {}, [&] { return m.cumsum(-1); }},  // ktorch: the last dimension by default
      {"cumprod", {m}, {}, [&] { return m.cumprod(-1); }},
      {"cumsum",
       {counts},
       {zero, std::string("double")},
       [&] { return counts.cumsum(0, at::kDouble); }},
      {"diag", {v}, {}, [&] { return v.diag(); }},
      {"diag", {m}, {one}, [&] { return m.diag(1); }},
      {"diagflat", {m}, {}, [&] { return m.diagflat(); }},
      {"diagflat", {v}, {std::int64_t{-1}}, [&] { return v.diagflat(-1); }},
      {"diagonal", {cube}, {}, [&] { return cube.diagonal(); }},
      {"diagonal", {cube}, {one, one, two}, [&] { return cube.diagonal(1, 1, 2); }},
      {"Flip",
       {cube},
       {Longs{0, 2}},
       [&] {
         return cube.flip({0, 2});
       }},
      {"Flip", {v}, {zero}, [&] { return v.flip(0); }},
      {"histc", {m}, {}, [&] { return m.histc(); }},
      {"histc",
       {m},
       {std::int64_t{4}, c10::Scalar(-1.0), c10::Scalar(1.0)},
       [&] { return m.histc(4, -1, 1); }},
      {"renorm",
       {m},
       {c10::Scalar(2), zero, c10::Scalar(1.5)},
       [&] { return m.renorm(2, 0, 1.5); }},
      {"roll", {m}, {one}, [&] { return m.roll(1); }},
      {"roll",
       {m},
       {Longs{1, -2}, Longs{0, 1}},
       [&] {
         return m.roll({1, -2}, {0, 1});
       }},
      {"tensordot", {m, y}, {one}, [&] { return at::tensordot(m, y, {1}, {0}); }},
      {"tensordot",
       {m, m.t()},
       {Longs{0, 1}, Longs{1, 0}},
       [&] {
         return at::tensordot(m, m.t(), {0, 1}, {1, 0});
       }},
      {"tensordot",
       {m, m},
       {},
       [&] {
         return at::tensordot(m, m, {0, 1}, {0, 1});
       }},
      {"trace", {m}, {}, [&] { return m.trace(); }},
      {"tril", {m}, {}, [&] { return m.tril(); }},
      {"tril", {m}, {std::int64_t{-1}}, [&] { return m.tril(-1); }},
      {"triu", {m}, {}, [&] { return m.triu(); }},
      {"triu", {m}, {two}, [&] { return m.triu(2); }},
  };
  for (const Case& c : cases) ExpectEveryForm(c.name, c.inputs, c.rest, c.reference());
}

TEST_F(MathOtherTest, DiagonalOfAHandleIsAView) {
  Scope scope = Scope::Open();
  const Handle x = tensor(at::zeros({3, 3}));
  const Handle d = math::Run("diagonal", {Operand(x)});
  TensorOf("diagonal", d).fill_(1);  // the handle's own tensor, not a copy
  EXPECT_TRUE(at::equal(tensor(x), at::eye(3)));
}

TEST_F(MathOtherTest, BadArgumentsNameTheFunctionAndChangeNothing) {
  Scope scope = Scope::Open();
  const at::Tensor values = at::arange(6, at::kFloat).reshape({2, 3});
  const Handle x = tensor(values.clone());
  const std::size_t live = HandleTable::Global().size();
  EXPECT_THAT(ErrorOf([&] { math::Run("Flip", {Operand(x)}); }),
              HasSubstr("Flip: arg[1] (long(s)) is required"));
  EXPECT_THAT(
      ErrorOf([&] {
        math::Run("tensordot", {Operand(x), Operand(x), std::int64_t{3}});
      }),
      HasSubstr("tensordot: expected a count of dims (at most 2), or dims of x and dims of y"));
  EXPECT_THAT(ErrorOf([&] {
                math::Run("tensordot", {Operand(x), Operand(x), std::vector<std::int64_t>{0, 1}});
              }),
              HasSubstr("tensordot: expected a count of dims"));
  EXPECT_THAT(ErrorOf([&] {
                math::Run("cumsum", {Operand(x), std::int64_t{0}, std::string("huge")});
              }),
              HasSubstr("cumsum: unrecognized dtype `huge"));
  EXPECT_THAT(ErrorOf([&] {
                math::Run("cumsum", {Operand(x), 1.5});
              }),
              HasSubstr("cumsum: arg[1]"));
  EXPECT_THAT(ErrorOf([&] { math::Run("diag", {Operand(x)}, Handle(), true); }),
              HasSubstr("diag: has no in-place form"));
  EXPECT_THAT(ErrorOf([&] {
                math::Run("roll", {Operand(x), std::int64_t{1}}, x);
              }),
              HasSubstr("roll: has no output form"));
  EXPECT_THAT(ErrorOf([&] { math::Run("tril", {Operand(values)}, Handle(), true); }),
              HasSubstr("tril: in-place form needs a tensor pointer as first argument"));
  EXPECT_THAT(ErrorOf([&] {
                math::Run("renorm", {Operand(x), std::string("p")});
              }),
              HasSubstr("renorm: arg[1] expected scalar"));
  EXPECT_EQ(HandleTable::Global().size(), live);
  EXPECT_TRUE(at::equal(tensor(x), values));
}

}  // namespace math_other_test
}  // namespace kscope
