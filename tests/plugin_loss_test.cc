// The new loss forms and the functional forms of layers through the plugin, as q calls them:
// ctc by object (loss(l;lp;y;nx;ny), without ktorch's off-by-one) and by function, bce and
// bcelogits batch weights, the distances, `loss kdict`, and layers' functional forms with k
// data and pointers.
#include <string>

#include "absl/algorithm/container.h"
#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_loss_test {

using PluginLossTest = PluginTest;
using PluginFunctionalTest = PluginTest;

// CTC over 2 steps of 1 sequence, 2 classes, both 0.5 at each step, target ,1: the alignments
// 11 01 10 have probability 3/4, the loss is -ln 0.75.
constexpr char kLogProbs[] = "(enlist -0.6931472 -0.6931472e;enlist -0.6931472 -0.6931472e)";
constexpr char kMinusLnThreeQuarters[] = "0.2876821e";

TEST_F(PluginLossTest, CtcObjectReadsItsFourthTensor) {
  // q)l:loss`ctc  loss(l;lp;y;nx;ny)
  KRef l = Call("loss", "`ctc");
  EXPECT_EQ(S1(Call("loss", l)), "`module`options!(`ctc;`blank`zeroinf`reduce!(0;0b;`mean))");
  KRef lp = Call("tensor", kLogProbs);
  KRef y = Call("tensor", "enlist enlist 1");
  KRef nx = Call("tensor", "enlist 2"), ny = Call("tensor", "enlist 1");
  KRef z = Call("loss", List({l.share(), lp.share(), y.share(), nx.share(), ny.share()}));
  EXPECT_EQ(S1(Call("return", z)), kMinusLnThreeQuarters);
  // Data in, a pointer out (as ktorch); input lengths (2) and target lengths (1) are not
  // interchangeable.
  KRef data = List({l.share(), Q(kLogProbs).share(), Q("enlist enlist 1").share(),
                    Q("enlist 2").share(), Q("enlist 1").share()});
  EXPECT_EQ(S1(Call("return", Call("loss", data))), kMinusLnThreeQuarters);
  EXPECT_EQ(Error("loss", List({l.share(), lp.share(), y.share(), nx.share()})),
            "loss: `ctc expects 4 inputs, given 3");
  Call("free", List({l.share(), lp.share(), y.share(), nx.share(), ny.share()}));
}

// A loss object answers with a pointer whatever its inputs' form, as ktorch does (1.13 and 2.3):
// k arrays, tensors, a vector's tensors, vector elements, dictionary entries, mixed.
TEST_F(PluginLossTest, ALossObjectGivesAPointerForEveryInputForm) {
  // q)l:loss`mse; r:loss(l;1 2 3e;1 2 4e); tensor r; free r
  KRef l = Call("loss", "`mse");
  KRef w = Call("tensor", "1 2 3e"), z = Call("tensor", "1 2 4e");
  KRef v = Call("vector", "(1 2 3e;1 2 4e)");
  KRef d = Call("dict", "`x`y!(1 2 3e;1 2 4e)");
  auto gives_a_pointer = [&](const KRef& form) {
    KRef r = Call("loss", form);
    ASSERT_GT(PointerId(r), 0) << S1(form);
    EXPECT_EQ(S1(Call("tensor", r)), "0.3333333e") << S1(form);
    Call("free", r);
  };
  gives_a_pointer(List({l.share(), Q("1 2 3e").share(), Q("1 2 4e").share()}));
  gives_a_pointer(List({l.share(), w.share(), z.share()}));
  gives_a_pointer(List({l.share(), w.share(), Q("1 2 4e").share()}));
  gives_a_pointer(List({l.share(), v.share()}));
  gives_a_pointer(List({l.share(), List({v.share(), Q("0 1").share()}).share()}));
  gives_a_pointer(List(
      {l.share(), List({v.share(), kq::Long(0)}).share(), List({v.share(), kq::Long(1)}).share()}));
  gives_a_pointer(List({l.share(), List({d.share(), kq::Sym("x")}).share(),
                        List({d.share(), kq::Sym("y")}).share()}));
  EXPECT_EQ(Error("loss", List({l.share(), d.share()})),
            "loss: arg[1] is a dictionary: give its inputs by key, (dictionary;keys)");
  EXPECT_EQ(Error("loss", List({l.share(), Q("1 2 3e").share()})),
            "loss: `mse expects 2 inputs, given 1");
  Call("free", List({l.share(), w.share(), z.share(), v.share(), d.share()}));
}

// A module, or a model, given a vector element or a dictionary entry takes it as one input.
TEST_F(PluginLossTest, ForwardTakesAVectorElementOrADictionaryEntry) {
  KRef q = Call("module", "enlist(`linear;2;1)");
  KRef t = Call("tensor", "(1 2e;3 4e)");
  KRef v = Call("vector", "((1 2e;3 4e);(5 6e;7 8e))");
  KRef d = Call("dict", "`a`b!((1 2e;3 4e);(5 6e;7 8e))");
  const std::string expected = S1(Call("evaluate", List({q.share(), t.share()})));
  EXPECT_EQ(S1(Call("evaluate", List({q.share(), List({v.share(), kq::Long(0)}).share()}))),
            expected);
  EXPECT_EQ(S1(Call("evaluate", List({q.share(), List({d.share(), kq::Sym("a")}).share()}))),
            expected);
  KRef r = Call("forward", List({q.share(), List({v.share(), kq::Long(0)}).share()}));
  EXPECT_EQ(S1(Call("tensor", r)), expected);
  Call("free", List({q.share(), t.share(), v.share(), d.share(), r.share()}));
}

TEST_F(PluginLossTest, CtcFunction) {
  // q)ctc(lp;y;nx;ny[;blank;zeroinf;reduce])
  const std::string inputs = std::string("(") + kLogProbs + ";enlist enlist 1;enlist 2;enlist 1";
  EXPECT_EQ(S1(Call("ctc", inputs + ")")), kMinusLnThreeQuarters);
  EXPECT_EQ(S1(Call("ctc", inputs + ";0;1b;`none)")), std::string(",") + kMinusLnThreeQuarters);
  EXPECT_EQ(S1(Call("ctc", inputs + ";`reduce;`sum)")), kMinusLnThreeQuarters);
  EXPECT_EQ(Error("ctc", "(1 2e;1 2)"), "ctc: unrecognized arg(s) - general list");
}

TEST_F(PluginLossTest, BceBatchWeights) {
  // Every term is ln 2 (probabilities 0.5), weighted 1 and 3.
  EXPECT_EQ(S1(Call("bce", "(0.5 0.5;1 0f;1 3f)")), "1.386294");       // 2 ln 2
  EXPECT_EQ(S1(Call("bce", "(0.5 0.5;1 0f;1 3f;`sum)")), "2.772589");  // 4 ln 2
  EXPECT_EQ(S1(Call("bce", "(0.5 0.5;1 0f;`sum)")), "1.386294");       // no batch weight
  KRef l = Call("loss", "`bce");
  KRef w = Call("tensor", "1 3f");
  KRef z = Call("loss", List({l.share(), Q("0.5 0.5").share(), Q("1 0f").share(), w.share()}));
  EXPECT_EQ(S1(Call("return", z)), "1.386294");
  EXPECT_EQ(Error("loss", List({l.share(), w.share(), w.share(), w.share(), w.share()})),
            "loss: `bce expects 2 to 3 inputs, given 4");
  Call("free", List({l.share(), w.share()}));
}

TEST_F(PluginLossTest, BceLogitsClassAndBatchWeights) {
  // Logits 0: every term ln 2; class weight 2 on the positive target, batch weights 1 3.
  EXPECT_EQ(S1(Call("bcelogit1", "(0 0f;1 0f;2 2f;`sum)")), "2.079442");       // 2 ln 2 + ln 2
  EXPECT_EQ(S1(Call("bcelogit2", "(0 0f;1 0f;1 3f;2 2f;`sum)")), "3.465736");  // 2 ln 2 + 3 ln 2
  EXPECT_EQ(S1(Call("bcelogit2", "(0 0f;1 0f;1 3f)")), "1.386294");  // (ln 2 + 3 ln 2) % 2
  KRef l = Call("loss", "(`bcelogits;2 2f;`sum)");
  EXPECT_EQ(S1(Call("return", Call("loss", List({l.share(), Q("0 0f").share(), Q("1 0f").share(),
                                                 Q("1 3f").share()})))),
            "3.465736");
  Call("free", l);
}

TEST_F(PluginLossTest, DistancesAsLosses) {
  KRef l = Call("loss", "(`pairwise;1;0f)");
  EXPECT_EQ(S1(Call("loss", l)), "`module`options!(`pairwise;`p`eps`keepdim!(1f;0f;0b))");
  EXPECT_EQ(
      S1(Call("return",
              Call("loss", List({l.share(), Q("enlist 0 0f").share(), Q("enlist 3 4f").share()})))),
      ",7f");
  KRef s = Call("loss", "`similar");
  EXPECT_EQ(
      S1(Call("return",
              Call("loss", List({s.share(), Q("enlist 1 0f").share(), Q("enlist 2 0f").share()})))),
      ",1f");
  EXPECT_EQ(Error("loss", "(`similar;1;1e-8;`sum)"),
            "similar: 3 positional option(s) given, expecting at most 2");
  Call("free", List({l.share(), s.share()}));
}

TEST_F(PluginLossTest, RecreatedFromTheDictionaryOfLossL) {
  // q)d:loss l  l2:loss d  loss[l2]~d   (seed 002: l:loss d`loss)
  for (const char* definition :
       {"`ce", "(`mse;`sum)", "(`triplet;`swap;1b)", "(`ctc;1;1b;`sum)", "(`pairwise;1)"}) {
    SCOPED_TRACE(definition);
    KRef l = Call("loss", definition);
    for (bool all : {true, false}) {
      KRef d = Call("loss", List({l.share(), kq::Bool(all)}));
      KRef l2 = Call("loss", d);
      EXPECT_EQ(S1(Call("loss", l2)), S1(Call("loss", l)));
      Call("free", l2);
    }
    Call("free", l);
  }
  EXPECT_EQ(Error("loss", "`module`options!(`cee;()!())"), "unrecognized loss function: cee");
  EXPECT_EQ(Error("loss", "`module`options!(`ce;(enlist `ignore)!enlist 1.5)"),
            "ce: option `ignore expects long, given double");
  EXPECT_EQ(Error("loss", "`kind`options!(`ce;()!())"),
            "loss: unexpected key `kind in a loss dictionary, expecting `module`options");
  EXPECT_EQ(Error("loss", "`module`options!(`ce;1 2)"),
            "loss: `options expects a dictionary, given long list");
  EXPECT_EQ(Error("loss", "(enlist `options)!enlist ()!()"),
            "loss: no `module in the loss dictionary");
}

TEST_F(PluginFunctionalTest, DataInDataOut) {
  EXPECT_EQ(S1(Call("relu", "-1 2 -3f")), "0 2 0f");
  EXPECT_EQ(S1(Call("leakyrelu", "(-1 2f;0.5)")), "-0.5 2");
  EXPECT_EQ(S1(Call("leakyrelu", "(-1 2f;`slope;0.25)")), "-0.25 2");
  EXPECT_EQ(S1(Call("hardtanh", "(-3 0.5 3f;`max;2f)")), "-1 0.5 2");
  EXPECT_EQ(S1(Call("threshold", "(1 2 3f;1.5;0f)")), "0 2 3f");
  EXPECT_EQ(S1(Call("glu", "1 2 3 4f")), "0.9525741 1.964028");  // 1 2 * sigmoid 3 4
  EXPECT_EQ(S1(Call("maxpool1d", "(enlist enlist 1 3 2 5f;2)")), ",,3 5f");
  EXPECT_EQ(S1(Call("avgpool1d", "(enlist enlist 1 3 2 5f;`size;2)")), ",,2 3.5");
  // ktorch's functional flatten: from dimension 0, a k array read whole
  EXPECT_EQ(S1(Call("flatten", "enlist (1 2f;3 4f)")), "1 2 3 4f");
  EXPECT_EQ(S1(Call("flatten", "((1 2f;3 4f);0)")), "1 2 3 4f");
}

TEST_F(PluginFunctionalTest, KLayersAndDistances) {
  // q)zscore(x;mean;std) per column of a matrix; onehot(y;classes); pad(x;pads)
  EXPECT_EQ(S1(Call("zscore", "((1 3f;5 7f);1 3f;2 4f)")), "(0 0f;2 1f)");
  EXPECT_EQ(S1(Call("onehot", "(0 2 1;3)")), "(1 0 0e;0 0 1e;0 1 0e)");
  EXPECT_EQ(S1(Call("pad", "(1 2f;1 2)")), "0 1 2 0 0f");
  EXPECT_EQ(S1(Call("interpolate", "(enlist enlist 1 2f;`size;4)")), ",,1 1 2 2f");
  EXPECT_EQ(S1(Call("pairwise", "(enlist 0 0f;enlist 3 4f;1;0f)")), ",7f");
  EXPECT_EQ(S1(Call("similar", "(enlist 1 0f;enlist 1 1f)")), ",0.7071068");
  EXPECT_EQ(Error("zscore", "1 2f"), "zscore: option `mean required");
}

TEST_F(PluginFunctionalTest, PointerInPointerOut) {
  KRef x = Call("tensor", "-1 2 -3f");
  KRef y = Call("relu", x);
  EXPECT_EQ(S1(Call("class", y)), "`tensor");
  EXPECT_EQ(S1(Call("tensor", y)), "0 2 0f");
  KRef z = Call("elu", List({x.share(), kq::Sym("alpha"), kq::Float(2)}));
  EXPECT_EQ(S1(Call("tensor", z)), "-1.264241 2 -1.900426");  // 2 * (exp x) - 1 below 0
  // inplace: the pointer's tensor changes and nothing is returned
  EXPECT_EQ(S1(Call("relu", List({x.share(), kq::Bool(true)}))), "::");
  EXPECT_EQ(S1(Call("tensor", x)), "0 2 0f");
  Call("free", List({x.share(), y.share(), z.share()}));
}

TEST_F(PluginFunctionalTest, ExplicitWeightsAndPdist) {
  // q)linear(x;w[;b])  x 1x2, w 1x2, b 1
  EXPECT_EQ(S1(Call("linear", "(enlist 1 2f;enlist 3 4f)")), ",,11f");
  EXPECT_EQ(S1(Call("linear", "(enlist 1 2f;enlist 3 4f;enlist 1f)")), ",,12f");
  KRef w = Call("tensor", "enlist 3 4f");
  KRef y = Call("linear", List({Q("enlist 1 2f").share(), w.share()}));
  EXPECT_EQ(S1(Call("tensor", y)), ",,11f");
  EXPECT_EQ(S1(Call("prelu", "(-1 2f;enlist 0.5)")), "-0.5 2");
  // q)pdist(0 0f;3 4f) -> ,5f   pdist(x;1) -> ,7f
  EXPECT_EQ(S1(Call("pdist", "(0 0f;3 4f)")), ",5f");  // a k matrix read whole, as ktorch does
  EXPECT_EQ(S1(Call("pdist", "((0 0f;3 4f);1)")), ",7f");
  Call("free", List({w.share(), y.share()}));
}

TEST_F(PluginFunctionalTest, ErrorsNameTheForm) {
  EXPECT_EQ(Error("relu", "()"), "relu: unrecognized arg(s) - general list");
  EXPECT_EQ(Error("leakyrelu", "(1 2f;`a)"),
            "leakyrelu: option `slope expects double, given symbol");
  EXPECT_EQ(Error("threshold", "1 2f"), "threshold: option `threshold required");
  EXPECT_EQ(Error("linear", "enlist 1 2f"), "linear: unrecognized arg(s) - general list");
  EXPECT_EQ(Error("pdist", "((0 0f;3 4f);`q;1)"),
            "pdist: 2 positional option(s) given, expecting at most 1");
  EXPECT_EQ(Error("pdist", "((0 0f;3 4f);`p;1;`q;2)"), "pdist: unrecognized option `q");
}

TEST_F(PluginFunctionalTest, ExportedOnceEach) {
  const std::vector<std::string> names = Plugin().Names();
  for (const char* form :
       {"adaptavg1d", "adaptavg2d",  "adaptavg3d", "adaptmax1d", "adaptmax2d", "adaptmax3d",
        "avgpool1d",  "avgpool2d",   "avgpool3d",  "bilinear",   "celu",       "elu",
        "flatten",    "fmaxpool2d",  "fmaxpool3d", "fold",       "glu",        "hardshrink",
        "hardtanh",   "interpolate", "leakyrelu",  "linear",     "logsigmoid", "logsoftmax",
        "lppool1d",   "lppool2d",    "maxpool1d",  "maxpool2d",  "maxpool3d",  "normalize",
        "onehot",     "pad",         "pairwise",   "pdist",      "prelu",      "randomcrop",
        "randomflip", "relu6",       "relu",       "rrelu",      "selu",       "similar",
        "softmax",    "softmin",     "softplus",   "softshrink", "softsign",   "tanhshrink",
        "threshold",  "unfold",      "zscore",     "ctc",        "bcelogit2"}) {
    EXPECT_EQ(absl::c_count(names, form), 1) << form;
  }
}

}  // namespace plugin_loss_test
}  // namespace kscope::testing
