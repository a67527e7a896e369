// The module, loss and optimizer q sessions of seeds 000 and 004 that no other plugin suite
// reproduces (see the suites named in each comment for the rest): obj[] and ptr with modules and
// optimizers, modules on the GPU, gradients reset through tensors, dictionaries, modules and
// optimizers, evaluate on a module, clipping a module's gradients by value, seed 004's spiral
// training steps and its loose tensor stepped without reset gradients.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_seed_sessions_test {

using ::testing::MatchesRegex;

using PluginSeedSessionsTest = PluginTest;

long long Nonzero(const std::vector<float>& v) {
  return std::count_if(v.begin(), v.end(), [](float e) { return e != 0; });
}

// obj[]'s row for pointer p: "class device size elements bytes" (cells as q's S1 shows them).
std::string ObjRow(const KRef& table, const KRef& p) {
  kabi::K columns = kabi::TableDict(table.get());
  const KRef ids = At(columns, "ptr");
  for (long long i = 0; i < ids->n; ++i) {
    if (khost::S1(kabi::Items(ids.get())[i]) != S1(p)) continue;  // the pointer itself, ,id
    std::string row;
    for (const char* name : {"class", "device", "size", "elements", "bytes"}) {
      const KRef column = At(columns, name);
      KRef cell(column->t == kabi::kMixed ? kabi::r1(kabi::Items(column.get())[i]) : nullptr);
      if (column->t == kabi::kSymbol) cell = KRef(kq::Sym(kabi::Symbols(column.get())[i]));
      if (column->t == kabi::kLong) cell = KRef(kq::Long(kabi::Longs(column.get())[i]));
      row += (row.empty() ? "" : " ") + (cell ? S1(cell) : "?");
    }
    return row;
  }
  return "no row for " + S1(p) + " in " + S1(table);
}

TEST_F(PluginSeedSessionsTest, ObjListsModulesAndOptimizersSeed000) {
  // q)q:module ((0;`sequential); (1; (`linear;64;10)))   o:opt(`adam; q)   obj[]
  // ptr        class     device dtype size elements bytes
  // 1796447984 optimizer cuda:0       2    0        0
  // 43618592   module    cuda:0       2    650      2600
  // (the seed's to(q;`cuda) first: see ModulesOnTheGpuSeed000; here the module stays on the cpu)
  KRef q = Call("module", "((0;`sequential);(1;(`linear;64;10)))");
  KRef o = Call("opt", List({kq::Sym("adam"), q.share()}));
  KRef table = Call("obj");
  ASSERT_EQ(table->t, kabi::kTable);
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::DictKeys(kabi::TableDict(table.get()))))),
            "`ptr`class`device`dtype`size`elements`bytes`scope`origin");
  EXPECT_EQ(At(kabi::TableDict(table.get()), "ptr")->n, 2);
  EXPECT_EQ(ObjRow(table, o), "`optimizer `cpu 2 0 0");
  EXPECT_EQ(ObjRow(table, q), "`module `cpu 2 650 2600");
  Call("free", List({q.share(), o.share()}));
}

TEST_F(PluginSeedSessionsTest, PtrOfTensorModuleOptimizerSeed000) {
  // q)t:tensor 1 2 3   m:module enlist(`linear;128;10)   o:opt(`adam; m)
  // q)ptr each(t;m;o) -> 60715504 61043456 61053536
  KRef t = Call("tensor", "1 2 3");
  KRef m = Call("module", "enlist(`linear;128;10)");
  KRef o = Call("opt", List({kq::Sym("adam"), m.share()}));
  KRef p = Each("ptr", {&t, &m, &o});
  ASSERT_EQ(p->t, kabi::kLong);  // three long atoms collapse to a long vector
  ASSERT_EQ(p->n, 3);
  EXPECT_THAT(S1(p), MatchesRegex("[0-9]+ [0-9]+ [0-9]+"));
  const std::int64_t* raw = kabi::Longs(p.get());
  EXPECT_NE(raw[0], raw[1]);
  EXPECT_NE(raw[1], raw[2]);
  EXPECT_NE(raw[0], raw[2]);
  // "If the k interface has multiple api-pointers refencing the same object, their raw pointers
  // will match."
  KRef m2 = Call("addref", m);
  EXPECT_EQ(Call("ptr", m2)->j, raw[1]);
  KRef o2 = Call("addref", o);
  EXPECT_EQ(Call("ptr", o2)->j, raw[2]);
  Call("free", List({t.share(), m.share(), o.share(), m2.share(), o2.share()}));
}

TEST_F(PluginSeedSessionsTest, ModulesOnTheGpuSeed000) {
  // q)q:module (`sequential; enlist(`linear;128;10); `relu)   to(q;`cuda)   device each (t;q) ->
  // `cpu`cuda:0
  if (S1(Call("device")) != "`cuda")
    GTEST_SKIP() << "no CUDA device: the plugin's device[] is `cpu";
  KRef t = Call("tensor", "1 2 3");
  KRef q = Call("module", "(`sequential;enlist(`linear;128;10);enlist `relu)");
  Call("to", List({q.share(), kq::Sym("cuda")}));
  EXPECT_EQ(S1(Each("device", {&t, &q})), "`cpu`cuda:0");
  // q)o:opt(`adam; q)   obj[] -> optimizer cuda:0 2 0 0 / module cuda:0 2 1290 5160
  KRef o = Call("opt", List({kq::Sym("adam"), q.share()}));
  EXPECT_EQ(S1(Call("device", o)), "`cuda:0");
  EXPECT_EQ(ObjRow(Call("obj"), q), "`module `cuda:0 2 1290 5160");
  Call("free", List({t.share(), q.share(), o.share()}));
}

TEST_F(PluginSeedSessionsTest, TensorGradientResetSeed004) {
  // q)backward z:mean y:mul(x; x:tensor(1 2 3.0; `grad))   grad x -> 0.6666667 1.333333 2
  KRef x = Call("tensor", "(1 2 3.0;`grad)");
  KRef y = Call("mul", List({x.share(), x.share()}));
  KRef z = Call("mean", y);
  Call("backward", z);
  EXPECT_EQ(S1(Call("grad", x)), "0.6666667 1.333333 2");
  // q)zerograd x   grad x -> 0 0 0f
  EXPECT_FALSE(Call("zerograd", x));
  EXPECT_EQ(S1(Call("grad", x)), "0 0 0f");
  // q)nograd x   grad x   (::)~grad x -> 1b
  EXPECT_FALSE(Call("nograd", x));
  KRef g = Call("grad", x);
  EXPECT_TRUE(khost::Match(g.get(), KRef(kq::Null()).get()));
  Call("free", List({x.share(), y.share(), z.share()}));
}

TEST_F(PluginSeedSessionsTest, KDataBesideAPointerOutlivesTheCall) {
  // q)backward z:mean y:mul(x:tensor(1 2 3e;`grad); 2 3 4e)   grad x -> 0.6666667 1 1.333333e
  // The k list 2 3 4e is freed when mul returns; y's graph still needs it for x's gradient.
  KRef x = Call("tensor", "(1 2 3e;`grad)");
  KRef y = Call("mul", List({x.share(), kq::Reals({2, 3, 4})}));
  KRef z = Call("mean", y);
  Call("backward", z);
  EXPECT_EQ(S1(Call("grad", x)), "0.6666667 1 1.333333e");
  Call("free", List({x.share(), y.share(), z.share()}));
}

TEST_F(PluginSeedSessionsTest, KIndicesBesideAPointerOutliveTheCall) {
  // q)backward z:mean y:index(x:tensor(1 2 3e;`grad); 0; 0 2 2)   grad x -> 0.3333333 0 0.6666667e
  KRef x = Call("tensor", "(1 2 3e;`grad)");
  KRef y = Call("index", List({x.share(), Q("0").release(), kq::Longs({0, 2, 2})}));
  KRef z = Call("mean", y);
  Call("backward", z);
  EXPECT_EQ(S1(Call("grad", x)), "0.3333333 0 0.6666667e");
  Call("free", List({x.share(), y.share(), z.share()}));
}

TEST_F(PluginSeedSessionsTest, DictionaryGradientResetSeed004) {
  // q)x2:mul(x; x:tensor(1 2 3.0;`grad))   y2:mul(y; y:tensor(2 4 6.0;`grad))
  // q)backward(z:add(x2;y2); 1 1 1)   grad each(x;y) -> 2 4 6 / 4 8 12
  KRef x = Call("tensor", "(1 2 3.0;`grad)");
  KRef x2 = Call("mul", List({x.share(), x.share()}));
  KRef y = Call("tensor", "(2 4 6.0;`grad)");
  KRef y2 = Call("mul", List({y.share(), y.share()}));
  KRef z = Call("add", List({x2.share(), y2.share()}));
  Call("backward", List({z.share(), kq::Longs({1, 1, 1})}));
  EXPECT_EQ(S1(Each("grad", {&x, &y})), "(2 4 6f;4 8 12f)");
  // q)d:dict`x`y!addref each(x;y)   zerograd d   grad each(x;y) -> 0 0 0 / 0 0 0
  KRef d = Call(
      "dict", KRef(kq::Dict(kq::Syms({"x", "y"}),
                            kq::List({Call("addref", x).release(), Call("addref", y).release()}))));
  EXPECT_FALSE(Call("zerograd", d));
  EXPECT_EQ(S1(Each("grad", {&x, &y})), "(0 0 0f;0 0 0f)");
  // q)nograd d   grad each(x;y) -> :: / ::
  EXPECT_FALSE(Call("nograd", d));
  EXPECT_EQ(S1(Each("grad", {&x, &y})), "(::;::)");
  Call("free", List({x.share(), x2.share(), y.share(), y2.share(), z.share(), d.share()}));
}

TEST_F(PluginSeedSessionsTest, ModuleAndOptimizerGradientResetSeed004) {
  // q)a:module seq(`sequential; (`linear;`a;64;20); `relu)   b:module seq(`sequential;
  // (`linear;`b;20;10); `drop)
  KRef a = Call("module", Call("seq", "(`sequential;(`linear;`a;64;20);`relu)"));
  KRef b = Call("module", Call("seq", "(`sequential;(`linear;`b;20;10);`drop)"));
  // q)parmnames a -> `a.weight`a.bias   aw:parm(a;`a.weight)   bw:parm(b;`b.weight)
  EXPECT_EQ(S1(Call("parmnames", a)), "`a.weight`a.bias");
  KRef aw = Call("parm", List({a.share(), kq::Sym("a.weight")}));
  KRef bw = Call("parm", List({b.share(), kq::Sym("b.weight")}));
  // q)o:opt`sgd; opt(o;0;a); opt(o;1;b)
  KRef o = Call("opt", "`sgd");
  Call("opt", List({o.share(), kq::Long(0), a.share()}));
  Call("opt", List({o.share(), kq::Long(1), b.share()}));
  // q)x:tensor(`randn; 3 64)   backward z:ce(yb:forward(b; ya:forward(a; x)); 0 2 9)
  Call("seed", "4");
  KRef x = Call("tensor", "(`randn;3 64)");
  KRef ya = Call("forward", List({a.share(), x.share()}));
  KRef yb = Call("forward", List({b.share(), ya.share()}));
  KRef z = Call("ce", List({yb.share(), kq::Longs({0, 2, 9})}));
  Call("backward", z);
  const std::vector<float> awBefore = Reals(Call("grad", aw)), bwBefore = Reals(Call("grad", bw));
  ASSERT_EQ(awBefore.size(), 20u * 64);
  ASSERT_EQ(bwBefore.size(), 10u * 20);
  ASSERT_GT(Nonzero(awBefore), 0);
  ASSERT_GT(Nonzero(bwBefore), 0);
  // q)zerograd a   grad each(aw;bw) -> a's gradient zeroed, b's kept
  Call("zerograd", a);
  EXPECT_EQ(Nonzero(Reals(Call("grad", aw))), 0);
  EXPECT_EQ(Reals(Call("grad", bw)), bwBefore);
  // q)zerograd o   grad each(aw;bw) -> both zeroed (the optimizer holds both modules' parameters);
  // on the 2.x line both undefined, as ktorch 2.3's (libtorch 2's zero_grad sets them to none)
  Call("zerograd", o);
  if (FollowsKtorch23()) {
    EXPECT_EQ(S1(Each("grad", {&aw, &bw})), "(::;::)");
  } else {
    EXPECT_EQ(Reals(Call("grad", aw)).size(), 20u * 64);
    EXPECT_EQ(Nonzero(Reals(Call("grad", aw))), 0);
    const std::vector<float> bwZero = Reals(Call("grad", bw));
    EXPECT_EQ(bwZero.size(), 10u * 20);
    EXPECT_EQ(Nonzero(bwZero), 0);
    // q)nograd b   grad each(aw;bw) -> (zeros; ::)
    Call("nograd", b);
    EXPECT_EQ(Nonzero(Reals(Call("grad", aw))), 0);
    EXPECT_EQ(S1(Call("grad", bw)), "::");
  }
  // q)nograd o   grad each(aw;bw) -> :: / ::
  Call("nograd", o);
  EXPECT_EQ(S1(Each("grad", {&aw, &bw})), "(::;::)");
  Call("free", List({a.share(), b.share(), aw.share(), bw.share(), o.share(), x.share(), ya.share(),
                     yb.share(), z.share()}));
}

TEST_F(PluginSeedSessionsTest, EvaluateAModuleSeed004) {
  // q)x:tensor til 7   q:module`identity   tensor y:forward(q;x) -> 0 1 2 3 4 5 6
  // q)evaluate(q;x) -> 0 1 2 3 4 5 6   (evaluation mode, no gradients, k array(s) back)
  KRef x = Call("tensor", "0 1 2 3 4 5 6");
  KRef q = Call("module", "`identity");
  KRef y = Call("forward", List({q.share(), x.share()}));
  EXPECT_EQ(S1(Call("tensor", y)), "0 1 2 3 4 5 6");
  KRef e = Call("evaluate", List({q.share(), x.share()}));
  EXPECT_EQ(S1(e), "0 1 2 3 4 5 6");
  Call("free", List({x.share(), q.share(), y.share()}));
}

TEST_F(PluginSeedSessionsTest, ClipAModuleByValueSeed004) {
  // q)m:module enlist(`linear;10;3)   parmnames m -> `weight`bias   p:parm(m;`weight)
  Call("seed",
       "11");  // the module's initial weights too: the tighter clip below needs gradients past 0.1
  KRef m = Call("module", "enlist(`linear;10;3)");
  EXPECT_EQ(S1(Call("parmnames", m)), "`weight`bias");
  KRef p = Call("parm", List({m.share(), kq::Sym("weight")}));
  // q)x:tensor(`randn;7 10)   y:tensor(`randint;3;7)   backward z:ce(yhat:forward(m;x); y)
  KRef x = Call("tensor", "(`randn;7 10)");
  KRef y = Call("tensor", "(`randint;3;7)");
  KRef yhat = Call("forward", List({m.share(), x.share()}));
  KRef z = Call("ce", List({yhat.share(), y.share()}));
  Call("backward", z);
  // q)grad p -> a 3 x 10 real matrix   (min;max)@\:raze grad p -> -0.487 0.495e
  const std::vector<float> before = Reals(Call("grad", p));
  ASSERT_EQ(before.size(), 30u);
  // q)clipv(m;.4) -> 0n   (min;max)@\:raze grad p -> -0.4 0.4e (each gradient clamped to [-.4,.4])
  EXPECT_EQ(S1(Call("clipv", List({m.share(), kq::Float(.4)}))), "0n");
  std::vector<float> after = Reals(Call("grad", p));
  ASSERT_EQ(after.size(), 30u);
  for (size_t i = 0; i < after.size(); ++i)
    EXPECT_FLOAT_EQ(after[i], std::clamp(before[i], -.4f, .4f)) << i;
  // A tighter value certainly clips: the extremes become exactly -0.1 and 0.1.
  const float low = *std::min_element(after.begin(), after.end()),
              high = *std::max_element(after.begin(), after.end());
  ASSERT_LT(low, -0.1f);
  ASSERT_GT(high, 0.1f);
  EXPECT_EQ(S1(Call("clipv", List({m.share(), kq::Float(.1)}))), "0n");
  after = Reals(Call("grad", p));
  EXPECT_FLOAT_EQ(*std::min_element(after.begin(), after.end()), -0.1f);
  EXPECT_FLOAT_EQ(*std::max_element(after.begin(), after.end()), 0.1f);
  Call("free", List({m.share(), p.share(), x.share(), y.share(), yhat.share(), z.share()}));
}

TEST_F(PluginSeedSessionsTest, SpiralTrainingStepsSeed004) {
  // q)n:1000; k:3
  // q)q:module seq(`sequential; (`linear; 2; 100); `relu; (`linear; 100; k))
  // q)l:loss`ce   o:opt(`sgd; q; .2; .99)
  constexpr int n = 1000, k = 3;
  Call("seed", "123");
  KRef q = Call("module", Call("seq", "(`sequential;(`linear;2;100);`relu;(`linear;100;3))"));
  KRef l = Call("loss", "`ce");
  KRef o = Call("opt", List({kq::Sym("sgd"), q.share(), kq::Float(.2), kq::Float(.99)}));
  EXPECT_EQ(S1(At(Call("opt", List({o.share(), kq::Bool(false)})), "options")),
            "+`lr`momentum!(,0.2;,0.99)");
  // q)spiral:{x:til[x]%x-1; flip x*/:(sin;cos)@\:z+sum 4*(x;y)}
  // q)z:tensor(`randn; k,n; `double)   x:tensor "e"$raze spiral[n]'[til k;.2*tensor z]
  // q)y:tensor til[k]where k#n
  KRef noise = Call("tensor", "(`randn;3 1000;`double)");
  KRef z = Call("tensor", noise);
  ASSERT_EQ(z->n, k);
  KRef x = Call("tensor", SpiralPoints(z, n, k));
  EXPECT_EQ(S1(Call("size", x)), "3000 2");
  KRef targets = SpiralClasses(n, k);
  KRef y = Call("tensor", targets);
  // q)f:{[q;l;o;x;y]zerograd o; x:forward(q;x); r:tensor y:loss(l;x;y); backward y; free each(x;y);
  // step o; r} q)\ts:3 show f[q;l;o;x;y] -> 1.031206e 0.9710665e 0.9085126e
  std::vector<float> losses;
  for (int i = 0; i < 3; ++i) {
    Call("zerograd", o);
    KRef rx = Call("forward", List({q.share(), x.share()}));
    KRef ry = Call("loss", List({l.share(), rx.share(), y.share()}));
    KRef r = Call("tensor", ry);
    ASSERT_EQ(r->t, -kabi::kReal);  // a real scalar, as the seed's 1.031206e
    losses.push_back(r->e);
    Call("backward", ry);
    Call("free", List({rx.share(), ry.share()}));
    Call("step", o);
  }
  // Three classes, a fresh network: the first loss is near ln 3; each step lowers it.
  EXPECT_GT(losses[0], 0.8f);
  EXPECT_LT(losses[0], 1.4f);
  EXPECT_LT(losses[1], losses[0]);
  EXPECT_LT(losses[2], losses[1]);
  Call("free", List({q.share(), l.share(), o.share(), noise.share(), x.share(), y.share()}));
}

TEST_F(PluginSeedSessionsTest, LooseTensorStepsWithoutResetSeed004) {
  // q)x:tensor(0.5 2.5 3e; `grad)   y:tensor(1.0 2.0 3e)   z:tensor()   o:opt(`sgd;x)
  // q)\ts:20 {[x;y;z;o]use[z]mse(x;y); backward z; step o}[x;y;z;o]
  // q)([]tensor x;tensor y) -> 1.052 1 / 1.948 2 / 3 3
  // No zerograd: the gradients accumulate over the 20 steps at sgd's default rate 0.01.
  KRef x = Call("tensor", "(0.5 2.5 3e;`grad)");
  KRef y = Call("tensor", "1.0 2.0 3e");
  KRef z = Call("tensor", "()");
  KRef o = Call("opt", List({kq::Sym("sgd"), x.share()}));
  EXPECT_EQ(S1(Call("lr", o)), ",0.01");
  for (int i = 0; i < 20; ++i) {
    EXPECT_FALSE(Use(z, Call("mse", List({x.share(), y.share()}))));
    Call("backward", z);
    Call("step", o);
  }
  const std::vector<float> values = Reals(Call("tensor", x));
  ASSERT_EQ(values.size(), 3u);
  EXPECT_NEAR(values[0], 1.0517, 1e-4);
  EXPECT_NEAR(values[1], 1.9483, 1e-4);
  EXPECT_FLOAT_EQ(values[2], 3.0f);
  EXPECT_EQ(S1(Call("tensor", y)), "1 2 3e");
  Call("free", List({x.share(), y.share(), z.share(), o.share()}));
}

}  // namespace plugin_seed_sessions_test
}  // namespace kscope::testing
