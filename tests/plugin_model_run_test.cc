// Model data, batching and calculation through the plugin: the data, datasize, input, target,
// batch, forward, loss and run sessions of seed 004 (batch counts, batch contents, the size
// mismatch error, metric shapes), testbatch, batchinit, restore, shuffle and unshuffle on models.
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_model_run_test {

// The q literal of the long list f(0) .. f(n-1) (q's `from+til n`, `n#0 1` and the like).
template <typename F>
std::string Longs(std::int64_t n, F f) {
  std::vector<std::string> items;
  for (std::int64_t i = 0; i < n; ++i) items.push_back(std::to_string(f(i)));
  return absl::StrJoin(items, " ");
}

std::string Til(std::int64_t n, std::int64_t from = 0) {
  return Longs(n, [&](std::int64_t i) { return from + i; });
}

class PluginModelRunTest : public PluginTest {
 protected:
  // q)m:model(module`identity; loss`mse; opt`sgd)
  KRef IdentityModel() {
    return Call("model", List({Call("module", "`identity").share(), Call("loss", "`mse").share(),
                               Call("opt", "`sgd").share()}));
  }
};

TEST_F(PluginModelRunTest, DataAndBatchesSeed004) {
  // q)m:model(module`relu; loss`ce;opt`sgd); train(m;`batchsize;3); data(m;1+til 10;100+til 10)
  KRef m = IdentityModel();
  Call("train", List({m.share(), kq::Sym("batchsize"), Q("3").share()}));
  EXPECT_EQ(S1(Call("data", List({m.share(), Q(Til(10, 1)).share(), Q(Til(10, 100)).share()}))),
            "4");
  EXPECT_EQ(S1(Call("datasize", m)), "10");
  std::vector<std::string> seen;
  while (S1(Call("batch", m)) == "1b") {
    seen.push_back(S1(List({Call("datasize", m).share(), Call("data", m).share()})));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"(3;(1 2 3;100 101 102))", "(3;(4 5 6;103 104 105))",
                                            "(3;(7 8 9;106 107 108))", "(1;(,10;,109))"}));
  EXPECT_EQ(S1(Call("datasize", m)), "10");
  Call("free", m);
}

TEST_F(PluginModelRunTest, TrainInputAloneSeed004) {
  // q)train(m;`batchsize;3); train(m; til 7) -> 3; data m -> 0 .. 6 and :: (input; no target)
  KRef m = IdentityModel();
  Call("train", List({m.share(), kq::Sym("batchsize"), Q("3").share()}));
  EXPECT_EQ(S1(Call("train", List({m.share(), Q(Til(7)).share()}))), "3");
  EXPECT_EQ(S1(Call("data", m)), "(0 1 2 3 4 5 6;::)");
  EXPECT_EQ(S1(Call("target", m)), "::");
  // q)test(m;`batchsize;5); test(m;til 10) -> 2; while[testbatch m; ..]
  Call("test", List({m.share(), kq::Sym("batchsize"), Q("5").share()}));
  EXPECT_EQ(S1(Call("test", List({m.share(), Q(Til(10)).share()}))), "2");
  std::vector<std::string> seen;
  while (S1(Call("testbatch", m)) == "1b") seen.push_back(S1(Call("testdata", m)));
  EXPECT_EQ(seen, (std::vector<std::string>{"(0 1 2 3 4;::)", "(5 6 7 8 9;::)"}));
  EXPECT_EQ(
      S1(Call("testdata", List({m.share(), Q(Til(100)).share(),
                                Q(Longs(100, [](std::int64_t i) { return i % 2; })).share()}))),
      "20");
  Call("free", m);
}

TEST_F(PluginModelRunTest, InputHandleShowsBatchesSeed004) {
  KRef m = IdentityModel();
  Call("train", List({m.share(), kq::Sym("batchsize"), Q("16").share()}));
  EXPECT_EQ(S1(Call("input", List({m.share(), Q(Til(64, 101)).share()}))), "4");
  EXPECT_EQ(S1(Call("return", Call("input", m))), S1(Q(Til(64, 101))));
  EXPECT_EQ(S1(Call("batch", m)), "1b");
  EXPECT_EQ(S1(Call("return", Call("input", m))), S1(Q(Til(16, 101))));
  EXPECT_EQ(S1(Call("restore", m)), "64");
  EXPECT_EQ(S1(Call("batchinit", m)), "4");
  Call("free", m);
}

TEST_F(PluginModelRunTest, SizeMismatchSeed004) {
  KRef m = IdentityModel();
  EXPECT_EQ(Error("train", List({m.share(), Q(Longs(100, [](std::int64_t) { return 0; })).share(),
                                 Q(Longs(10, [](std::int64_t) { return 1; })).share()})),
            "tensor size mismatch, 100 vs 10");
  EXPECT_EQ(S1(Call("datasize", m)), "0");
  KRef l = Call("loss", "`mse");
  EXPECT_EQ(Error("batch", l), "batch: unrecognized arg(s) - loss");
  Call("free", List({m.share(), l.share()}));
}

TEST_F(PluginModelRunTest, ShuffleUnshuffleModel) {
  KRef m = IdentityModel();
  Call("train", List({m.share(), Q(Til(50)).share(), Q(Til(50)).share()}));
  Call("shuffle", m);
  KRef d = Call("data", m);
  EXPECT_NE(S1(d), S1(Q("(" + Til(50) + ";" + Til(50) + ")")));
  EXPECT_EQ(S1(Call("unshuffle", m)), "::");
  EXPECT_EQ(S1(Call("data", m)), S1(Q("(" + Til(50) + ";" + Til(50) + ")")));
  Call("free", m);
}

TEST_F(PluginModelRunTest, ForwardAndLossOfBatchesSeed004) {
  KRef m = IdentityModel();
  EXPECT_EQ(S1(Call("batchinit", m)), "-1");  // no training data defined
  Call("train", List({m.share(), kq::Sym("batchsize"), Q("3").share()}));
  EXPECT_EQ(S1(Call("train", List({m.share(), Q(".1 2.7 3 4 5 6 7e").share(),
                                   Q("1 2 3 4 5 6 7e").share()}))),
            "3");
  std::vector<std::string> seen;
  // q)while[batch m; use[l]loss(m;input m;target m); show tensor l]
  while (S1(Call("batch", m)) == "1b") {
    seen.push_back(S1(Call("return", Call("forward", m))));
    KRef d = Call("data", m);
    KRef l = Call("loss", List({m.share(), kabi::r1(kabi::Items(d.get())[0]),
                                kabi::r1(kabi::Items(d.get())[1])}));
    seen.push_back(S1(Call("return", l)));  // a pointer, as ktorch's, k data given or not
  }
  EXPECT_EQ(seen,
            (std::vector<std::string>{"0.1 2.7 3e", "0.4333333e", "4 5 6e", "0e", ",7e", "0e"}));
  Call("free", m);
}

TEST_F(PluginModelRunTest, RunMetricsAsDictionarySeed004) {
  KRef q = Call("module", "(`linear;784;10)");
  KRef m = Call("model", List({q.share(), Call("loss", "`ce").share(),
                               Call("opt", List({kq::Sym("sgd"), q.share()})).share()}));
  Call("train", List({m.share(), kq::Syms({"batchsize", "dictionary", "metrics"}),
                      Q("(100;1b;`loss`batchloss)").share()}));
  KRef x = Call("tensor", Q("(`randn;600 784)"));
  KRef y = Call("tensor", Q("(`randint;10;600)"));
  EXPECT_EQ(S1(Call("train", List({m.share(), x.share(), y.share()}))), "6");
  KRef r = Call("run", m);
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::DictKeys(r.get())))), "`loss`batchloss");
  // loss| 2.44: a float (a real on the 2.x line, as ktorch 2.3)
  EXPECT_EQ(kabi::Items(kabi::DictValues(r.get()))[0]->t, LossAtomType());
  EXPECT_EQ(kabi::Items(kabi::DictValues(r.get()))[1]->n, 6);
  EXPECT_EQ(Call("backward", m)->t, -kabi::kReal);  // the loss's own type: 2.358e
  // One metric alone is that value; with `tensor and `dictionary, one dictionary pointer.
  Call("train",
       List({m.share(), kq::Syms({"dictionary", "metrics"}), Q("(0b;`batchloss)").share()}));
  EXPECT_EQ(Call("run", m)->t, kabi::kReal);
  Call("train", List({m.share(), kq::Syms({"tensor", "dictionary", "metrics"}),
                      Q("(1b;1b;`loss`accuracy)").share()}));
  KRef d = Call("run", m);
  EXPECT_EQ(S1(Call("class", d)), "`dictionary");
  Call("free", d);
  Call("free", List({m.share(), x.share(), y.share()}));
}

}  // namespace plugin_model_run_test
}  // namespace kscope::testing
