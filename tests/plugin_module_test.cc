// Modules and losses through the plugin: the module sessions of seeds 000, 001, 002 and 004 that
// the landed module kinds support, and the three-input losses.
#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_module_test {

using ::testing::HasSubstr;

using ModuleSeedTest = PluginTest;

constexpr char kSequentialPrintout[] =
    "torch::nn::Sequential(\n"
    "  (0): torch::nn::Linear(in_features=64, out_features=10, bias=true)\n"
    "  (1): torch::nn::ReLU()\n"
    ")";

TEST_F(ModuleSeedTest, DepthValuePairsAndStrSeed000) {
  // q)q:module((0;`sequential); (1; (`linear;64;10)); (1;`relu))   -2 str q;
  KRef q = Call("module", "((0;`sequential);(1;(`linear;64;10));(1;`relu))");
  EXPECT_EQ(S1(Call("class", q)), "`module");
  KRef s = Call("str", q);
  EXPECT_EQ(std::string(kabi::Chars(s.get()), s->n), kSequentialPrintout);
  KRef table = Call("module", q);
  EXPECT_EQ(khost::Normalize(khost::Show(table.get())),
            "depth module name options\n"
            "-\n"
            "0 sequential `symbol$()!()\n"
            "1 linear 0 `in`out`bias!(64;10;1b)\n"
            "1 relu 1 (,`inplace)!,0b");
  Call("free", q);
}

TEST_F(ModuleSeedTest, SeqTreeAndNamedChildrenSeed004) {
  // q)q:module seq(`sequential; (`linear;`a;64;10); (`relu;`b))   parmnames q -> `a.weight`a.bias
  KRef tree = Call("seq", "(`sequential;(`linear;`a;64;10);(`relu;`b))");
  KRef q = Call("module", tree);
  EXPECT_EQ(S1(Call("parmnames", q)), "`a.weight`a.bias");
  EXPECT_EQ(S1(Call("childnames", q)), "`a`b");
  // q)free c:children q  -- a dictionary whose values are all pointers frees at once
  KRef c = Call("children", q);
  EXPECT_EQ(S1(Call("class", KRef(kabi::r1(kabi::Items(kabi::DictValues(c.get()))[0])))),
            "`module");
  EXPECT_EQ(S1(Call("ref", KRef(kabi::r1(kabi::Items(kabi::DictValues(c.get()))[0])))), "3");
  Call("free", c);
  KRef b = Call("parm", List({q.share(), kq::Sym("a.bias")}));
  EXPECT_EQ(S1(Call("size", b)), ",10");
  EXPECT_EQ(Error("parm", List({q.share(), kq::Sym("c.bias")})),
            "parm: no parameter `c.bias in sequential module");
  Call("free", List({q.share(), b.share()}));
}

TEST_F(ModuleSeedTest, SizesOfAModuleSeed000) {
  // q)q:module (`sequential; enlist(`linear;128;10); `relu) -> size 2, elements 1290
  KRef q = Call("module", "(`sequential;enlist(`linear;128;10);`relu)");
  EXPECT_EQ(S1(Call("size", q)), "2");
  EXPECT_EQ(S1(Call("elements", q)), "1290");
  EXPECT_EQ(S1(Call("bytes", q)), "5160");
  EXPECT_EQ(S1(Call("tensorcount", q)), "2");
  EXPECT_EQ(S1(Call("device", q)), "`cpu");
  // ktorch: per parameter, by name
  EXPECT_EQ(S1(Call("dtype", q)), "`0.weight`0.bias!`float`float");
  EXPECT_EQ(S1(Call("ktype", q)), "`0.weight`0.bias!\"ee\"");
  EXPECT_EQ(S1(Call("gradient", q)), "`0.weight`0.bias!`grad`grad");
  Call("free", q);
}

TEST_F(ModuleSeedTest, NestedTreesAsKtorchReadsThem) {
  // ktorch's docs (modules.rst): q)q:module (`sequential`a; enlist(`linear;5;2); `relu`r)
  KRef q = Call("module", "(`sequential`a;enlist(`linear;5;2);`relu`r)");
  EXPECT_EQ(S1(Call("module", q)),
            "+`depth`module`name`options!(0 1 1;`sequential`linear`relu;`a`0`r;"
            "(`symbol$()!();`in`out`bias!(5;2;1b);(,`inplace)!,0b))");
  // a container child written as a general list, its own children below it (kmodules.rst);
  // (`sequential;`relu) would be the symbol list `sequential`relu, a sequential named relu
  KRef f = Call("module",
                "(`sequential;(`fork;(`sequential;enlist `identity);(`sequential;enlist `relu)))");
  EXPECT_EQ(S1(Call("module", f)),
            "+`depth`module`name`options!(0 1 2 3 2 "
            "3;`sequential`fork`sequential`identity`sequential`relu;"
            "``0`qa`0`qb`0;(`symbol$()!();`symbol$()!();`symbol$()!();`symbol$()!();`symbol$()!();("
            ",`inplace)!,0b))");
  Call("free", List({q.share(), f.share()}));
}

TEST_F(ModuleSeedTest, IdentityForwardSeed004) {
  // q)x:tensor til 7   q:module`identity   tensor y:forward(q;x) -> 0 1 2 3 4 5 6
  KRef x = Call("tensor", "0 1 2 3 4 5 6");
  KRef q = Call("module", "`identity");
  KRef y = Call("forward", List({q.share(), x.share()}));
  EXPECT_EQ(S1(Call("tensor", y)), "0 1 2 3 4 5 6");
  EXPECT_EQ(S1(Call("return", Call("forward", List({q.share(), kq::Longs({1, 2})})))),
            "1 2");  // k in, a pointer out
  Call("free", List({x.share(), q.share(), y.share()}));
}

TEST_F(ModuleSeedTest, SingleModuleQueryAndOptions) {
  KRef q = Call("module", "enlist(`linear;`fc;784;10;`bias;0b)");
  EXPECT_EQ(S1(Call("module", q)),
            "`depth`module`name`options!(0;`linear;`fc;`in`out`bias!(784;10;0b))");
  EXPECT_EQ(S1(Call("parmnames", q)), ",`weight");
  EXPECT_EQ(Error("module", "`linearx"), "unrecognized module type: `linearx");
  EXPECT_EQ(Error("module", "(`linear;784)"), "linear: option `out required");
  Call("free", q);
}

TEST_F(ModuleSeedTest, ToMovesAModule) {
  // q)to(q;`cuda) in seeds 000/001; the same path with a dtype, which any machine has.
  KRef q = Call("module", "enlist(`linear;3;2)");
  Call("to", List({q.share(), kq::Sym("double")}));
  KRef w = Call("parm", List({q.share(), kq::Sym("weight")}));
  EXPECT_EQ(S1(Call("dtype", w)), "`double");
  Call("free", List({q.share(), w.share()}));
}

TEST_F(ModuleSeedTest, LossQuerySeed002) {
  // loss m -> module| `ce   options| `weight`ignore`smoothing`reduce!(::;-100;0f;`mean)
  KRef l = Call("loss", "`ce");
  EXPECT_EQ(S1(Call("loss", l)),
            "`module`options!(`ce;`weight`ignore`smoothing`reduce!(::;-100;0f;`mean))");
  EXPECT_EQ(S1(Call("class", l)), "`loss");
  KRef sum = Call("loss", "(`mse;`sum)");
  EXPECT_EQ(S1(Call("loss", sum)), "`module`options!(`mse;(,`reduce)!,`sum)");
  Call("free", List({l.share(), sum.share()}));
}

TEST_F(ModuleSeedTest, LossObjectAndFunctions) {
  // q)l:loss`mse  x:tensor(1.2 1.9 3.1;`grad)  y:tensor 1.0 2.0 3.0  backward z:loss(l;x;y); return
  // z
  KRef l = Call("loss", "`mse");
  KRef x = Call("tensor", "(1.2 1.9 3.1;`grad)");
  KRef y = Call("tensor", "1.0 2.0 3.0");
  KRef z = Call("loss", List({l.share(), x.share(), y.share()}));
  Call("backward", z);
  EXPECT_EQ(S1(Call("return", z)), "0.02");
  EXPECT_EQ(S1(Call("mse", "(1 2 3e;1 2 4e)")), "0.3333333e");
  EXPECT_EQ(S1(Call("mse", "(1 2 3e;1 2 4e;`sum)")), "1e");
  EXPECT_EQ(S1(Call("ce", "((1 0 0e;0 1 0e);0 1)")), "0.5514446e");  // log(1+2/e) in float
  EXPECT_EQ(Error("loss", "`cee"), "unrecognized loss function: cee");
  Call("free", List({l.share(), x.share(), y.share()}));
}

TEST_F(ModuleSeedTest, ThreeInputLosses) {
  // q)margin(1 2 3e;2 1 2e;1 1 -1e) -> 0.6666667e   margin(..;0.5;`sum) -> 3e
  EXPECT_EQ(S1(Call("margin", "(1 2 3e;2 1 2e;1 1 -1e)")), "0.6666667e");
  EXPECT_EQ(S1(Call("margin", "(1 2 3e;2 1 2e;1 1 -1e;0.5;`sum)")), "3e");
  // q)l:loss(`cosineloss;-0.5)  z:loss(l;x1;x2;y)  return z -> 0.25e (cosines 1 and 0)
  KRef l = Call("loss", "(`cosineloss;-0.5)");
  EXPECT_EQ(S1(Call("loss", List({l.share(), kq::Bool(false)}))),
            "`module`options!(`cosineloss;(,`margin)!,-0.5)");
  KRef x1 = Call("tensor", "(1 0e;0 1e)");
  KRef x2 = Call("tensor", "(1 0e;1 0e)");
  KRef y = Call("tensor", "1 -1e");
  KRef z = Call("loss", List({l.share(), x1.share(), x2.share(), y.share()}));
  EXPECT_EQ(S1(Call("return", z)), "0.25e");
  EXPECT_EQ(Error("loss", List({l.share(), x1.share(), x2.share()})),
            "loss: `cosineloss expects 3 inputs, given 2");
  Call("free", List({l.share(), x1.share(), x2.share(), y.share()}));
}

TEST_F(ModuleSeedTest, AlloptionsSettingPicksNonDefaultOptions) {
  KRef q = Call("module", "(`linear;4;2)");
  EXPECT_EQ(S1(Call("module", q)),
            "`depth`module`name`options!(0;`linear;`;`in`out`bias!(4;2;1b))");
  Call("setting", "(`alloptions;0b)");
  EXPECT_EQ(S1(Call("module", q)), "`depth`module`name`options!(0;`linear;`;`in`out!4 2)");
  EXPECT_EQ(S1(Call("module", List({q.share(), Q("1b").release()}))),
            "`depth`module`name`options!(0;`linear;`;`in`out`bias!(4;2;1b))");
  Call("setting", "(`alloptions;1b)");
  Call("free", q);
}

TEST_F(ModuleSeedTest, ChildrenOfANestedLibtorchSubmoduleSeed000) {
  // q)m:module`transformer   parmnames each c:children(m;`decoder.layers.0)   free c
  KRef m = Call("module", "`transformer");
  KRef c = Call("children", List({m.share(), Q("`decoder.layers.0").release()}));
  ASSERT_EQ(c->t, kabi::kDictionary);
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::Items(c.get())[0]))),
            "`self_attn`multihead_attn`linear1`dropout`linear2`norm1`norm2`norm3`dropout1`dropout2`"
            "dropout3");
  KRef values = KRef(kabi::r1(kabi::Items(c.get())[1]));
  std::vector<std::string> names;
  for (long long i = 0; i < values->n; ++i) {
    names.push_back(S1(Call("parmnames", KRef(kabi::r1(kabi::Items(values.get())[i])))));
  }
  EXPECT_EQ(names, (std::vector<std::string>{
                       "`in_proj_weight`in_proj_bias`out_proj.weight`out_proj.bias",
                       "`in_proj_weight`in_proj_bias`out_proj.weight`out_proj.bias", "`weight`bias",
                       "`symbol$()", "`weight`bias", "`weight`bias", "`weight`bias", "`weight`bias",
                       "`symbol$()", "`symbol$()", "`symbol$()"}));
  EXPECT_EQ(S1(Call("parmnames", List({m.share(), Q("`decoder.layers.0.linear1").release()}))),
            "`weight`bias");
  EXPECT_THAT(Error("children", List({m.share(), Q("`decoder.nope").release()})),
              HasSubstr("children: no child module `decoder.nope in transformer module"));
  Call("free", c);
  Call("free", m);
}

TEST_F(ModuleSeedTest, ContainersAndExtensionThroughQ) {
  // q)q:module seq(`fork; (`linear;4;2); `relu)   forward(q;x) -> (linear x; relu x)
  KRef q = Call("module", "(`fork;enlist(`linear;4;2);enlist`relu)");
  EXPECT_EQ(S1(Call("childnames", q)), "`qa`qb");
  KRef v = Call(
      "return",
      Call("forward", List({q.share(), Q("1 -1 2 -2e").release()})));  // a vector pointer's values
  ASSERT_EQ(v->t, kabi::kMixed);
  ASSERT_EQ(v->n, 2);
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::Items(v.get())[1]))), "1 0 2 0e");
  EXPECT_EQ(kabi::Items(v.get())[0]->n, 2);
  // module(q;depth;defn) and module(q;child) (the child pointer is consumed)
  KRef s = Call("module", "`sequential");
  Call("module", List({s.share(), Q("(`seqnest;`block)").release()}));
  Call("module", List({s.share(), Q("2").release(), Q("(`linear;`a;4;3)").release()}));
  KRef r = Call("module", "`relu");
  Call("module", List({s.share(), Q("2").release(), r.share()}));
  EXPECT_THAT(Error("class", r), HasSubstr("stale pointer"));
  EXPECT_EQ(S1(Call("parmnames", s)), "`block.a.weight`block.a.bias");
  EXPECT_THAT(Error("module", List({s.share(), Q("5").release(), Q("`relu").release()})),
              HasSubstr("module: no container at depth 5"));
  Call("free", q);
  Call("free", s);
}

TEST_F(ModuleSeedTest, CallbackWithATrainableParameterSeed004) {
  // q)m:module enlist (`callback;`cb;"{[m;x]parm(m;0N!`x)}"; (`parms;(`x;.5 2.5 3)))
  // q)tensor x:parm(m;`x)   -> 0.5 2.5 3
  const char* kFn = "{[m;x]parm(m;0N!`x)}";
  khost::Define(kFn, [this](const std::vector<kabi::K>& args) {
    return Call("parm", List({kabi::r1(args[0]), Q("`x").release()})).release();
  });
  KRef m = Call("module", "enlist(`callback;`cb;\"{[m;x]parm(m;0N!`x)}\";(`parms;(`x;.5 2.5 3)))");
  EXPECT_EQ(S1(Call("parmnames", m)), ",`x");
  KRef x = Call("parm", List({m.share(), Q("`x").release()}));
  EXPECT_EQ(S1(Call("tensor", x)), "0.5 2.5 3");
  EXPECT_EQ(S1(Call("return", Call("forward", List({m.share(), Q("0 0 0f").release()})))),
            "0.5 2.5 3");
  khost::Undefine(kFn);
  Call("free", x);
  Call("free", m);
}

TEST_F(ModuleSeedTest, CallbackRunsQAndFreesItsPointers) {
  // q)m:module enlist(`callback;`cb;"{[m;x]mul(x;2)}")   forward(m;1 2 3e) -> 2 4 6e
  const char* kFn = "{[m;x]mul(x;2)}";
  khost::Define(kFn, [this](const std::vector<kabi::K>& args) {
    return Call("mul", List({kabi::r1(args[1]), Q("2e").release()})).release();
  });
  KRef m = Call("module", "enlist(`callback;`cb;\"{[m;x]mul(x;2)}\")");
  KRef query = Call("module", m);
  EXPECT_THAT(S1(query), HasSubstr("{[m;x]mul(x;2)}"));
  EXPECT_EQ(S1(Call("return", Call("forward", List({m.share(), Q("1 2 3e").release()})))),
            "2 4 6e");
  khost::Undefine(kFn);
  EXPECT_THAT(Error("forward", List({m.share(), Q("1 2 3e").release()})),
              HasSubstr("callback: `{[m;x]mul(x;2)} failed"));
  Call("free", m);
}

}  // namespace plugin_module_test
}  // namespace kscope::testing
