// Module introspection, parameter values and state through the plugin, as q calls them:
// buffer buffers buffernames names modules moduletypes parmtypes freeze unfreeze copyparms
// avgparms, and state / module(state) / clone (seed 002's model state session, for a module).
#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_module_parameters_test {

constexpr char kNet[] = "(`sequential;(`linear;`a;4;3);(`batchnorm1d;`b;3);(`relu;`c))";

class ModuleFixture : public PluginTest {
 protected:
  // q)q:module seq tree
  KRef Net(const char* tree = kNet) { return Call("module", Call("seq", tree)); }
};

using PluginModuleParametersTest = ModuleFixture;
using PluginStateTest = ModuleFixture;

KRef Item(const KRef& list, long long i) { return KRef(kabi::r1(kabi::Items(list.get())[i])); }

TEST_F(PluginModuleParametersTest, BuffersNamesAndKinds) {
  KRef q = Net();
  EXPECT_EQ(S1(Call("buffernames", q)), "`b.running_mean`b.running_var`b.num_batches_tracked");
  EXPECT_EQ(S1(Call("names", q)), "`a`b`c");
  EXPECT_EQ(S1(Call("moduletypes", q)), "``a`b`c!`sequential`linear`batchnorm1d`relu");
  EXPECT_EQ(S1(Call("moduletypes", List({q.share(), kq::Sym("relu")}))), ",`c");
  EXPECT_EQ(S1(Call("moduletypes", List({q.share(), kq::Syms({"relu", "linear"})}))),
            "`a`c!`linear`relu");
  EXPECT_EQ(S1(Call("parmtypes", q)),
            "`a.weight`a.bias`b.weight`b.bias!`linear`linear`batchnorm1d`batchnorm1d");
  // q)b:buffer(q;`b.running_mean)  buffer(q;`b.running_mean;1 2 3e)  tensor b -> 1 2 3e
  KRef b = Call("buffer", List({q.share(), kq::Sym("b.running_mean")}));
  EXPECT_EQ(S1(Call("tensor", b)), "0 0 0e");
  EXPECT_EQ(S1(Call("buffer", List({q.share(), kq::Sym("b.running_mean"), kq::Reals({1, 2, 3})}))),
            "::");
  EXPECT_EQ(S1(Call("tensor", b)), "1 2 3e");
  KRef d = Call("buffers", List({q.share(), kq::Sym("b")}));
  EXPECT_EQ(S1(Call("class", d)), "`dictionary");
  EXPECT_EQ(S1(Call("dict", d)), "`running_mean`running_var`num_batches_tracked!(1 2 3e;1 1 1e;0)");
  // q)m:modules q -> a dictionary name -> pointers, sharing q's submodules
  KRef m = Call("modules", q);
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::DictKeys(m.get())))), "`a`b`c");
  KRef a = Item(KRef(kabi::r1(kabi::DictValues(m.get()))), 0);
  EXPECT_EQ(S1(Call("module", a)),
            "`depth`module`name`options!(0;`linear;`a;`in`out`bias!(4;3;1b))");
  EXPECT_EQ(S1(Call("ref", a)), "3");  // as for children: the sequential holds it twice
  Call("free", m);
  EXPECT_EQ(S1(Call("names", List({q.share(), kq::Sym("a")}))), "`symbol$()");
  EXPECT_EQ(Error("buffer", List({q.share(), kq::Sym("foo")})),
            "buffer: no buffer `foo in sequential module");
  EXPECT_EQ(Error("modules", List({q.share(), kq::Sym("x")})),
            "modules: no child module `x in sequential module");
  EXPECT_EQ(Error("buffer", List({q.share(), kq::Sym("b.running_mean"), kq::Reals({1, 2})})),
            "buffer: size mismatch for buffer `b.running_mean, 3 vs 2");
  EXPECT_EQ(S1(Call("tensor", b)), "1 2 3e");
  Call("free", List({q.share(), b.share(), d.share()}));
}

TEST_F(PluginModuleParametersTest, FreezeForms) {
  KRef q = Call("module", "enlist(`linear;2;1)");
  KRef w = Call("parm", List({q.share(), kq::Sym("weight")}));
  KRef b = Call("parm", List({q.share(), kq::Sym("bias")}));
  Call("freeze", q);
  EXPECT_EQ(S1(Call("gradflag", w)), "0b");
  EXPECT_EQ(S1(Call("unfreeze", List({q.share(), kq::Sym("bias")}))), "::");
  EXPECT_EQ(S1(Call("gradflag", b)), "1b");
  // q)unfreeze(q;`weight`bias;(enlist 1 2e;3e))  freeze(q;(,`bias)!enlist ,4e)
  Call("unfreeze", List({q.share(), kq::Syms({"weight", "bias"}),
                         kq::List({kq::Enlist(kq::Reals({1, 2})), kq::Reals({3})})}));
  EXPECT_EQ(S1(Call("gradflag", w)), "1b");
  EXPECT_EQ(S1(Call("tensor", w)), ",1 2e");
  Call("freeze", List({q.share(), kq::Dict(kq::Syms({"bias"}), kq::List({kq::Reals({4})}))}));
  // A value of another size is refused, a scalar for a 1-item parameter included: (,`bias)!,5e
  EXPECT_EQ(Error("freeze", List({q.share(), kq::Dict(kq::Syms({"bias"}), kq::Reals({5}))})),
            "freeze: size mismatch for parameter `bias, 1 vs scalar");
  EXPECT_EQ(S1(Call("tensor", b)), ",4e");
  EXPECT_EQ(S1(Call("gradflag", b)), "0b");
  EXPECT_EQ(S1(Call("return", Call("forward", List({q.share(), kq::Enlist(kq::Reals({1, 1}))})))),
            ",,7e");
  EXPECT_EQ(Error("freeze", List({q.share(), kq::Syms({"weight", "x"})})),
            "freeze: no parameter `x in linear module");
  EXPECT_EQ(S1(Call("gradflag", w)), "1b");
  Call("free", List({q.share(), w.share(), b.share()}));
}

TEST_F(PluginModuleParametersTest, CopyparmsAndAvgparms) {
  KRef q = Call("module", "enlist(`linear;2;1)");
  Call("freeze", List({q.share(), kq::Syms({"weight", "bias"}),
                       kq::List({kq::Enlist(kq::Reals({1, 2})), kq::Reals({3})})}));
  KRef d = Call("copyparms", q);
  EXPECT_EQ(S1(Call("dict", d)), "`weight`bias!(,1 2e;,3e)");
  // q)avgparms(q;d) -> 2: d holds the first set (no `.n yet), the new values are averaged in
  Call("freeze", List({q.share(), kq::Syms({"weight", "bias"}),
                       kq::List({kq::Enlist(kq::Reals({3, 4})), kq::Reals({5})})}));
  EXPECT_EQ(S1(Call("avgparms", List({q.share(), d.share()}))), "2");
  EXPECT_EQ(S1(Call("dict", d)), "`weight`bias`.n!(,2 3e;,4e;2f)");
  // q)copyparms(q;d) -> the averages go back, a flag per parameter (`.n is no parameter)
  EXPECT_EQ(S1(Call("copyparms", List({q.share(), d.share()}))), "`weight`bias!11b");
  KRef w = Call("parm", List({q.share(), kq::Sym("weight")}));
  EXPECT_EQ(S1(Call("tensor", w)), ",2 3e");
  EXPECT_EQ(Error("avgparms", List({q.share(), w.share()})),
            "avgparms: expected dictionary, given tensor");
  Call("free", List({q.share(), d.share(), w.share()}));
}

TEST_F(PluginStateTest, ModuleStateRecreatesTheModuleSeed002) {
  // q)q:module seq(`sequential; (`linear;4;3); `relu)   s:state q   q2:module s   s~state q2
  KRef q = Net("(`sequential;(`linear;4;3);(`batchnorm1d;3);`relu)");
  Call("free",
       Call("forward",
            List({q.share(), Q("(1 2 3 4e;4 3 2 1e;0 1 0 1e)").share()})));  // running stats move
  KRef s = Call("state", q);
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::DictKeys(kabi::TableDict(s.get()))))),
            "`depth`module`name`options`parms`buffers");
  KRef q2 = Call("module", s);
  EXPECT_TRUE(khost::Match(Call("state", q2).get(), s.get()));
  KRef x = Q("(1 0 2 1e;3 1 1 0e)");
  EXPECT_TRUE(khost::Match(Call("evaluate", List({q.share(), x.share()})).get(),
                           Call("evaluate", List({q2.share(), x.share()})).get()));
  // module q (no values) recreates the architecture only: same definition, new values.
  KRef q3 = Call("module", Call("module", q));
  EXPECT_TRUE(khost::Match(Call("module", q3).get(), Call("module", q).get()));
  EXPECT_FALSE(khost::Match(Call("state", q3).get(), s.get()));
  Call("free", List({q.share(), q2.share(), q3.share()}));
}

TEST_F(PluginStateTest, SingleModuleLossAndClone) {
  KRef q = Call("module", "enlist(`linear;`fc;2;1;`bias;0b)");
  Call("freeze", List({q.share(), kq::Sym("weight"), kq::Enlist(kq::Reals({1, 2}))}));
  EXPECT_EQ(S1(Call("state", List({q.share(), kq::Bool(false)}))),
            "`depth`module`name`options`parms`buffers!(0;`linear;`fc;`in`out`bias!(2;1;0b);(,`"
            "weight)!,,1 2e;`symbol$()!())");
  KRef c = Call("clone", q);
  EXPECT_TRUE(khost::Match(Call("state", c).get(), Call("state", q).get()));
  EXPECT_EQ(S1(Call("ref", q)), "1");
  KRef l = Call("loss", "`ce");
  EXPECT_EQ(S1(Call("state", l)), S1(Call("loss", l)));
  EXPECT_EQ(Error("state", "1 2 3"), "state: arg[0] expected pointer, given long list");
  KRef t = Call("tensor", "1 2 3");
  EXPECT_EQ(Error("state", t), "state: expected module, loss, optimizer or model, given tensor");
  EXPECT_EQ(Error("clone", l), "clone: expected module, given loss");
  EXPECT_EQ(Error("module", "`module`name!(`linearx;`a)"), "unrecognized module type: `linearx");
  Call("free", List({q.share(), c.share(), l.share(), t.share()}));
}

TEST_F(PluginStateTest, OptimizerStateSeed002) {
  // q)o:opt(`sgd;q)  {cols x .`optimizer`parms}  state's parms table gains `buffers
  KRef q = Call("module", "enlist(`linear;2;1)");
  KRef o = Call("opt", List({kq::Sym("sgd"), q.share()}));
  KRef s = Call("state", o);
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::DictKeys(s.get())))), "`optimizer`options`parms");
  kabi::K parms = kabi::Items(kabi::DictValues(s.get()))[2];
  ASSERT_EQ(parms->t, kabi::kTable);
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::DictKeys(kabi::TableDict(parms))))),
            "`parmgroup`pointer`module`name`size`buffers");
  Call("free", List({q.share(), o.share()}));
}

}  // namespace plugin_module_parameters_test
}  // namespace kscope::testing
