// api/loss.h: loss objects and functions against libtorch's own losses.
#include "api/loss.h"
#include "tests/error_text.h"
#include "tests/leak_check.h"

namespace kscope {
namespace {

using testing::ErrorOf;
using testing::LeakCheckTest;

using LossTest = LeakCheckTest;

TEST_F(LossTest, MseObjectSeed000) {
  // q)l:loss`mse  x:tensor(1.2 1.9 3.1;`grad)  y:tensor 1.0 2.0 3.0  z:loss(l;x;y)
  // q)backward z; r:tensor z; free z   r -> 0.02
  auto scope = Scope::Open();
  Handle l = loss("mse");
  EXPECT_EQ(class_(l), ObjectClass::kLoss);
  Options g;
  g.grad = true;
  Handle x = tensor(std::vector<double>{1.2, 1.9, 3.1}, {}, g);
  Handle y = tensor(std::vector<double>{1.0, 2.0, 3.0});
  Handle z = loss(l, x, y);
  backward(z);
  EXPECT_NEAR(values<double>(z)[0], 0.02, 1e-12);
  EXPECT_TRUE(at::allclose(grad(x), at::tensor({0.4 / 3, -0.2 / 3, 0.2 / 3}, at::kDouble)));
  EXPECT_EQ(size(l).single(), std::vector<std::int64_t>{0});  // a loss has no parameters
}

TEST_F(LossTest, CrossEntropyQuerySeed002) {
  // q)loss m -> module| `ce   options| `weight`ignore`smoothing`reduce!(::;-100;0f;`mean)
  auto scope = Scope::Open();
  Handle l = loss("ce");
  LossDescription d = describe_loss(l);
  EXPECT_EQ(d.kind, "ce");
  ASSERT_EQ(d.options.size(), 4u);
  EXPECT_EQ(d.options[0], (std::pair<std::string, nn::OptionValue>("weight", std::monostate())));
  EXPECT_EQ(d.options[1], (std::pair<std::string, nn::OptionValue>("ignore", std::int64_t{-100})));
  EXPECT_EQ(d.options[2], (std::pair<std::string, nn::OptionValue>("smoothing", 0.0)));
  EXPECT_EQ(d.options[3], (std::pair<std::string, nn::OptionValue>("reduce", std::string("mean"))));
  EXPECT_TRUE(describe_loss(l, false).options.empty());
}

TEST_F(LossTest, CrossEntropyMatchesLibtorch) {
  auto scope = Scope::Open();
  const at::Tensor yhat = at::randn({6, 3});
  const at::Tensor y = at::tensor({0, 2, 1, 1, 0, 2}, at::kLong);
  EXPECT_TRUE(at::allclose(kscope::ce(yhat, y).tensor(), at::cross_entropy_loss(yhat, y)));
  // Options positional, reduce last; class weights as a list.
  Handle l = loss("ce", {std::vector<double>{1, 2, 3}, std::int64_t{-100}, 0.1, std::string("sum")});
  const at::Tensor expected = at::cross_entropy_loss(yhat, y, at::tensor({1.f, 2.f, 3.f}), at::Reduction::Sum, -100, 0.1);
  EXPECT_TRUE(at::allclose(loss(l, yhat, y).tensor(), expected));
  Handle none = loss("mse", {}, {{"reduce", std::string("none")}});
  EXPECT_EQ(loss(none, at::zeros({4}), at::ones({4})).tensor().sizes(), at::IntArrayRef({4}));
}

TEST_F(LossTest, BadLossesChangeNothing) {
  EXPECT_EQ(ErrorOf([] { loss("cee"); }), "loss: unrecognized loss `cee");
  EXPECT_EQ(ErrorOf([] { loss("mse", {std::string("average")}); }),
            "mse: unrecognized reduce `average, expecting mean, sum or none");
  EXPECT_EQ(ErrorOf([] { loss("ce", {}, {{"ignore", 1.5}}); }), "ce: option `ignore expects long, given double");
  EXPECT_EQ(live_handles(), 0u);
  auto scope = Scope::Open();
  Handle l = loss("mse");
  EXPECT_EQ(ErrorOf([&] { forward(l, at::ones({1})); }), "forward: expected module, given loss");
}

}  // namespace
}  // namespace kscope
