// api/nn/kinds/lamb.h through opt: one lamb step against the same math written out with ATen, for
// the default options and for others that turn each part off or widen the trust range.
#include <algorithm>
#include <cmath>

#include "api/nn/optimizer_object.h"
#include "api/nn/optimizer_state.h"
#include "tests/error_text.h"
#include "tests/optimizer_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace lamb_test {

using ::testing::ElementsAre;
using testing::ErrorOf;
using ::testing::HasSubstr;
using testing::LeakCheckTest;

using OptimizerLambTest = LeakCheckTest;

struct LambCase {
  double lr, beta1, beta2, eps, decay;
  bool unbiased, globalnorm, trustclip;
  double trustmin, trustmax;
};

nn::NamedValues Named(const LambCase& c) {
  return {{"lr", c.lr},
          {"beta1", c.beta1},
          {"beta2", c.beta2},
          {"eps", c.eps},
          {"decay", c.decay},
          {"unbiased", c.unbiased},
          {"globalnorm", c.globalnorm},
          {"trustclip", c.trustclip},
          {"trustmin", c.trustmin},
          {"trustmax", c.trustmax}};
}

// The first lamb step of parameter p with gradient g, written out; `norm` is the global norm
// of all gradients.
at::Tensor FirstStep(const LambCase& c, const at::Tensor& p, at::Tensor g, double norm) {
  if (c.globalnorm) g = g / std::max(1.0, norm);
  const at::Tensor m = (1 - c.beta1) * g;
  const at::Tensor v = (1 - c.beta2) * g * g;
  const double c1 = c.unbiased ? 1 - c.beta1 : 1, c2 = c.unbiased ? 1 - c.beta2 : 1;
  const at::Tensor u = (m / c1) / ((v / c2).sqrt() + c.eps) + c.decay * p;
  double ratio = p.norm().item<double>() / u.norm().item<double>();
  if (c.trustclip) ratio = std::min(std::max(ratio, c.trustmin), c.trustmax);
  return p - c.lr * ratio * u;
}

TEST_F(OptimizerLambTest, OneStepMatchesTheMathWrittenOut) {
  const std::vector<LambCase> cases = {
      {0.001, 0.9, 0.999, 1e-8, 0.0, true, true, true, 0.0, 1.0},  // ktorch's defaults
      {0.05, 0.8, 0.99, 1e-6, 0.1, true, true, true, 0.0, 10.0},   // decay, a wider trust range
      {0.05, 0.8, 0.99, 1e-6, 0.0, false, false, false, 0.0,
       1.0},  // no correction, pre-norm or clip
  };
  for (const LambCase& c : cases) {
    SCOPED_TRACE(c.lr + c.decay + c.unbiased);
    auto scope = Scope::Open();
    Handle q = testing::Linear(4, 3);
    Handle o = opt("lamb", q, {}, Named(c));
    const at::Tensor w = tensor(parm(q, "weight")), b = tensor(parm(q, "bias"));
    testing::Backward(q, 3 * at::randn({5, 4}));
    const at::Tensor gw = grad(parm(q, "weight")), gb = grad(parm(q, "bias"));
    const double norm = at::cat({gw.flatten(), gb.flatten()}).norm().item<double>();
    ASSERT_GT(norm, 1.0);  // so that pre-normalization changes the gradients
    step(o);
    EXPECT_TRUE(at::allclose(tensor(parm(q, "weight")), FirstStep(c, w, gw, norm), 1e-5, 1e-7));
    EXPECT_TRUE(at::allclose(tensor(parm(q, "bias")), FirstStep(c, b, gb, norm), 1e-5, 1e-7));
    EXPECT_TRUE(at::equal(grad(parm(q, "weight")), gw));  // the gradients themselves are kept
    const OptimizerState s = opt_state(o);
    ASSERT_EQ(s.buffers.size(), 2u);
    EXPECT_EQ(s.buffers[0][0].first, "step");
    EXPECT_EQ(s.buffers[0][0].second.item<std::int64_t>(), 1);
    EXPECT_EQ(s.buffers[0][1].first, "exp_avg");
    EXPECT_EQ(s.buffers[0][2].first, "exp_avg_sq");
    EXPECT_EQ(tensorcount(o), 4);
  }
}

TEST_F(OptimizerLambTest, DefaultsAndChecks) {
  auto scope = Scope::Open();
  Handle o = opt("lamb");
  EXPECT_EQ(str(o),
            "kscope::nn::Lamb(lr=0.001, beta1=0.9, beta2=0.999, eps=1e-08, decay=0, unbiased=true, "
            "globalnorm=true, trustclip=true, trustmin=0, trustmax=1)");
  EXPECT_THAT(opt_options("lamb"), ElementsAre("lr", "beta1", "beta2", "eps", "decay", "unbiased",
                                               "globalnorm", "trustclip", "trustmin", "trustmax"));
  EXPECT_THAT(ErrorOf([] { opt("lamb", {-1.0}); }), HasSubstr("Invalid learning rate: -1"));
  EXPECT_THAT(ErrorOf([] {
                opt("lamb", {}, {{"trustmin", 2.0}});
              }),
              HasSubstr("Invalid trust ratio range: 2 to 1"));
  EXPECT_THAT(ErrorOf([] {
                opt("lamb", {}, {{"beta2", 1.0}});
              }),
              HasSubstr("Invalid beta parameter at index 1: 1"));
}

}  // namespace lamb_test
}  // namespace kscope
