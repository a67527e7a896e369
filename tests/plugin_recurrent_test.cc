// Recurrent and transformer layers through the plugin, as q sessions: the lstm of ktorch's
// MNIST example made and queried, forwards giving every part of the result (a vector pointer for
// a tensor pointer in, a k list for k data in), the transformer kinds' nested definitions in
// ktorch's forms, and the error texts of bad options and inputs.
#include <string>

#include "absl/strings/str_cat.h"
#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_recurrent_test {

using PluginRecurrentTest = PluginTest;

// A (d0, d1, d2) array of reals step, 2*step, ... written as a q literal of nested lists.
KRef Cube(int d0, int d1, int d2, double step) {
  std::string text = "(";
  int k = 0;
  for (int i = 0; i < d0; ++i) {
    absl::StrAppend(&text, i ? ";" : "", d1 == 1 ? "enlist " : "(");
    for (int j = 0; j < d1; ++j) {
      absl::StrAppend(&text, j ? ";" : "");
      for (int l = 0; l < d2; ++l) absl::StrAppend(&text, l ? " " : "", ++k * step);
      absl::StrAppend(&text, "e");
    }
    absl::StrAppend(&text, d1 == 1 ? "" : ")");
  }
  return Q(text + ")");
}

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
            "`depth`module`name`options!(0;`transformer;`;`in`heads`elayers`dlayers`dim`dropout`fn"
            "`encoder`decoder!(512;8;6;6;2048;0.1;`relu;`symbol$()!();`symbol$()!()))");
  Call("free", m);
}

TEST_F(PluginRecurrentTest, EncoderTakesItsLayerAndNormAsKtorchWritesThem) {
  // q)e:module enlist(`encoder;(`encoderlayer;8;2;16;0.0);2;::)   options e
  const std::string expected =
      "`encoderlayer`layers`layernorm!(`in`heads`dim`dropout`fn!(8;2;16;0f;`relu);2;"
      "`shape`eps`affine!(,8;1e-06;1b))";
  for (const char* definition :
       {"enlist(`encoder;(`encoderlayer;8;2;16;0.0);2;`layernorm;(`layernorm;8;1e-6))",
        "enlist(`encoder;(`encoderlayer;`e;8;2;16;0.0);`layers;2;`layernorm;(8;1e-6))",
        "enlist(`encoder;(8;2;`dim;16;`dropout;0.0);2;`layernorm;`shape`eps!(8;1e-6))",
        "enlist(`encoder;`encoderlayer`layers`layernorm!((`in`heads`dim`dropout!(8;2;16;0.0));2;"
        "(8;1e-6)))"}) {
    KRef e = Call("module", definition);
    EXPECT_EQ(S1(Call("options", e)), expected) << definition;
    // state gives the definition back: a module made from it has the same options and values
    KRef copy = Call("module", Call("state", e));
    EXPECT_EQ(S1(Call("options", copy)), expected) << definition;
    KRef x = Cube(3, 1, 8, 0.1);
    EXPECT_EQ(S1(Call("evaluate", List({e.share(), x.share()}))),
              S1(Call("evaluate", List({copy.share(), x.share()}))));
    Call("free", List({e.share(), copy.share()}));
  }
  // no final norm: ktorch's empty dictionary, read back as none
  KRef plain = Call("module", "enlist(`encoder;16 4;1)");
  EXPECT_EQ(S1(Call("options", plain)),
            "`encoderlayer`layers`layernorm!(`in`heads`dim`dropout`fn!(16;4;2048;0.1;`relu);1;"
            "`symbol$()!())");
  KRef again = Call("module", Call("state", plain));
  EXPECT_EQ(S1(Call("options", again)), S1(Call("options", plain)));
  // an existing module cannot stand for the layer (ktorch copies it): the message says what to do
  KRef layer = Call("module", "enlist(`encoderlayer;8;2)");
  EXPECT_EQ(Error("module", List({Q("`encoder").release(), layer.share(), kq::Long(1)})),
            "encoder: option `encoderlayer expects a definition of encoderlayer, given a pointer "
            "(define the encoderlayer in place)");
  Call("free", List({plain.share(), again.share(), layer.share()}));
}

TEST_F(PluginRecurrentTest, TransformerTakesACustomEncoder) {
  // q)t:module enlist(`transformer;`in`heads`dim`dropout`encoder!(8;2;16;0.0;(`encoder;8 2;1;8)))
  KRef t =
      Call("module",
           "enlist(`transformer;`in`heads`dim`dropout`encoder!(8;2;16;0.0;(`encoder;8 2;1;8)))");
  EXPECT_EQ(S1(Call("options", t)),
            "`in`heads`elayers`dlayers`dim`dropout`fn`encoder`decoder!(8;2;6;6;16;0f;`relu;"
            "`module`options!(`encoder;`encoderlayer`layers`layernorm!(`in`heads`dim`dropout`fn!("
            "8;2;2048;0.1;`relu);1;`shape`eps`affine!(,8;1e-05;1b)));`symbol$()!())");
  EXPECT_THAT(S1(Call("parmnames", t)), ::testing::HasSubstr("`encoder.layers.0.linear1.weight"));
  EXPECT_THAT(S1(Call("parmnames", t)),
              ::testing::Not(::testing::HasSubstr("`encoder.layers.1.linear1.weight")));
  KRef y =
      Call("forward", List({t.share(), Cube(5, 3, 8, 0.01).share(), Cube(4, 3, 8, 0.02).share()}));
  EXPECT_EQ(S1(Call("size", y)), "4 3 8");
  EXPECT_EQ(Error("module", "enlist(`transformer;`in`heads`decoder!(8;2;(`encoder;8 2;1)))"),
            "transformer: option `decoder expects a definition of decoder, given encoder");
  Call("free", List({t.share(), y.share()}));
}

TEST_F(PluginRecurrentTest, BadOptionsAndInputsNameTheKind) {
  EXPECT_EQ(Error("module", "(`lstm;28)"), "lstm: option `hidden required");
  EXPECT_EQ(Error("module", "(`rnn;28;128;1;`sigmoid)"),
            "rnn: unrecognized fn `sigmoid, expecting tanh or relu");
  EXPECT_EQ(Error("module", "enlist(`encoder;(512;8))"), "encoder: option `layers required");
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
