// api/nn/functional.h: the functional forms of layers against libtorch's own functions — options
// positionally and by name, handles in -> handles out, data in -> data out, the in-place
// option, the forms with explicit weights (linear, bilinear, prelu) and pdist, and errors.
#include <torch/nn/functional.h>

#include "api/core/pointer.h"
#include "api/nn/functional.h"
#include "api/tensor/tensor.h"
#include "tests/error_text.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace functional_test {

namespace F = torch::nn::functional;
using testing::ErrorOf;
using testing::LeakCheckTest;

using FunctionalTest = LeakCheckTest;
using Longs = std::vector<std::int64_t>;
using Doubles = std::vector<double>;

// A functional form with its inputs and options, and what libtorch computes for it.
struct FunctionalCase {
  std::string kind;
  std::vector<at::Tensor> inputs;
  std::vector<nn::OptionValue> positional;
  nn::NamedValues named;
  at::Tensor expected;
};

std::vector<FunctionalCase> ActivationCases() {
  const at::Tensor x = at::randn({4, 6});
  return {
      {"relu", {x}, {}, {}, at::relu(x)},
      {"relu6", {x * 4}, {}, {}, at::hardtanh(x * 4, 0, 6)},
      {"selu", {x}, {}, {}, at::selu(x)},
      {"elu", {x}, {0.5}, {}, at::elu(x, 0.5)},
      {"celu", {x}, {}, {{"alpha", 2.0}}, at::celu(x, 2.0)},
      {"leakyrelu", {x}, {0.2}, {}, at::leaky_relu(x, 0.2)},
      {"rrelu", {x}, {0.25, 0.25}, {}, at::leaky_relu(x, 0.25)},  // lower = upper: no randomness
      {"hardtanh", {x}, {-0.5}, {{"max", 0.25}}, at::hardtanh(x, -0.5, 0.25)},
      {"hardshrink", {x}, {0.3}, {}, at::hardshrink(x, 0.3)},
      {"softshrink", {x}, {}, {{"lambda", 0.3}}, at::softshrink(x, 0.3)},
      {"softplus", {x}, {2.0, 1.0}, {}, at::softplus(x, 2.0, 1.0)},
      {"softsign", {x}, {}, {}, F::softsign(x)},
      {"tanhshrink", {x}, {}, {}, F::tanhshrink(x)},
      {"threshold", {x}, {0.1, -1.0}, {}, at::threshold(x, 0.1, -1.0)},
      {"logsigmoid", {x}, {}, {}, at::log_sigmoid(x)},
      {"softmax", {x}, {std::int64_t{1}}, {}, at::softmax(x, 1)},
      {"softmin", {x}, {}, {{"dim", std::int64_t{0}}}, at::softmax(-x, 0)},
      {"logsoftmax", {x}, {std::int64_t{-1}}, {}, at::log_softmax(x, -1)},
      {"glu", {x}, {}, {}, at::glu(x, -1)},
      {"glu", {x}, {std::int64_t{0}}, {}, at::glu(x, 0)},
      {"flatten", {x.view({2, 2, 3, 2})}, {std::int64_t{2}}, {}, x.view({2, 2, 6})},
      {"flatten", {x.view({2, 2, 3, 2})}, {}, {}, x.view({24})},  // ktorch: from dimension 0
  };
}

std::vector<FunctionalCase> PoolCases() {
  const at::Tensor x1 = at::randn({2, 3, 8}), x2 = at::randn({2, 3, 8, 8}),
                   x3 = at::randn({1, 2, 4, 4, 4});
  return {
      {"maxpool1d", {x1}, {Longs{3}, Longs{2}}, {}, at::max_pool1d(x1, {3}, {2})},
      {"maxpool2d",
       {x2},
       {Longs{2}},
       {{"pad", Longs{1}}},
       at::max_pool2d(x2, {2, 2}, {2, 2}, {1, 1})},
      {"maxpool3d", {x3}, {Longs{2}}, {}, at::max_pool3d(x3, {2, 2, 2})},
      {"avgpool1d", {x1}, {Longs{2}}, {}, at::avg_pool1d(x1, {2})},
      {"avgpool2d", {x2}, {Longs{3}, Longs{1}}, {}, at::avg_pool2d(x2, {3, 3}, {1, 1})},
      {"avgpool3d",
       {x3},
       {Longs{2}},
       {{"divisor", std::int64_t{2}}},
       at::avg_pool3d(x3, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, false, true, 2)},
      {"adaptavg1d", {x1}, {Longs{3}}, {}, at::adaptive_avg_pool1d(x1, {3})},
      {"adaptavg2d", {x2}, {Longs{3, 2}}, {}, at::adaptive_avg_pool2d(x2, {3, 2})},
      {"adaptavg3d", {x3}, {Longs{2}}, {}, at::adaptive_avg_pool3d(x3, {2, 2, 2})},
      {"adaptmax1d", {x1}, {Longs{3}}, {}, std::get<0>(at::adaptive_max_pool1d(x1, {3}))},
      {"adaptmax2d", {x2}, {Longs{2}}, {}, std::get<0>(at::adaptive_max_pool2d(x2, {2, 2}))},
      {"adaptmax3d",
       {x3},
       {Longs{1, 2, 2}},
       {},
       std::get<0>(at::adaptive_max_pool3d(x3, {1, 2, 2}))},
  };
}

// The forms with explicit weights, and pdist.
std::vector<FunctionalCase> DirectCases() {
  const at::Tensor x = at::randn({5, 4}), w = at::randn({3, 4}), b = at::randn({3});
  const at::Tensor x2 = at::randn({5, 2}), w3 = at::randn({3, 4, 2}),
                   slope = at::tensor({0.1f, 0.2f, 0.3f, 0.4f});
  return {
      {"linear", {x, w}, {}, {}, at::linear(x, w)},
      {"linear", {x, w, b}, {}, {}, at::linear(x, w, b)},
      {"bilinear", {x, x2, w3}, {}, {}, at::bilinear(x, x2, w3, {})},
      {"bilinear", {x, x2, w3, b}, {}, {}, at::bilinear(x, x2, w3, b)},
      {"prelu", {x, slope}, {}, {}, at::prelu(x, slope)},
      {"pdist", {x}, {}, {}, at::pdist(x)},
      {"pdist", {x}, {}, {{"p", std::int64_t{1}}}, at::pdist(x, 1)},
  };
}

// Resampling, distances, k-api transforms and the power pools.
std::vector<FunctionalCase> OtherLayerCases() {
  const at::Tensor x1 = at::randn({2, 3, 8}), x2 = at::randn({2, 3, 6, 6});
  const at::Tensor v = at::randn({4, 5}), u = at::randn({4, 5});
  const at::Tensor blocks = F::unfold(x2, F::UnfoldFuncOptions({2, 2}));
  const at::Tensor labels = at::tensor({2, 0, 3}, at::kLong);
  return {
      {"lppool1d", {x1}, {2.0, Longs{3}}, {}, F::lp_pool1d(x1, F::LPPool1dFuncOptions(2, 3))},
      {"lppool2d",
       {x2},
       {1.0, Longs{2}},
       {{"stride", Longs{1}}},
       F::lp_pool2d(x2, F::LPPool2dFuncOptions(1, 2).stride(1))},
      {"unfold", {x2}, {Longs{2}}, {}, blocks},
      {"fold",
       {blocks},
       {Longs{6}, Longs{2}},
       {},
       F::fold(blocks, F::FoldFuncOptions({6, 6}, {2, 2}))},
      {"interpolate",
       {x2},
       {},
       {{"scale", Doubles{2, 2}}},
       F::interpolate(x2, F::InterpolateFuncOptions()
                              .scale_factor(std::vector<double>{2, 2})
                              .mode(torch::kNearest))},
      {"interpolate",
       {x1},
       {Longs{12}, std::monostate(), std::string("linear"), true},
       {},
       F::interpolate(
           x1,
           F::InterpolateFuncOptions().size(Longs{12}).mode(torch::kLinear).align_corners(true))},
      {"normalize", {v}, {}, {}, F::normalize(v, F::NormalizeFuncOptions())},
      {"normalize",
       {v},
       {1.0, std::int64_t{0}},
       {},
       F::normalize(v, F::NormalizeFuncOptions().p(1).dim(0))},
      {"pairwise", {v, u}, {}, {}, at::pairwise_distance(v, u)},
      {"pairwise", {v, u}, {}, {{"keepdim", true}}, at::pairwise_distance(v, u, 2, 1e-6, true)},
      {"similar", {v, u}, {std::int64_t{0}}, {}, at::cosine_similarity(v, u, 0)},
      {"pad", {v}, {Longs{1, 2}}, {}, F::pad(v, F::PadFuncOptions({1, 2}))},
      {"pad",
       {x2},
       {Longs{1, 1, 2, 0}, std::string("reflect")},
       {},
       F::pad(x2, F::PadFuncOptions({1, 1, 2, 0}).mode(torch::kReflect))},
      {"onehot", {labels}, {std::int64_t{4}}, {}, at::one_hot(labels, 4).to(at::kFloat)},
      {"zscore",
       {x2},
       {Doubles{1, 2, 3}, Doubles{2, 4, 8}},
       {},
       (x2 - at::tensor({1.f, 2.f, 3.f}).view({3, 1, 1})) /
           at::tensor({2.f, 4.f, 8.f}).view({3, 1, 1})},
      // The random transforms, where their options leave no chance.
      {"randomcrop", {x2}, {Longs{6}}, {}, x2},
      {"randomflip", {x2}, {1.0}, {}, x2.flip(-1)},
      {"randomflip", {x2}, {0.0, std::int64_t{2}}, {}, x2},
  };
}

// Checks every case with data (data back) and with handles (a new handle back).
void ExpectCases(const std::vector<FunctionalCase>& cases) {
  auto scope = Scope::Open();
  for (const FunctionalCase& c : cases) {
    SCOPED_TRACE(c.kind);
    const std::vector<Operand> data(c.inputs.begin(), c.inputs.end());
    EXPECT_TRUE(at::allclose(functional(c.kind, data, c.positional, c.named).tensor(), c.expected));
    std::vector<Operand> handles;
    for (const at::Tensor& t : c.inputs) handles.emplace_back(tensor(t));
    const Result r = functional(c.kind, handles, c.positional, c.named);
    ASSERT_TRUE(r.is_handle());
    EXPECT_TRUE(at::allclose(tensor(r.handle()), c.expected));
  }
}

TEST_F(FunctionalTest, ActivationsMatchLibtorch) { ExpectCases(ActivationCases()); }

TEST_F(FunctionalTest, NewHandlesNameTheirFormAfterTheCallersStringIsGone) {
  auto scope = Scope::Open();
  const Handle x = tensor(at::randn({4}));
  Handle y, z;
  {
    std::string kind = "relu6";  // gone before obj() reads the origins
    y = functional(kind, {Operand(x)}).handle();
    kind = "linear";
    z = functional(kind, {Operand(x), Operand(at::eye(4))}).handle();
  }
  std::vector<std::string> origins;
  for (const ObjectRow& row : obj()) {
    if (row.ptr == y || row.ptr == z) origins.push_back(row.origin);
  }
  EXPECT_THAT(origins, ::testing::UnorderedElementsAre("relu6", "linear"));
}

TEST_F(FunctionalTest, PoolsMatchLibtorch) { ExpectCases(PoolCases()); }

TEST_F(FunctionalTest, ExplicitWeightsAndPdistMatchLibtorch) { ExpectCases(DirectCases()); }

TEST_F(FunctionalTest, OtherLayersMatchLibtorch) { ExpectCases(OtherLayerCases()); }

TEST_F(FunctionalTest, FractionalMaxPoolsPickWindowMaxima) {
  auto scope = Scope::Open();
  const at::Tensor x2 = at::randn({2, 3, 8, 8}), x3 = at::randn({1, 2, 6, 6, 6});
  const at::Tensor y2 =
      functional("fmaxpool2d", x2, {Longs{2}}, {{"outsize", Longs{4, 3}}}).tensor();
  EXPECT_EQ(y2.sizes(), at::IntArrayRef({2, 3, 4, 3}));
  EXPECT_TRUE(at::isin(y2, x2).all().item<bool>());
  const at::Tensor y3 =
      functional("fmaxpool3d", x3, {Longs{2}, std::monostate(), Doubles{0.5}}).tensor();
  EXPECT_EQ(y3.sizes(), at::IntArrayRef({1, 2, 3, 3, 3}));
  EXPECT_TRUE(at::isin(y3, x3).all().item<bool>());
}

// ktorch's 51 functional forms of layers.
const char* const kForms[] = {
    "adaptavg1d", "adaptavg2d",  "adaptavg3d", "adaptmax1d", "adaptmax2d", "adaptmax3d",
    "avgpool1d",  "avgpool2d",   "avgpool3d",  "bilinear",   "celu",       "elu",
    "flatten",    "fmaxpool2d",  "fmaxpool3d", "fold",       "glu",        "hardshrink",
    "hardtanh",   "interpolate", "leakyrelu",  "linear",     "logsigmoid", "logsoftmax",
    "lppool1d",   "lppool2d",    "maxpool1d",  "maxpool2d",  "maxpool3d",  "normalize",
    "onehot",     "pad",         "pairwise",   "pdist",      "prelu",      "randomcrop",
    "randomflip", "relu6",       "relu",       "rrelu",      "selu",       "similar",
    "softmax",    "softmin",     "softplus",   "softshrink", "softsign",   "tanhshrink",
    "threshold",  "unfold",      "zscore",
};

TEST_F(FunctionalTest, EveryFormHasASignature) {
  for (const char* form : kForms) {
    SCOPED_TRACE(form);
    const Signature s = functional_signature(form);
    EXPECT_GE(s.fewest_inputs, 1u);
    EXPECT_LE(s.fewest_inputs, s.most_inputs);
  }
  EXPECT_EQ(functional_signature("pairwise").fewest_inputs, 2u);
  EXPECT_EQ(functional_signature("bilinear").options,
            std::vector<std::string>{});  // weights given, not options
}

TEST_F(FunctionalTest, GradientsFlowThroughAFunctionalForm) {
  auto scope = Scope::Open();
  Options g;
  g.grad = true;
  Handle x = tensor(std::vector<double>{-1, 2, -3, 4}, {}, g);
  Handle y = functional("relu", x);
  backward(kscope::sum(y));
  EXPECT_TRUE(at::equal(grad(x), at::tensor({0.0, 1.0, 0.0, 1.0}, at::kDouble)));
}

TEST_F(FunctionalTest, InPlaceWritesIntoAHandleAndCopiesData) {
  auto scope = Scope::Open();
  Handle x = tensor(std::vector<double>{-1, 2, -3});
  const std::size_t before = live_handles();
  EXPECT_TRUE(functional("relu", x, {true}).is_none());
  EXPECT_EQ(live_handles(), before);
  EXPECT_TRUE(at::equal(tensor(x), at::tensor({0.0, 2.0, 0.0}, at::kDouble)));
  const at::Tensor data = at::tensor({-1.0, 2.0});
  EXPECT_TRUE(
      at::equal(functional("leakyrelu", data, {}, {{"slope", 0.5}, {"inplace", true}}).tensor(),
                at::tensor({-0.5, 2.0}, at::kDouble)));
  EXPECT_TRUE(at::equal(data, at::tensor({-1.0, 2.0})));  // the caller's data is untouched
}

TEST_F(FunctionalTest, Signatures) {
  const Signature softmax = functional_signature("softmax");
  EXPECT_EQ(softmax.fewest_inputs, 1u);
  EXPECT_EQ(softmax.most_inputs, 1u);
  EXPECT_EQ(softmax.options, (std::vector<std::string>{"dim"}));
  const Signature linear = functional_signature("linear");
  EXPECT_EQ(linear.fewest_inputs, 2u);
  EXPECT_EQ(linear.most_inputs, 3u);
  EXPECT_TRUE(linear.options.empty());
  EXPECT_EQ(functional_signature("pdist").options, (std::vector<std::string>{"p"}));
  EXPECT_EQ(ErrorOf([] { functional_signature("sequential"); }),
            "functional: sequential is a container, not a layer");
}

TEST_F(FunctionalTest, BadInputChangesNothing) {
  auto scope = Scope::Open();
  Handle x = tensor(std::vector<double>{1, 2, 3});
  const std::size_t before = live_handles();
  EXPECT_EQ(ErrorOf([&] { functional("relux", x); }), "functional: unrecognized layer `relux");
  EXPECT_EQ(ErrorOf([&] { functional("sequential", x); }),
            "functional: sequential is a container, not a layer");
  EXPECT_EQ(ErrorOf([&] { functional("relu", {x, x}); }), "relu: `relu expects 1 input, given 2");
  EXPECT_EQ(ErrorOf([&] { functional("linear", x); }),
            "linear: `linear expects 2 to 3 inputs, given 1");
  EXPECT_EQ(ErrorOf([&] { functional("softmax", x); }), "softmax: option `dim required");
  EXPECT_EQ(ErrorOf([&] { functional("elu", x, {std::string("a")}); }),
            "elu: option `alpha expects double, given symbol");
  EXPECT_EQ(ErrorOf([&] {
              functional("pdist", x, {2.0, 1.0});
            }),
            "pdist: 2 positional option(s) given, expecting at most 1");
  EXPECT_EQ(ErrorOf([&] { functional("relu", Handle()); }), "stale pointer");
  EXPECT_NE(ErrorOf([&] { functional("maxpool2d", x, {Longs{2}}); }),
            "no error");  // libtorch: too few dimensions
  EXPECT_EQ(live_handles(), before);
  EXPECT_TRUE(at::equal(tensor(x), at::tensor({1.0, 2.0, 3.0}, at::kDouble)));
}

}  // namespace functional_test
}  // namespace kscope
