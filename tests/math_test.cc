// api/math/math.h, api/tensor/shape.h, api/tensor/autograd.h: results checked against the same
// libtorch calls made directly; ktorch's conventions (data in -> data out, handle in -> handle out,
// out handle -> written there); the autograd sessions of seeds 001 and 004.
#include <ATen/ops/add.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/log_softmax.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/max.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/softmax.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/std.h>
#include <ATen/ops/var.h>

#include "tests/error_text.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace math_test {

using ::testing::ElementsAre;
using testing::ErrorOf;
using ::testing::HasSubstr;
using testing::LeakCheckTest;

using MathTest = LeakCheckTest;
using AutogradTest = LeakCheckTest;

// The same op through kscope with data, with handles, and directly.
void ExpectSame(const Result& data, const Result& handle, const at::Tensor& direct) {
  ASSERT_FALSE(data.is_handle());
  ASSERT_TRUE(handle.is_handle());
  EXPECT_TRUE(at::allclose(data.tensor(), direct));
  EXPECT_TRUE(at::allclose(tensor(handle.handle()), direct));
}

TEST_F(MathTest, DataInDataOutHandleInHandleOut) {
  auto scope = Scope::Open();
  Result r = kscope::add(at::tensor({1.0, 2.0}), at::tensor({3.0, 4.0}));
  EXPECT_FALSE(r.is_handle());
  EXPECT_EQ(live_handles(), 0u);  // data in: nothing registered
  EXPECT_THAT(ErrorOf([&] {
                Handle h = r;
                (void)h;
              }),
              HasSubstr("the result is data"));
  Handle a = tensor(std::vector<double>{1, 2});
  Result h = add(a, at::tensor({3.0, 4.0}));  // any handle in: a handle out
  EXPECT_TRUE(h.is_handle());
  EXPECT_EQ(obj().back().origin, "add");
  EXPECT_EQ(live_handles(), 2u);
}

TEST_F(MathTest, PointwiseAndMatrixOpsMatchLibtorch) {
  auto scope = Scope::Open();
  const at::Tensor x = at::rand({3, 4}, at::kDouble) + 0.5, y = at::rand({3, 4}, at::kDouble) + 0.5;
  const at::Tensor w = at::rand({4, 2}, at::kDouble);
  Handle hx = tensor(x), hy = tensor(y), hw = tensor(w);
  ExpectSame(kscope::add(x, y), add(hx, hy), x + y);
  ExpectSame(kscope::sub(x, y), sub(hx, hy), x - y);
  ExpectSame(kscope::mul(x, y), mul(hx, hy), x * y);
  ExpectSame(kscope::div(x, y), div(hx, hy), x / y);
  ExpectSame(kscope::pow(x, y), pow(hx, hy), x.pow(y));
  ExpectSame(kscope::matmul(x, w), matmul(hx, hw), at::matmul(x, w));
  ExpectSame(kscope::mm(x, w), mm(hx, hw), x.mm(w));
  ExpectSame(kscope::neg(x), neg(hx), -x);
  ExpectSame(kscope::abs(x - 1), abs(sub(hx, 1.0)), (x - 1).abs());
  ExpectSame(kscope::exp(x), exp(hx), x.exp());
  ExpectSame(kscope::log(x), log(hx), x.log());
  ExpectSame(kscope::sqrt(x), sqrt(hx), x.sqrt());
}

TEST_F(MathTest, ReductionsMatchLibtorch) {
  auto scope = Scope::Open();
  const at::Tensor x = at::randn({4, 5}, at::kDouble);
  Handle h = tensor(x);
  ExpectSame(kscope::mean(x), mean(h), x.mean());
  ExpectSame(kscope::mean(x, 1, true), mean(h, 1, true), x.mean(1, true));
  ExpectSame(kscope::sum(x, 0), sum(h, 0), x.sum(0));
  ExpectSame(kscope::std_(x), std_(h), at::std(x));
  ExpectSame(kscope::std_(x, 1, false), std_(h, 1, false), at::std(x, {1}, false));
  ExpectSame(kscope::var(x, 0), var(h, 0), at::var(x, at::IntArrayRef{0}));
  ExpectSame(kscope::max(x), max(h), x.max());
  ExpectSame(kscope::min(x), min(h), x.min());
  ExpectSame(kscope::argmax(x, 1), argmax(h, 1), x.argmax(1));
  ExpectSame(kscope::softmax(x, 1), softmax(h, 1), at::softmax(x, 1));
  ExpectSame(kscope::logsoftmax(x, 0), logsoftmax(h, 0), at::log_softmax(x, 0));
  Result mx = max(h, 1);  // along a dim: a vector (values; indices)
  auto [values, indices] = at::max(x, 1);
  EXPECT_EQ(class_(mx), ObjectClass::kVector);
  TensorVector got = vector(mx.handle());
  EXPECT_TRUE(got[0].equal(values));
  EXPECT_TRUE(got[1].equal(indices));
  TensorVector data = std::get<TensorVector>(kscope::min(x, 0).value());
  EXPECT_TRUE(data[1].equal(std::get<1>(at::min(x, 0))));
}

TEST_F(MathTest, OutputHandleIsWrittenAndNothingReturned) {
  auto scope = Scope::Open();
  Handle out = zeros({1});
  Handle other = addref(out);
  Result r = kscope::mul(at::tensor({1.f, 2.f, 3.f}), at::tensor({2.f, 2.f, 2.f}), out);
  EXPECT_TRUE(r.is_none());
  EXPECT_EQ(values<float>(other), (std::vector<float>{2, 4, 6}));  // written in place, resized
  EXPECT_EQ(live_handles(), 2u);
  Handle v = vector({Operand(at::zeros({1}))});
  EXPECT_EQ(ErrorOf([&] { kscope::add(at::ones({1}), at::ones({1}), v); }),
            "add: expected tensor, given vector");
}

TEST_F(MathTest, ShapesMatchLibtorch) {
  auto scope = Scope::Open();
  const at::Tensor x = at::rand({2, 3, 4});
  Handle h = tensor(x);
  ExpectSame(kscope::view(x, {6, 4}), view(h, {6, 4}), x.view({6, 4}));
  ExpectSame(kscope::reshape(x, {4, 6}), reshape(h, {4, 6}), x.reshape({4, 6}));
  ExpectSame(kscope::transpose(x, 0, 2), transpose(h, 0, 2), x.transpose(0, 2));
  ExpectSame(kscope::permute(x, {2, 0, 1}), permute(h, {2, 0, 1}), x.permute({2, 0, 1}));
  ExpectSame(kscope::unsqueeze(x, 1), unsqueeze(h, 1), x.unsqueeze(1));
  ExpectSame(kscope::squeeze(x.unsqueeze(0)), squeeze(unsqueeze(h, 0)), x);
  ExpectSame(kscope::squeeze(x.unsqueeze(0), 0), squeeze(unsqueeze(h, 0), 0), x);
  ExpectSame(kscope::narrow(x, 2, 1, 2), narrow(h, 2, 1, 2), x.narrow(2, 1, 2));
  ExpectSame(kscope::select(x, 1, 2), select(h, 1, 2), x.select(1, 2));
  const at::Tensor i = at::tensor({2, 0}, at::kLong);
  ExpectSame(kscope::index(x, 2, i), index(h, 2, i), at::index_select(x, 2, i));
  ExpectSame(kscope::cat({x, x}, 1), cat({h, x}, 1), at::cat({x, x}, 1));
  ExpectSame(kscope::stack({x, x}), stack({x, h}), at::stack({x, x}));
  Handle v = vector({Operand(x), Operand(x)});
  EXPECT_TRUE(tensor(cat({v}, 2)).equal(at::cat({x, x}, 2)));  // ktorch's `cat v`
  EXPECT_THAT(ErrorOf([&] { view(h, {5}); }), HasSubstr("invalid for input of size 24"));
}

TEST_F(AutogradTest, MeanOfSquaresSeed001) {
  // q)x:tensor(1 2 3.0; `grad)  y:mul(x;x)  z:mean(y)  backward z  grad x
  // 0.6666667 1.333333 2
  auto scope = Scope::Open();
  Handle x = tensor(std::vector<double>{1, 2, 3}, {}, Options::Parse("tensor", {"grad"}));
  Handle y = mul(x, x);
  Handle z = mean(y);
  backward(z);
  at::Tensor g = grad(x);
  EXPECT_TRUE(at::allclose(g, at::tensor({2.0 / 3, 4.0 / 3, 2.0}, at::kDouble)));
  kscope::free(std::vector<Handle>{x, y, z});
  EXPECT_EQ(live_handles(), 0u);
}

TEST_F(AutogradTest, BackwardModesSeed004) {
  // q)z:mean y:mul(x;x:tensor(1 2 3e;`grad))  backward(y;1e;`retain)  grad x -> 2 4 6e
  // zerograd x -> 0 0 0e   backward z -> 0.6666667 1.333333 2e
  auto scope = Scope::Open();
  Handle x = tensor(std::vector<float>{1, 2, 3}, {}, Options::Parse("tensor", {"grad"}));
  Handle y = mul(x, x);
  Handle z = mean(y);
  backward(y, at::ones({3}), BackwardMode::kRetain);
  EXPECT_TRUE(grad(x).equal(at::tensor({2.f, 4.f, 6.f})));
  zerograd(x);
  EXPECT_TRUE(grad(x).equal(at::zeros({3})));
  backward(z);
  EXPECT_TRUE(at::allclose(grad(x), at::tensor({2.f / 3, 4.f / 3, 2.f})));
  nograd(x);
  EXPECT_FALSE(grad(x).defined());  // ktorch's null
}

TEST_F(AutogradTest, SecondBackwardNeedsRetain) {
  // q)m:mean y:mul(x;x:tensor(1 2 3e;`grad)); z:std y  backward m  backward z -> 'Trying to
  // backward through the graph a second time ...
  auto scope = Scope::Open();
  Options grad_option = Options::Parse("tensor", {"grad"});
  Handle x = tensor(std::vector<float>{1, 2, 3}, {}, grad_option);
  Handle y = mul(x, x);
  Handle m = mean(y);
  Handle z = std_(y);
  backward(m);
  EXPECT_THAT(ErrorOf([&] { backward(z); }),
              HasSubstr("Trying to backward through the graph a second time"));
  // With `retain the second backward works: -0.9072646 -0.3299144 3.216666e
  kscope::free(std::vector<Handle>{x, y, m, z});
  x = tensor(std::vector<float>{1, 2, 3}, {}, grad_option);
  y = mul(x, x);
  m = mean(y);
  z = std_(y);
  backward(m, *BackwardModeFromName("retain"));
  nograd(x);
  backward(z);
  EXPECT_TRUE(at::allclose(grad(x), at::tensor({-0.9072646f, -0.3299144f, 3.216666f}), 1e-5, 1e-6));
}

TEST_F(AutogradTest, DictionaryOfGradientsSeed004) {
  // q)x2:mul(x; x:tensor(1 2 3.0;`grad))  y2:mul(y; y:tensor(2 4 6.0;`grad))
  // q)backward(z:add(x2;y2); 1 1 1)  grad each(x;y) -> 2 4 6 / 4 8 12
  // q)d:dict`x`y!addref each(x;y)  zerograd d -> 0s   nograd d -> nulls
  auto scope = Scope::Open();
  Options g = Options::Parse("tensor", {"grad"});
  Handle x = tensor(std::vector<double>{1, 2, 3}, {}, g);
  Handle y = tensor(std::vector<double>{2, 4, 6}, {}, g);
  Handle z = add(mul(x, x), mul(y, y));
  backward(z, at::ones({3}, at::kDouble));
  EXPECT_TRUE(grad(x).equal(at::tensor({2.0, 4.0, 6.0})));
  EXPECT_TRUE(grad(y).equal(at::tensor({4.0, 8.0, 12.0})));
  Handle d = dict({{"x", addref(x)}, {"y", addref(y)}});
  zerograd(d);
  EXPECT_TRUE(grad(x).equal(at::zeros({3}, at::kDouble)));
  EXPECT_TRUE(grad(y).equal(at::zeros({3}, at::kDouble)));
  nograd(d);
  EXPECT_FALSE(grad(x).defined());
  EXPECT_FALSE(grad(y).defined());
}

TEST_F(AutogradTest, DetachAndGradflag) {
  auto scope = Scope::Open();
  Handle x = tensor(std::vector<float>{1, 2}, {}, Options::Parse("tensor", {"grad"}));
  Handle d = detach(x);
  EXPECT_FALSE(gradflag(d));
  EXPECT_TRUE(gradflag(x));
  gradflag(x, false);
  EXPECT_FALSE(gradflag(x));
  Handle v = vector({Operand(at::zeros({1})), Operand(at::zeros({2}))});
  gradflag(v, true);
  const Object stored = HandleTable::Global().Get(v);
  for (const at::Tensor& t : *stored.vector()) EXPECT_TRUE(t.requires_grad());
  EXPECT_EQ(ErrorOf([&] { backward(v, at::ones({1})); }),
            "backward: a gradient is given for a single tensor only");
}

}  // namespace math_test
}  // namespace kscope
