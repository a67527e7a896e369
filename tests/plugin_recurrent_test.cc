// Recurrent and transformer layers through the plugin, as q sessions: the lstm of ktorch's
// MNIST example made and queried, forwards giving every part of the result (a vector pointer for
// a tensor pointer in, a k list for k data in), and the error texts of bad options and inputs.
#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_recurrent_test {

using PluginRecurrentTest = PluginTest;

TEST_F(PluginRecurrentTest, LstmOfTheMnistExampleQueriesBack) {
  // q)q:module(`lstm;28;128;2;1b;1b)   module q
  KRef q = Call("module", "(`lstm;28;128;2;1b;1b)");
  EXPECT_EQ(S1(Call("module", q)),
            "`depth`module`name`options!(0;`lstm;`;`in`hidden`layers`bias`batchfirst`dropout`bi!("
            "28;128;2;1b;1b;0f;0b))");
  EXPECT_EQ(S1(Call("parmnames", q)),
            "`weight_ih_l0`weight_hh_l0`bias_ih_l0`bias_hh_l0`weight_ih_l1`weight_hh_l1`bias_ih_l1`"
            "bias_hh_l1");
  Call("free", q);
}

TEST_F(PluginRecurrentTest, ForwardGivesOutputHiddenAndCell) {
  // q)q:module(`lstm;2;3)   v:forward(q;x:tensor 4 1 2#0.5e)  -> a vector of output, h and c
  KRef q = Call("module", "(`lstm;2;3)");
  KRef x = Call("tensor", "(enlist 0.5 0.5e;enlist 0.5 0.5e;enlist 0.5 0.5e;enlist 0.5 0.5e)");
  KRef v = Call("forward", List({q.share(), x.share()}));
  EXPECT_EQ(S1(Call("class", v)), "`vector");
  EXPECT_EQ(S1(Call("size", v)), "(4 1 3;1 1 3;1 1 3)");
  // k in: a vector pointer out, as in ktorch; its three parts returned as k arrays and the state
  // fed back in as k arrays.
  KRef parts =
      Call("return",
           Call("forward", List({q.share(), Q("(enlist 0.5 0.5e;enlist 0.5 0.5e)").release()})));
  ASSERT_EQ(parts->t, kabi::kMixed);
  ASSERT_EQ(parts->n, 3);
  KRef next = Call("return", Call("forward", List({q.share(), Q("enlist enlist 0.5 0.5e").release(),
                                                   kabi::r1(kabi::Items(parts.get())[1]),
                                                   kabi::r1(kabi::Items(parts.get())[2])})));
  EXPECT_EQ(next->n, 3);
  Call("free", List({q.share(), x.share(), v.share()}));
}

TEST_F(PluginRecurrentTest, AttentionReturnsOutputAndWeights) {
  // q)a:module(`attention;4;2)   forward(a;x;x;x) -> (output; weights averaged over heads)
  KRef a = Call("module", "(`attention;4;2)");
  KRef x =
      Call("tensor",
           "(enlist 1 2 3 4e;enlist 4 3 2 1e;enlist 0 1 0 1e)");  // 3 steps, 1 batch, 4 features
  KRef v = Call("forward", List({a.share(), x.share(), x.share(), x.share()}));
  EXPECT_EQ(S1(Call("size", v)), "(3 1 4;1 3 3)");
  EXPECT_EQ(Error("forward", List({a.share(), x.share()})),
            "forward: `attention expects 3 to 5 inputs, given 1");
  Call("free", List({a.share(), x.share(), v.share()}));
}

TEST_F(PluginRecurrentTest, DefaultTransformerQueriesBack) {
  // q)m:module`transformer   module m
  KRef m = Call("module", "`transformer");
  EXPECT_EQ(S1(Call("module", m)),
            "`depth`module`name`options!(0;`transformer;`;`in`heads`elayers`dlayers`dim`dropout`fn!"
            "(512;8;6;6;2048;0.1;`relu))");
  Call("free", m);
}

TEST_F(PluginRecurrentTest, BadOptionsAndInputsNameTheKind) {
  EXPECT_EQ(Error("module", "(`lstm;28)"), "lstm: option `hidden required");
  EXPECT_EQ(Error("module", "(`rnn;28;128;1;`sigmoid)"),
            "rnn: unrecognized fn `sigmoid, expecting tanh or relu");
  EXPECT_EQ(Error("module", "(`encoder;512;8)"), "encoder: option `layers required");
  EXPECT_EQ(Error("module", "(`attention;10;3)"),
            "attention: option `dim must be divisible by `heads, given 10 and 3");
  KRef q = Call("module", "(`lstm;2;3)");
  EXPECT_EQ(Error("forward", List({q.share(), Q("enlist enlist 0.5 0.5e").release(),
                                   Q("enlist enlist 0 0 0e").release()})),
            "lstm: expects the input, or the input, hidden state and cell state, given 2 inputs");
  Call("free", q);
}

}  // namespace plugin_recurrent_test
}  // namespace kscope::testing
