// api/tensor/random_fill.h against libtorch's own draws made with the generator seeded the same:
// every fill (and each of its forms) on data and on a tensor handle, integer dtypes where libtorch
// takes them, vectors and dictionaries whole or by index/key, module parameters by name
// (leaves keep requires_grad); bernoulli and multinomial on data, on handles and into an output
// handle. Bad arguments name the function and change no tensor, even when a later tensor's
// draw fails inside libtorch.
#include <functional>
#include <string>
#include <vector>

#include <ATen/ops/empty.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/tensor.h>

#include "api/tensor/random_fill.h"
#include "tests/error_text.h"
#include "tests/optimizer_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace random_fill_test {

using testing::ErrorOf;
using ::testing::HasSubstr;
using testing::LeakCheckTest;
using testing::Linear;

using RandomFillTest = LeakCheckTest;

constexpr std::uint64_t kSeed = 23;

// What libtorch's in-place draw gives on a tensor of `size` and `dtype`, from seed kSeed.
at::Tensor Expected(at::IntArrayRef size, at::ScalarType dtype,
                    const std::function<void(at::Tensor&)>& draw) {
  at::Tensor t = at::empty(size, dtype);
  at::manual_seed(kSeed);
  draw(t);
  return t;
}

struct Case {
  const char* name;
  at::ScalarType dtype;
  std::function<void(const init::Target&)> ours;
  std::function<void(at::Tensor&)> theirs;
};

std::vector<Case> Cases() {
  namespace rf = random_fill;
  return {
      {"normal", at::kFloat, [](auto& t) { rf::normal(t); }, [](at::Tensor& x) { x.normal_(); }},
      {"normal mean std", at::kDouble, [](auto& t) { rf::normal(t, 3, 0.5); },
       [](at::Tensor& x) { x.normal_(3, 0.5); }},
      {"uniform", at::kFloat, [](auto& t) { rf::uniform(t); }, [](at::Tensor& x) { x.uniform_(); }},
      {"uniform low high", at::kFloat, [](auto& t) { rf::uniform(t, -2, 5); },
       [](at::Tensor& x) { x.uniform_(-2, 5); }},
      {"random high", at::kLong, [](auto& t) { rf::random(t, 10); },
       [](at::Tensor& x) { x.random_(10); }},
      {"random low high", at::kFloat, [](auto& t) { rf::random(t, -5, 5); },
       [](at::Tensor& x) { x.random_(-5, 5); }},
      {"random byte", at::kByte, [](auto& t) { rf::random(t, 3, 200); },
       [](at::Tensor& x) { x.random_(3, 200); }},
      {"cauchy", at::kFloat, [](auto& t) { rf::cauchy(t, 1, 2); },
       [](at::Tensor& x) { x.cauchy_(1, 2); }},
      {"exponential", at::kDouble, [](auto& t) { rf::exponential(t, 3); },
       [](at::Tensor& x) { x.exponential_(3); }},
      {"geometric", at::kFloat, [](auto& t) { rf::geometric(t, 0.3); },
       [](at::Tensor& x) { x.geometric_(0.3); }},
      {"geometric long", at::kLong, [](auto& t) { rf::geometric(t, 0.6); },
       [](at::Tensor& x) { x.geometric_(0.6); }},
      {"lognormal", at::kFloat, [](auto& t) { rf::lognormal(t, 0.5, 0.25); },
       [](at::Tensor& x) { x.log_normal_(0.5, 0.25); }},
  };
}

TEST_F(RandomFillTest, EveryFillOnDataAndOnAHandleMatchesLibtorch) {
  auto scope = Scope::Open();
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    const at::Tensor want = Expected({5, 7}, c.dtype, c.theirs);
    at::Tensor data = at::zeros({5, 7}, c.dtype);
    at::manual_seed(kSeed);
    c.ours(data);
    EXPECT_TRUE(at::equal(data, want));

    const Handle h = tensor(at::zeros({5, 7}, c.dtype));
    at::manual_seed(kSeed);
    c.ours(h);
    EXPECT_TRUE(at::equal(tensor(h), want));
  }
}

TEST_F(RandomFillTest, VectorsAndDictionariesWholeOrBySelection) {
  auto scope = Scope::Open();
  const Handle v =
      vector({tensor(at::zeros({3, 4})), tensor(at::zeros({5})), tensor(at::zeros({2, 2}))});
  at::manual_seed(kSeed);
  random_fill::normal(v, 1, 2);
  at::manual_seed(kSeed);
  std::vector<at::Tensor> want{at::empty({3, 4}), at::empty({5}), at::empty({2, 2})};
  for (at::Tensor& w : want) w.normal_(1, 2);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(at::equal(vector(v, i), want[i])) << i;

  const at::Tensor first = vector(v, 0);
  at::manual_seed(kSeed);
  random_fill::uniform(init::Target(v, std::vector<std::int64_t>{2, 1}), 4, 6);
  at::manual_seed(kSeed);
  const at::Tensor third = at::empty({2, 2}).uniform_(4, 6);
  const at::Tensor second = at::empty({5}).uniform_(4, 6);
  EXPECT_TRUE(at::equal(vector(v, 0), first));
  EXPECT_TRUE(at::equal(vector(v, 1), second));
  EXPECT_TRUE(at::equal(vector(v, 2), third));

  const Handle d = dict({{"a", tensor(at::zeros({3}))}, {"b", tensor(at::zeros({3}, at::kLong))}});
  at::manual_seed(kSeed);
  random_fill::random(init::Target(d, std::vector<std::string>{"b"}), 1, 4);
  EXPECT_TRUE(at::equal(dict(d, "a"), at::zeros({3})));
  EXPECT_TRUE(
      at::equal(dict(d, "b"), Expected({3}, at::kLong, [](at::Tensor& x) { x.random_(1, 4); })));
}

TEST_F(RandomFillTest, ModuleParametersByNameStayLeavesRequiringGrad) {
  auto scope = Scope::Open();
  const Handle q = Linear(4, 3);
  const at::Tensor bias = tensor(parm(q, "bias"));
  at::manual_seed(kSeed);
  random_fill::exponential(init::Target(q, std::vector<std::string>{"weight"}), 2);
  at::Tensor live =
      nn::ModuleOf("test", q, ObjectClass::kModule)->module().named_parameters()["weight"];
  EXPECT_TRUE(live.requires_grad());
  EXPECT_TRUE(live.is_leaf());
  EXPECT_TRUE(at::equal(live.detach(),
                        Expected({3, 4}, at::kFloat, [](at::Tensor& x) { x.exponential_(2); })));
  EXPECT_TRUE(at::equal(tensor(parm(q, "bias")), bias));
}

TEST_F(RandomFillTest, BernoulliAndMultinomialDrawLikeLibtorchInEveryForm) {
  auto scope = Scope::Open();
  const at::Tensor p = at::tensor({0.1, 0.5, 0.9, 0.3, 0.7, 0.2});
  const at::Tensor w = at::tensor({1.0, 2.0, 3.0, 4.0, 0.0, 1.0}).reshape({2, 3});
  at::manual_seed(kSeed);
  const at::Tensor bits = p.bernoulli();
  const at::Tensor picks = w.multinomial(2);
  const at::Tensor many = w.multinomial(5, true);

  at::manual_seed(kSeed);
  EXPECT_TRUE(at::equal(random_fill::bernoulli(p).tensor(), bits));
  EXPECT_TRUE(at::equal(random_fill::multinomial(w, 2).tensor(), picks));
  EXPECT_TRUE(at::equal(random_fill::multinomial(w, 5, true).tensor(), many));

  const Handle ph = tensor(p), wh = tensor(w);
  at::manual_seed(kSeed);
  const Result b = random_fill::bernoulli(ph);
  const Result m = random_fill::multinomial(wh, 2);
  ASSERT_TRUE(b.is_handle());
  ASSERT_TRUE(m.is_handle());
  EXPECT_TRUE(at::equal(tensor(b.handle()), bits));
  EXPECT_TRUE(at::equal(tensor(m.handle()), picks));

  Options doubles;
  doubles.dtype = at::kDouble;
  const Handle out = empty({0}, doubles);
  at::manual_seed(kSeed);
  EXPECT_TRUE(random_fill::bernoulli(ph, out).is_none());
  EXPECT_TRUE(at::equal(tensor(out), bits.to(at::kDouble)));
  EXPECT_TRUE(random_fill::multinomial(wh, 2, false, out).is_none());
  EXPECT_TRUE(at::equal(tensor(out), picks.to(at::kDouble)));
}

// Each bad call: its error (with the function's name), then every tensor as it was.
TEST_F(RandomFillTest, BadArgumentsNameTheFunctionAndChangeNothing) {
  auto scope = Scope::Open();
  const Handle longs = tensor(std::vector<std::int64_t>{1, 2, 3, 4}, {2, 2});
  const Handle v = vector({tensor(at::randn({3})), tensor(at::zeros({2}, at::kByte))});
  const Handle d = dict({{"a", tensor(at::randn({3}))}});
  const Handle q = Linear(3, 2);
  auto now = [&] {
    return std::vector<at::Tensor>{tensor(longs), vector(v, 0), vector(v, 1), dict(d, "a"),
                                   tensor(parm(q, "weight"))};
  };
  const std::vector<at::Tensor> before = now();
  const std::vector<std::pair<std::function<void()>, std::string>> calls{
      {[&] { random_fill::normal(longs); },
       "normal: tensor is long, expected a floating-point tensor"},
      {[&] { random_fill::uniform(v); },
       "uniform: vector[1] is byte, expected a floating-point tensor"},
      {[&] { random_fill::normal(d, 0, -1); }, "normal: std -1 is negative"},
      {[&] { random_fill::uniform(d, 2, 1); }, "uniform: low 2 is above high 1"},
      {[&] { random_fill::random(v, 5, 2); }, "random: low 5 is not below high 2"},
      {[&] { random_fill::random(v, 0); }, "random: high 0 is not positive"},
      {[&] { random_fill::random(v, 0, 1000); }, "to - 1 is out of bounds for unsigned char"},
      {[&] { random_fill::cauchy(d, 0, 0); }, "cauchy: sigma 0 is not positive"},
      {[&] { random_fill::exponential(d, -1); }, "exponential: rate -1 is not positive"},
      {[&] { random_fill::geometric(longs, 1); }, "geometric: probability 1 is outside (0, 1)"},
      {[&] { random_fill::lognormal(d, 0, 0); }, "lognormal: std 0 is not positive"},
      {[&] {
         random_fill::normal(init::Target(v, std::vector<std::int64_t>{0, 2}));
       },
       "normal: vector index 2 out of range for 2 tensor(s)"},
      {[&] { random_fill::normal(init::Target(d, std::vector<std::string>{"b"})); },
       "normal: no key `b in dictionary"},
      {[&] { random_fill::normal(init::Target(q, std::vector<std::string>{"w"})); },
       "normal: no parameter or buffer `w in linear module"},
      {[&] { random_fill::bernoulli(v); }, "bernoulli: expected tensor, given vector"},
      {[&] { random_fill::multinomial(at::ones({3}), 2, false, v); },
       "multinomial: expected tensor, given vector"},
  };
  for (const auto& [call, error] : calls) {
    EXPECT_THAT(ErrorOf(call), HasSubstr(error));
    const std::vector<at::Tensor> after = now();
    for (std::size_t i = 0; i < before.size(); ++i)
      EXPECT_TRUE(at::equal(after[i], before[i])) << error << " " << i;
  }
}

}  // namespace random_fill_test
}  // namespace kscope
