// api/nn/init.h against libtorch's torch::nn::init called directly with the generator seeded the
// same: every function (and each of its options) on a tensor handle and on data; vectors and
// dictionaries whole or by index/key; module parameters whole or by name (a buffer included);
// gain for every nonlinearity. Bad arguments name the function, change no tensor and draw no
// random numbers.
#include <functional>
#include <string>
#include <vector>

#include <torch/types.h>  // init.h needs torch::Tensor declared first

#include <torch/nn/init.h>

#include "api/nn/init.h"
#include "tests/error_text.h"
#include "tests/optimizer_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace init_test {

using testing::ErrorOf;
using testing::LeakCheckTest;
using testing::Linear;
namespace tinit = torch::nn::init;

using InitTest = LeakCheckTest;

constexpr std::uint64_t kSeed = 17;

// What libtorch gives for `init` on a tensor of `size`, from seed kSeed.
at::Tensor Expected(at::IntArrayRef size, const std::function<void(at::Tensor)>& init) {
  at::Tensor t = at::empty(size);
  at::manual_seed(kSeed);
  init(t);
  return t;
}

struct Case {
  const char* name;
  std::vector<std::int64_t> size;
  std::function<void(const init::Target&)> ours;
  std::function<void(at::Tensor)> theirs;
};

std::vector<Case> Cases() {
  return {
      {"zeros", {3, 4}, [](auto& t) { init::zeros(t); }, [](at::Tensor x) { tinit::zeros_(x); }},
      {"ones", {3, 4}, [](auto& t) { init::ones(t); }, [](at::Tensor x) { tinit::ones_(x); }},
      {"fill",
       {3, 4},
       [](auto& t) { init::fill(t, 2.5); },
       [](at::Tensor x) { tinit::constant_(x, 2.5); }},
      {"eye", {3, 5}, [](auto& t) { init::eye(t); }, [](at::Tensor x) { tinit::eye_(x); }},
      {"dirac",
       {4, 2, 3, 3},
       [](auto& t) { init::dirac(t); },
       [](at::Tensor x) { tinit::dirac_(x); }},
      {"orthogonal",
       {3, 5},
       [](auto& t) { init::orthogonal(t); },
       [](at::Tensor x) { tinit::orthogonal_(x); }},
      {"orthogonal gain",
       {5, 3},
       [](auto& t) { init::orthogonal(t, 2); },
       [](at::Tensor x) { tinit::orthogonal_(x, 2); }},
      {"knormal",
       {6, 4},
       [](auto& t) { init::kaiming_normal(t); },
       [](at::Tensor x) { tinit::kaiming_normal_(x); }},
      {"knormal options",
       {6, 4, 3},
       [](auto& t) {
         init::kaiming_normal(t, {0.2, true, "relu"});
       },
       [](at::Tensor x) { tinit::kaiming_normal_(x, 0.2, torch::kFanOut, torch::kReLU); }},
      {"kuniform",
       {6, 4},
       [](auto& t) { init::kaiming_uniform(t); },
       [](at::Tensor x) { tinit::kaiming_uniform_(x); }},
      {"kuniform options",
       {6, 4},
       [](auto& t) {
         init::kaiming_uniform(t, {0.3, false, "leakyrelu"});
       },
       [](at::Tensor x) { tinit::kaiming_uniform_(x, 0.3, torch::kFanIn, torch::kLeakyReLU); }},
      {"snormal",
       {8, 5},
       [](auto& t) { init::sparse(t, 0.5); },
       [](at::Tensor x) { tinit::sparse_(x, 0.5); }},
      {"snormal std",
       {8, 5},
       [](auto& t) { init::sparse(t, 0.25, 0.3); },
       [](at::Tensor x) { tinit::sparse_(x, 0.25, 0.3); }},
      {"xnormal",
       {6, 4},
       [](auto& t) { init::xavier_normal(t); },
       [](at::Tensor x) { tinit::xavier_normal_(x); }},
      {"xnormal gain",
       {6, 4},
       [](auto& t) { init::xavier_normal(t, 3); },
       [](at::Tensor x) { tinit::xavier_normal_(x, 3); }},
      {"xuniform",
       {6, 4},
       [](auto& t) { init::xavier_uniform(t); },
       [](at::Tensor x) { tinit::xavier_uniform_(x); }},
      {"xuniform gain",
       {6, 4},
       [](auto& t) { init::xavier_uniform(t, 0.5); },
       [](at::Tensor x) { tinit::xavier_uniform_(x, 0.5); }},
  };
}

TEST_F(InitTest, EveryFunctionOnATensorHandleMatchesLibtorch) {
  auto scope = Scope::Open();
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    const Handle h = randn(c.size);
    at::manual_seed(kSeed);
    c.ours(h);
    EXPECT_TRUE(at::equal(tensor(h), Expected(c.size, c.theirs)));
  }
}

TEST_F(InitTest, EveryFunctionOnDataChangesTheCallersTensor) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    at::Tensor data = at::randn(c.size);
    at::manual_seed(kSeed);
    c.ours(data);
    EXPECT_TRUE(at::equal(data, Expected(c.size, c.theirs)));
  }
}

TEST_F(InitTest, DiracGroupsPutOneIdentityPerGroup) {
  at::Tensor x = at::randn({4, 2, 3});
  init::dirac(x, 2);
  at::Tensor expected = at::zeros({4, 2, 3});
  for (auto [out, in] : {std::pair{0, 0}, {1, 1}, {2, 0}, {3, 1}}) expected[out][in][1].fill_(1);
  EXPECT_TRUE(at::equal(x, expected));
}

TEST_F(InitTest, LeafParametersChangeInPlaceAndKeepRequiringGrad) {
  auto scope = Scope::Open();
  const Handle q = Linear(4, 6);
  const Handle w = parm(q, "weight");
  init::xavier_uniform(init::Target(q, std::vector<std::string>{"weight"}));
  at::Tensor live =
      nn::ModuleOf("test", q, ObjectClass::kModule)->module().named_parameters()["weight"];
  EXPECT_TRUE(live.requires_grad());
  EXPECT_TRUE(live.is_leaf());
  init::ones(w);  // a handle sharing the parameter sees the change
  EXPECT_TRUE(at::equal(live.detach(), at::ones({6, 4})));
}

TEST_F(InitTest, VectorsWholeOrByIndex) {
  auto scope = Scope::Open();
  const Handle v = vector({randn({3, 4}), randn({2, 5}), randn({4, 4})});
  at::manual_seed(kSeed);
  init::kaiming_normal(v);
  at::manual_seed(kSeed);
  std::vector<at::Tensor> expected{at::empty({3, 4}), at::empty({2, 5}), at::empty({4, 4})};
  for (at::Tensor& e : expected) tinit::kaiming_normal_(e);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(at::equal(vector(v, i), expected[i])) << i;

  const at::Tensor second = vector(v, 1);
  init::fill(init::Target(v, std::vector<std::int64_t>{2, 0}), 7);
  EXPECT_TRUE(at::equal(vector(v, 0), at::full({3, 4}, 7.0)));
  EXPECT_TRUE(at::equal(vector(v, 1), second));
  EXPECT_TRUE(at::equal(vector(v, 2), at::full({4, 4}, 7.0)));
}

TEST_F(InitTest, DictionariesWholeOrByKey) {
  auto scope = Scope::Open();
  const Handle d = dict({{"a", randn({3, 3})}, {"b", randn({3, 3})}});
  init::eye(d);
  EXPECT_TRUE(at::equal(dict(d, "a"), at::eye(3)));
  EXPECT_TRUE(at::equal(dict(d, "b"), at::eye(3)));
  at::manual_seed(kSeed);
  init::xavier_normal(init::Target(d, std::vector<std::string>{"b"}), 2);
  EXPECT_TRUE(at::equal(dict(d, "a"), at::eye(3)));
  EXPECT_TRUE(
      at::equal(dict(d, "b"), Expected({3, 3}, [](at::Tensor x) { tinit::xavier_normal_(x, 2); })));
}

TEST_F(InitTest, ModuleParametersWholeOrByNameBuffersByName) {
  auto scope = Scope::Open();
  const Handle q = Linear(3, 2);
  init::zeros(q);
  EXPECT_TRUE(at::equal(tensor(parm(q, "weight")), at::zeros({2, 3})));
  EXPECT_TRUE(at::equal(tensor(parm(q, "bias")), at::zeros({2})));
  at::manual_seed(kSeed);
  init::kaiming_uniform(init::Target(q, std::vector<std::string>{"weight"}), {0, false, "relu"});
  EXPECT_TRUE(at::equal(tensor(parm(q, "weight")), Expected({2, 3}, [](at::Tensor x) {
                          tinit::kaiming_uniform_(x, 0, torch::kFanIn, torch::kReLU);
                        })));
  EXPECT_TRUE(at::equal(tensor(parm(q, "bias")), at::zeros({2})));

  const Handle bn = module(ModuleDefinition{"batchnorm1d", "", {std::int64_t{3}}, {}, {}});
  init::fill(init::Target(bn, std::vector<std::string>{"running_mean", "bias"}), 0.5);
  EXPECT_TRUE(at::equal(tensor(buffer(bn, "running_mean")), at::full({3}, 0.5)));
  EXPECT_TRUE(at::equal(tensor(parm(bn, "bias")), at::full({3}, 0.5)));
  EXPECT_TRUE(at::equal(tensor(parm(bn, "weight")), at::ones({3})));
}

TEST_F(InitTest, AModelStandsForItsModule) {
  auto scope = Scope::Open();
  const Handle q = Linear(3, 2);
  const Handle m = model({q, loss("mse"), opt("sgd", q)});
  init::fill(init::Target(m, std::vector<std::string>{"bias"}), 0.25);
  EXPECT_TRUE(at::equal(tensor(parm(m, "bias")), at::full({2}, 0.25)));
  EXPECT_FALSE(at::equal(tensor(parm(m, "weight")), at::full({2, 3}, 0.25)));
}

TEST_F(InitTest, GainMatchesLibtorchForEveryNonlinearity) {
  const std::vector<std::pair<const char*, tinit::NonlinearityType>> all{
      {"linear", torch::kLinear},
      {"conv1d", torch::kConv1D},
      {"conv2d", torch::kConv2D},
      {"conv3d", torch::kConv3D},
      {"convtranspose1d", torch::kConvTranspose1D},
      {"convtranspose2d", torch::kConvTranspose2D},
      {"convtranspose3d", torch::kConvTranspose3D},
      {"sigmoid", torch::kSigmoid},
      {"tanh", torch::kTanh},
      {"relu", torch::kReLU},
      {"leakyrelu", torch::kLeakyReLU}};
  for (const auto& [name, type] : all) {
    EXPECT_EQ(init::gain(name), tinit::calculate_gain(type)) << name;
    EXPECT_TRUE(init::is_nonlinearity(name)) << name;
  }
  EXPECT_EQ(init::gain("leakyrelu", 0.2), tinit::calculate_gain(torch::kLeakyReLU, 0.2));
  EXPECT_FALSE(init::is_nonlinearity("fanin"));
  EXPECT_EQ(ErrorOf([] { init::gain("softmax"); }),
            "gain: unknown nonlinearity `softmax, expected one of linear conv1d conv2d conv3d "
            "convtranspose1d "
            "convtranspose2d convtranspose3d sigmoid tanh relu leakyrelu");
}

// Each bad call: its error, then every tensor as it was and the generator untouched.
TEST_F(InitTest, BadArgumentsNameTheFunctionAndChangeNothing) {
  auto scope = Scope::Open();
  const Handle q = Linear(3, 2);
  const Handle t3 = randn({2, 3, 4});
  const Handle longs = tensor(std::vector<std::int64_t>{1, 2, 3, 4}, {2, 2});
  const Handle v = vector({randn({3, 4}), randn({5})});
  const Handle d = dict({{"a", randn({3, 3})}});
  const Handle loss = kscope::loss("mse");
  auto before = [&] {
    return std::vector<at::Tensor>{tensor(parm(q, "weight")),
                                   tensor(parm(q, "bias")),
                                   tensor(t3),
                                   tensor(longs),
                                   vector(v, 0),
                                   vector(v, 1),
                                   dict(d, "a")};
  };
  const std::vector<at::Tensor> values = before();
  const std::vector<std::pair<std::function<void()>, std::string>> calls{
      {[&] { init::kaiming_normal(q); },
       "knormal: parameter `bias has 1 dimension, expected 2 or more"},
      {[&] {
         init::kaiming_uniform(q, {0, false, "softmax"});
       },
       "kuniform: unknown nonlinearity `softmax, expected one of linear conv1d conv2d conv3d "
       "convtranspose1d "
       "convtranspose2d convtranspose3d sigmoid tanh relu leakyrelu"},
      {[&] { init::xavier_normal(v); }, "xnormal: vector[1] has 1 dimension, expected 2 or more"},
      {[&] {
         init::xavier_uniform(init::Target(v, std::vector<std::int64_t>{0, 2}));
       },
       "xuniform: vector index 2 out of range for 2 tensor(s)"},
      {[&] { init::zeros(init::Target(v, std::vector<std::string>{"a"})); },
       "zeros: a vector is selected by indices, given names"},
      {[&] {
         init::ones(init::Target(d, std::vector<std::string>{"a", "b"}));
       },
       "ones: no key `b in dictionary"},
      {[&] { init::ones(init::Target(d, std::vector<std::int64_t>{0})); },
       "ones: a dictionary is selected by keys, given indices"},
      {[&] {
         init::fill(init::Target(q, std::vector<std::string>{"weight", "w"}), 1);
       },
       "fill: no parameter or buffer `w in linear module"},
      {[&] { init::fill(init::Target(t3, std::vector<std::int64_t>{0}), 1); },
       "fill: a tensor takes no indices or names"},
      {[&] { init::zeros(loss); },
       "zeros: expected tensor, vector, dictionary, module or model, given loss"},
      {[&] { init::eye(t3); }, "eye: tensor has 3 dimensions, expected 2"},
      {[&] { init::dirac(longs); }, "dirac: tensor has 2 dimensions, expected 3 to 5"},
      {[&] { init::dirac(t3, 0); }, "dirac: groups must be positive, given 0"},
      {[&] { init::dirac(t3, 3); },
       "dirac: tensor has 2 output channels, not divisible by 3 groups"},
      {[&] { init::orthogonal(longs); },
       "orthogonal: tensor is long, expected a floating-point tensor"},
      {[&] { init::sparse(t3, 0.5); }, "snormal: tensor has 3 dimensions, expected 2"},
      {[&] { init::sparse(d, 2); }, "snormal: sparsity 2 is outside 0-1"},
      {[&] { init::sparse(d, 0.5, -1); }, "snormal: standard deviation -1 is negative"},
  };
  for (const auto& [call, error] : calls) {
    at::manual_seed(kSeed);
    EXPECT_EQ(ErrorOf(call), error);
    const at::Tensor drawn = at::randn({4});
    at::manual_seed(kSeed);
    EXPECT_TRUE(at::equal(drawn, at::randn({4}))) << error << ": random numbers were drawn";
    const std::vector<at::Tensor> after = before();
    for (std::size_t i = 0; i < values.size(); ++i)
      EXPECT_TRUE(at::equal(after[i], values[i])) << error << ": " << i;
  }
}

}  // namespace init_test
}  // namespace kscope
