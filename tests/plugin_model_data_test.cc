// Model data of several tensors through the plugin: seed 004's "Defining data" sessions (lists
// of tensors, vectors, (vector;indices), separate (vector;index) parts, dictionaries,
// (dictionary;keys) and (dictionary;key) parts), input(m;x1;x2) giving a vector back, data m
// with a list of k arrays, a dictionary input through forward, and the errors.
#include <string>

#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_model_data_test {

class PluginModelDataTest : public PluginTest {
 protected:
  // q)m:model(module`identity; loss`mse; opt`sgd)
  KRef IdentityModel() {
    return Call("model", List({Call("module", "`identity").share(), Call("loss", "`mse").share(),
                               Call("opt", "`sgd").share()}));
  }
  // (count each input m; count target m): the rows of the input's tensors (a dictionary's
  // values) and of the target (the seed's transcript counts values, so both are returned: ktorch
  // gives pointers).
  std::string Counts(const KRef& m) {
    KRef input = Call("return", Call("input", m));
    kabi::K arrays = input->t == kabi::kDictionary ? kabi::DictValues(input.get()) : input.get();
    std::string rows;
    for (long long i = 0; i < arrays->n; ++i)
      rows += (i ? " " : "") + std::to_string(kabi::Items(arrays)[i]->n);
    return rows + ";" + std::to_string(Call("return", Call("target", m))->n);
  }
};

TEST_F(PluginModelDataTest, InputsAsListsVectorsAndDictionariesSeed004) {
  KRef m = IdentityModel();
  Call("train", List({m.share(), kq::Sym("batchsize"), Q("100").share()}));
  KRef x1 = Call("tensor", "(`randn; 500 32)");
  KRef x2 = Call("tensor", "(`randint;10;500)");
  std::string ones;  // q's 500#1.0e
  for (int i = 0; i < 499; ++i) ones += "1 ";
  KRef y = Call("tensor", Q(ones + "1e"));
  // q)train(m; (x1;x2); y) -> 5
  EXPECT_EQ(S1(Call("train", List({m.share(), List({x1.share(), x2.share()}).share(), y.share()}))),
            "5");
  EXPECT_EQ(Counts(m), "500 500;500");
  // q)v:vector(x1;x2); train(m;v) -> 5; (::)~target m
  KRef v = Call("vector", List({x1.share(), x2.share()}));
  EXPECT_EQ(S1(Call("train", List({m.share(), v.share()}))), "5");
  EXPECT_EQ(S1(Call("target", m)), "::");
  KRef in = Call("input", m);
  EXPECT_EQ(S1(Call("class", in)), "`vector");
  EXPECT_EQ(S1(Call("size", in)), "(500 32;,500)");
  Call("free", in);
  // q)train(m;v;y) / train(m; (v;0 1); y) / train(m; ((v;0);(v;1)); y) -> 5
  EXPECT_EQ(S1(Call("train", List({m.share(), v.share(), y.share()}))), "5");
  EXPECT_EQ(Counts(m), "500 500;500");
  EXPECT_EQ(
      S1(Call("train", List({m.share(), List({v.share(), Q("0 1").share()}).share(), y.share()}))),
      "5");
  KRef v0 = List({v.share(), Q("0").share()}), v1 = List({v.share(), Q("1").share()});
  EXPECT_EQ(S1(Call("train", List({m.share(), List({v0.share(), v1.share()}).share(), y.share()}))),
            "5");
  // q)d:dict `a`b!vector v; train(m;d;y) / (d;`a`b) / ((d;`a);(d;`b)) -> 5
  KRef d = Call("dict", KRef(kabi::xD(kq::Syms({"a", "b"}), Call("vector", v).share())));
  EXPECT_EQ(S1(Call("train", List({m.share(), d.share(), y.share()}))), "5");
  EXPECT_EQ(S1(Call("train",
                    List({m.share(), List({d.share(), kq::Syms({"a", "b"})}).share(), y.share()}))),
            "5");
  KRef da = List({d.share(), kq::Sym("a")}), db = List({d.share(), kq::Sym("b")});
  EXPECT_EQ(S1(Call("train", List({m.share(), List({da.share(), db.share()}).share(), y.share()}))),
            "5");
  EXPECT_EQ(Counts(m), "500 500;500");
  in = Call("input", m);
  EXPECT_EQ(S1(Call("class", in)), "`dictionary");
  Call("free", List({in.share(), d.share(), v.share(), y.share(), m.share()}));
}

TEST_F(PluginModelDataTest, DataListsAndInputOfTwoTensorsSeed004) {
  KRef m = IdentityModel();
  // q)data(m; 1 2 3; 10 11 12); data m
  Call("data", List({m.share(), Q("1 2 3").share(), Q("10 11 12").share()}));
  EXPECT_EQ(S1(Call("data", m)), "(1 2 3;10 11 12)");
  // q)data(m; (.1 .2 .3; 3 5#1 2 3 where 3#5); 10 11 12); first data m / last data m
  KRef x = Q("(.1 .2 .3;(1 1 1 1 1;2 2 2 2 2;3 3 3 3 3))");
  EXPECT_EQ(S1(Call("data", List({m.share(), x.share(), Q("10 11 12").share()}))), "1");
  KRef data = Call("data", m);
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::Items(data.get())[0]))), S1(x));
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::Items(data.get())[1]))), "10 11 12");
  // A matrix given alone is one tensor, not a list of rows.
  EXPECT_EQ(S1(Call("data", List({m.share(), Q("(1 2;3 4;5 6)").share(), Q("7 8 9").share()}))),
            "1");
  EXPECT_EQ(S1(Call("datasize", m)), "3");
  Call("free", m);
  // q)m:model(..); x1:tensor(`randn;64 5); x2:tensor(`randn;64 1); input(m;x1;x2) -> 2; v:input m
  m = IdentityModel();
  KRef x1 = Call("tensor", "(`randn;64 5)");
  KRef x2 = Call("tensor", "(`randn;64 1)");
  EXPECT_EQ(S1(Call("input", List({m.share(), x1.share(), x2.share()}))), "2");
  KRef v = Call("input", m);
  EXPECT_EQ(S1(Call("class", v)), "`vector");
  EXPECT_EQ(S1(Call("size", v)), "(64 5;64 1)");
  // q)(tensor x1;tensor x2)~return v
  EXPECT_EQ(S1(List({Call("tensor", x1).share(), Call("tensor", x2).share()})),
            S1(Call("return", v)));
  Call("free", List({x1.share(), x2.share(), m.share()}));
}

TEST_F(PluginModelDataTest, ADictionaryInputFeedsATwoInputForward) {
  KRef m = Call("model", List({Call("module", "`mul").share(), Call("loss", "`mse").share(),
                               Call("opt", "`sgd").share()}));
  KRef d = Call("dict", "`a`b!(1 2 3e;10 20 30e)");
  EXPECT_EQ(S1(Call("train", List({m.share(), d.share(), Q("1 2 3e").share()}))), "1");
  EXPECT_EQ(S1(Call("return", Call("nforward", m))), "10 40 90e");
  EXPECT_EQ(S1(Call("data", m)), "(`a`b!(1 2 3e;10 20 30e);1 2 3e)");
  Call("free", List({d.share(), m.share()}));
}

TEST_F(PluginModelDataTest, BadPartsLeaveTheDataAsItWas) {
  KRef m = IdentityModel();
  Call("train", List({m.share(), Q("1 2 3").share(), Q("4 5 6").share()}));
  KRef v = Call("vector", "(1 2 3;4 5 6)");
  KRef q = Call("module", "`relu");
  EXPECT_EQ(Error("train", List({m.share(), List({v.share(), Q("0 2").share()}).share()})),
            "train: vector index 2 out of range for 2 tensor(s)");
  EXPECT_EQ(Error("train", List({m.share(), q.share()})),
            "train: expected tensor, vector or dictionary, given module");
  EXPECT_EQ(Error("input", List({m.share(), v.share(), Q("1 2").share()})),
            "tensor size mismatch, 3 vs 2");
  EXPECT_EQ(S1(Call("data", m)), "(1 2 3;4 5 6)");
  Call("free", List({v.share(), q.share(), m.share()}));
}

}  // namespace plugin_model_data_test
}  // namespace kscope::testing
