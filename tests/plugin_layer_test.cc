// Layer kinds through the plugin, as a q session uses them: a transposed convolution defined,
// queried back and run on a k array; two-input forwards (bilinear, pairwise, similar); and the
// error texts of bad options. Results are checked against the same arithmetic done here on the
// module's parameters, read back through the plugin.
#include <cmath>
#include <vector>

#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_layer_test {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::Pointwise;

class PluginLayerTest : public PluginTest {
 protected:
  // The values of q's parameter `name`, read as k data.
  std::vector<float> Parm(const KRef& q, const char* name) {
    KRef p = Call("parm", List({q.share(), kq::Sym(name)}));
    std::vector<float> values = Reals(Call("tensor", p));
    Call("free", p);
    return values;
  }
};

TEST_F(PluginLayerTest, ConvTransposeQueriedAndRunOnAKArray) {
  // q)q:module(`convtranspose2d;3;4;2)   module q   y:forward(q;x)
  KRef q = Call("module", "(`convtranspose2d;3;4;2)");
  // per-dimension options echo one number when every dimension has it, as ktorch's do
  EXPECT_EQ(S1(Call("module", q)),
            "`depth`module`name`options!(0;`convtranspose2d;`;`in`out`size`stride`pad`outpad`"
            "groups`bias`dilate`padmode!"
            "(3;4;2;1;0;0;1;1b;1;`zeros))");
  KRef x = Q("enlist((1 2e;3 4e);(5 -6e;7 8e);(-1 0e;2 -3e))");  // 1 x 3 x 2 x 2
  const std::vector<float> in = Reals(x);
  const std::vector<float> w = Parm(q, "weight");  // 3 x 4 x 2 x 2
  const std::vector<float> b = Parm(q, "bias");    // 4
  // Each input value spreads over a 2 x 2 block of every output channel: y is 1 x 4 x 3 x 3.
  std::vector<float> expected(4 * 3 * 3);
  for (int o = 0; o < 4; ++o) {
    for (int k = 0; k < 9; ++k) expected[o * 9 + k] = b[o];
    for (int c = 0; c < 3; ++c) {
      for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 2; ++j) {
          for (int a = 0; a < 2; ++a) {
            for (int d = 0; d < 2; ++d) {
              expected[o * 9 + (i + a) * 3 + j + d] +=
                  in[c * 4 + i * 2 + j] * w[((c * 4 + o) * 2 + a) * 2 + d];
            }
          }
        }
      }
    }
  }
  KRef y =
      Call("return", Call("forward", List({q.share(), x.share()})));  // a pointer, as in ktorch
  EXPECT_THAT(Reals(y), Pointwise(FloatNear(1e-5), expected));
  Call("free", q);
}

TEST_F(PluginLayerTest, BilinearForwardTakesTwoInputs) {
  // q)q:module(`bilinear;2;3;1)   forward(q;x;y)
  KRef q = Call("module", "(`bilinear;2;3;1)");
  EXPECT_EQ(S1(Call("module", q)),
            "`depth`module`name`options!(0;`bilinear;`;`in1`in2`out`bias!(2;3;1;1b))");
  KRef x = Q("(1 2e;-3 0.5e)");
  KRef y = Q("(1 0 -1e;2 2 4e)");
  const std::vector<float> xs = Reals(x), ys = Reals(y), w = Parm(q, "weight"), b = Parm(q, "bias");
  std::vector<float> expected(2, b[0]);
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) expected[r] += xs[r * 2 + i] * w[i * 3 + j] * ys[r * 3 + j];
    }
  }
  EXPECT_THAT(Reals(Call("return", Call("forward", List({q.share(), x.share(), y.share()})))),
              Pointwise(FloatNear(1e-5), expected));
  EXPECT_EQ(Error("forward", List({q.share(), x.share()})),
            "forward: `bilinear expects 2 inputs, given 1");
  Call("free", q);
}

TEST_F(PluginLayerTest, DistancesOfTwoKArrays) {
  // q)forward(module(`pairwise;1);x;y)   forward(module`similar;x;y)
  KRef x = Q("(1 2e;3 5e)");
  KRef y = Q("(0 2e;1 1e)");
  KRef pairwise = Call("module", "(`pairwise;1)");
  EXPECT_EQ(S1(Call("module", List({pairwise.share(), kq::Bool(false)}))),
            "`depth`module`name`options!(0;`pairwise;`;(,`p)!,1f)");
  // |x - y + eps| summed along the rows: 1 + 2 eps and 6 + 2 eps.
  EXPECT_THAT(
      Reals(Call("return", Call("forward", List({pairwise.share(), x.share(), y.share()})))),
      ElementsAre(FloatNear(1.000002f, 1e-5), FloatNear(6.000002f, 1e-5)));
  KRef similar = Call("module", "`similar");
  const float row1 = (3 * 1 + 5 * 1) / (std::sqrt(34.0f) * std::sqrt(2.0f));
  EXPECT_THAT(Reals(Call("return", Call("forward", List({similar.share(), x.share(), y.share()})))),
              ElementsAre(FloatNear(4 / (std::sqrt(5.0f) * 2), 1e-6), FloatNear(row1, 1e-6)));
  Call("free", List({pairwise.share(), similar.share()}));
}

TEST_F(PluginLayerTest, NamedOptionsAndUpsampling) {
  // q)forward(module(`upsample;`scale;2 2f);x) repeats each value in both directions
  KRef q = Call("module", "(`upsample;`scale;2 2f)");
  EXPECT_EQ(
      S1(Call("return", Call("forward", List({q.share(), Q("enlist enlist(1 2e;3 4e)").share()})))),
      ",,(1 1 2 2e;1 1 2 2e;3 3 4 4e;3 3 4 4e)");
  Call("free", q);
}

TEST_F(PluginLayerTest, BadOptionsNameTheKind) {
  EXPECT_EQ(Error("module", "(`fmaxpool2d;2)"),
            "fmaxpool2d: expecting one of options `outsize and `ratio, given neither");
  EXPECT_EQ(
      Error("module", "(`convtranspose2d;1;2;3;`padmode;`reflect)"),
      "convtranspose2d: unsupported padmode `reflect, transposed convolutions only pad with zeros");
  EXPECT_EQ(Error("module", "(`upsample;`scale;0f)"),
            "upsample: option `scale must be positive, given 0");
  EXPECT_EQ(Error("module", "(`embedbag;10;3;`mode;`median)"),
            "embedbag: unrecognized mode `median, expecting mean, sum or max");
  EXPECT_EQ(Error("module", "(`pad2d;1)"), "pad2d: option `value required");
}

}  // namespace plugin_layer_test
}  // namespace kscope::testing
