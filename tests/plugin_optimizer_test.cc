// Optimizers through the plugin: the optimizer, clipping and state sessions of seeds 000, 002 and
// 004, parameter groups, loose tensors, and the training steps of seed 004 with module, loss and
// optimizer objects.
#include <algorithm>
#include <cmath>

#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_optimizer_test {

using PluginOptimizerTest = PluginTest;

std::string Shown(const KRef& x) {
  khost::NormalizeOptions options;
  options.replace_pointers = true;
  return khost::Normalize(khost::Show(x.get()), options);
}

TEST_F(PluginOptimizerTest, AnOptimizerKeepsItsModuleSeed000) {
  // q)m:module enlist(`linear;512;10)  o:opt(`adam; m)  ref m -> 2   free o   ref m -> 1
  KRef m = Call("module", "enlist(`linear;512;10)");
  KRef o = Call("opt", List({kq::Sym("adam"), m.share()}));
  EXPECT_EQ(S1(Call("ref", m)), "2");
  Call("free", o);
  EXPECT_EQ(S1(Call("ref", m)), "1");
  Call("free", m);
}

TEST_F(PluginOptimizerTest, ClassesAndSizesSeed000) {
  // q)class each(t;m;o;l) -> `tensor`module`optimizer`loss
  KRef t = Call("tensor", "1 2 3");
  KRef m = Call("module", "`relu");
  KRef o = Call("opt", "`sgd");
  KRef l = Call("loss", "`mse");
  EXPECT_EQ(S1(Each("class", {&t, &m, &o, &l})), "`tensor`module`optimizer`loss");
  // q)q:module (`sequential; enlist(`linear;128;10); `relu)  o:opt(`adam; q)  size each -> 2 0 2
  KRef q = Call("module", "(`sequential;enlist(`linear;128;10);`relu)");
  KRef adam = Call("opt", List({kq::Sym("adam"), q.share()}));
  EXPECT_EQ(S1(Call("size", q)), "2");
  EXPECT_EQ(S1(Call("size", l)), "0");
  EXPECT_EQ(S1(Call("size", adam)), "2");
  EXPECT_EQ(S1(Call("elements", adam)), "0");  // no buffers before the first step
  Call("free", List({t.share(), m.share(), o.share(), l.share(), q.share(), adam.share()}));
}

TEST_F(PluginOptimizerTest, OptionsLrAndQuery) {
  // q)o:opt(`sgd; q; .2; .99)   gradient descent: learning rate .2, momentum .99
  KRef q = Call("module", "enlist(`linear;2;3)");
  KRef o = Call("opt", List({kq::Sym("sgd"), q.share(), kq::Float(.2), kq::Float(.99)}));
  EXPECT_EQ(S1(Call("lr", o)), ",0.2");
  KRef d = Call("opt", List({o.share(), kq::Bool(false)}));
  EXPECT_EQ(S1(At(d, "optimizer")), "`sgd");
  EXPECT_EQ(S1(At(d, "options")), "+`lr`momentum!(,0.2;,0.99)");
  Call("lr", List({o.share(), kq::Float(0.05)}));
  EXPECT_EQ(S1(Call("lr", o)), ",0.05");
  EXPECT_EQ(Error("opt", "`sgdx"), "unrecognized optimizer: sgdx");
  EXPECT_EQ(Error("opt", List({kq::Sym("sgd"), q.share(), kq::Sym("fast")})),
            "sgd: option `lr expects double, given symbol");
  Call("free", List({q.share(), o.share()}));
}

TEST_F(PluginOptimizerTest, LbfgsIsQueriedButNotStepped) {
  // q)o:opt(`lbfgs;q;0.5)   step o -> 'LBFGS optimizer requires model, loss & inputs
  KRef q = Call("module", "enlist(`linear;2;3)");
  KRef o = Call("opt", List({kq::Sym("lbfgs"), q.share(), kq::Float(.5)}));
  EXPECT_EQ(
      S1(At(Call("opt", o), "options")),
      "+`lr`iter`eval`gradtol`changetol`history!(,0.5;,20;,25;,1e-07;,1e-09;,100)");  // as ktorch
                                                                                      // echoes
                                                                                      // lbfgs
  EXPECT_EQ(Error("step", o), "LBFGS optimizer requires model, loss & inputs");
  Call("free", List({q.share(), o.share()}));
}

TEST_F(PluginOptimizerTest, TrainingStepsSeed004) {
  // q)zerograd o; rx:forward(q;x); ry:loss(l;rx;y); backward ry; step o
  Call("seed", "42");
  KRef tree = Call("seq", "(`sequential;(`linear;2;16);`relu;(`linear;16;3))");
  KRef q = Call("module", tree);
  KRef l = Call("loss", "`ce");
  KRef o = Call("opt", List({kq::Sym("sgd"), q.share(), kq::Float(.2), kq::Float(.9)}));
  KRef x = Call("tensor", "(`randn;300 2)");
  KRef y = Call("tensor", "(`randint;3;300)");
  double first = 0, last = 0;
  for (int i = 0; i < 30; ++i) {
    Call("zerograd", o);
    KRef rx = Call("forward", List({q.share(), x.share()}));
    KRef ry = Call("loss", List({l.share(), rx.share(), y.share()}));
    Call("backward", ry);
    Call("step", o);
    const double value = Call("return", ry)->e;
    (i == 0 ? first : last) = value;
    Call("free", rx);
  }
  EXPECT_LT(last, first);  // the optimizer made progress on the training loss
  Call("free", List({q.share(), l.share(), o.share(), x.share(), y.share()}));
}

TEST_F(PluginOptimizerTest, DefinitionAndParmsTableSeed002) {
  // q)q:module seq(`sequential; (`linear;64;10); `relu)   o:opt(`sgd;q)   d:opt o
  KRef q = Call("module", Call("seq", "(`sequential;(`linear;64;10);`relu)"));
  KRef o = Call("opt", List({kq::Sym("sgd"), q.share()}));
  KRef d = Call("opt", o);
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::DictKeys(d.get())))), "`optimizer`options`parms");
  EXPECT_EQ(S1(At(d, "options")), "+`lr`momentum`dampening`decay`nesterov!(,0.01;,0f;,0f;,0f;,0b)");
  EXPECT_EQ(Shown(At(d, "parms")),
            "parmgroup pointer module name size\n"
            "-\n"
            "0 <ptr> linear 0.weight 10 64\n"
            "0 <ptr> linear 0.bias ,10");
  // The pointer column holds the parameters' ptr.
  KRef w = Call("parm", List({q.share(), kq::Sym("0.weight")}));
  KRef pointers = At(KRef(kabi::r1(kabi::TableDict(At(d, "parms").get()))), "pointer");
  EXPECT_EQ(kabi::Longs(pointers.get())[0], Call("ptr", w)->j);
  // q)o:opt(d;q2): the definition makes an optimizer with the same options over another module
  KRef q2 = Call("module", Call("seq", "(`sequential;(`linear;64;10);`relu)"));
  KRef o2 = Call("opt", List({d.share(), q2.share()}));
  EXPECT_EQ(S1(At(Call("opt", o2), "options")), S1(At(d, "options")));
  EXPECT_EQ(S1(Call("ref", q2)), "2");
  Call("free", List({q.share(), o.share(), w.share(), q2.share(), o2.share()}));
}

TEST_F(PluginOptimizerTest, GroupsAndClippingByGroupSeed004) {
  // q)a:module enlist(`linear;`a;64;32)  b:module enlist(`linear;`b;32;3)  o:opt`sgd
  // q)opt(o;0;a)  opt(o;1;b)
  KRef a = Call("module", "enlist(`linear;`a;64;32)");
  KRef b = Call("module", "enlist(`linear;`b;32;3)");
  KRef o = Call("opt", "`sgd");
  Call("opt", List({o.share(), kq::Long(0), a.share()}));
  Call("opt", List({o.share(), kq::Long(1), b.share(), kq::Float(0.5)}));
  EXPECT_EQ(S1(Call("lr", o)), "0.01 0.5");
  EXPECT_EQ(S1(Call("ref", a)), "2");
  // q)x:tensor(`randn;7 64)  y:tensor(`randint;3;7)  backward z:ce(yb:forward(b;ya:forward(a;x));
  // y)
  KRef x = Call("tensor", "(`randn;7 64)");
  KRef y = Call("tensor", "(`randint;3;7)");
  KRef ya = Call("forward", List({a.share(), x.share()}));
  KRef yb = Call("forward", List({b.share(), ya.share()}));
  KRef z = Call("ce", List({yb.share(), y.share()}));
  Call("backward", z);
  // q)clip(o;1.0;1b) -> one norm per group;  clip(o;.95;1b) -> 1 1 (the last clip held)
  KRef first = Call("clip", List({o.share(), kq::Float(1.0), kq::Bool(true)}));
  ASSERT_EQ(first->t, kabi::kFloat);
  ASSERT_EQ(first->n, 2);
  KRef second = Call("clip", List({o.share(), kq::Float(.95), kq::Bool(true)}));
  for (int g = 0; g < 2; ++g)
    EXPECT_NEAR(kabi::Floats(second.get())[g], std::min(1.0, kabi::Floats(first.get())[g]), 1e-5);
  // q)clip(o; .75) -> the norm across all parameters (a scalar);  clip(o; .5) -> .75
  KRef all = Call("clip", List({o.share(), kq::Float(.75)}));
  EXPECT_EQ(all->t, -kabi::kFloat);
  EXPECT_NEAR(Call("clip", List({o.share(), kq::Float(.5)}))->f, .75, 1e-5);
  EXPECT_NEAR(Call("clip", List({o.share(), kq::Float(.5), kq::Long(2), kq::Bool(false)}))->f, .5,
              1e-5);
  EXPECT_EQ(Call("clip", List({a.share(), kq::Float(.5), kq::Bool(true)}))->t,
            -kabi::kFloat);  // a module: one norm
  // Groups must be consecutive.
  Call("opt", List({o.share(), kq::Long(2), kq::List({})}));
  EXPECT_EQ(Error("opt", List({o.share(), kq::Long(4), kq::List({})})),
            "opt: group 4 invalid, cannot be greater than number of groups(3)");
  EXPECT_EQ(S1(Call("lr", o)), "0.01 0.5 0.01");
  Call("lr", List({o.share(), kq::Floats({.1, .2, .3})}));
  EXPECT_EQ(S1(Call("lr", o)), "0.1 0.2 0.3");
  EXPECT_EQ(Error("lr", List({o.share(), kq::Floats({.1, .2})})), "lr: 2 rates given for 3 groups");
  EXPECT_EQ(Error("clip", List({o.share(), kq::Sym("x")})),
            "clip: arg[1] expected number, given symbol scalar");
  Call("free", List({a.share(), b.share(), o.share(), x.share(), y.share(), ya.share(), yb.share(),
                     z.share()}));
}

TEST_F(PluginOptimizerTest, ChildrenOfAModuleByName) {
  // q)o:opt(`adam;(q;`0);.1)   opt(o;1;(q;2))
  KRef q = Call("module", Call("seq", "(`sequential;(`linear;4;5);`relu;(`linear;5;2))"));
  KRef o = Call("opt", List({kq::Sym("adam"), kq::List({q.share(), kq::Sym("0")}), kq::Float(.1)}));
  Call("opt", List({o.share(), kq::Long(1), kq::List({q.share(), kq::Long(2)})}));
  EXPECT_EQ(Shown(At(Call("opt", o), "parms")),
            "parmgroup pointer module name size\n"
            "-\n"
            "0 <ptr> linear 0.weight 5 4\n"
            "0 <ptr> linear 0.bias ,5\n"
            "1 <ptr> linear 2.weight 2 5\n"
            "1 <ptr> linear 2.bias ,2");
  EXPECT_EQ(S1(Call("lr", o)), "0.1 0.1");
  EXPECT_EQ(Error("opt", List({o.share(), kq::Long(1), kq::List({q.share(), kq::Sym("x")})})),
            "opt: no parameter or child module `x in sequential module");
  Call("free", List({q.share(), o.share()}));
}

TEST_F(PluginOptimizerTest, LooseTensorSteppedToItsTargetSeed004) {
  // q)x:tensor(0.5 2.5 3e;`grad)  y:tensor(1.0 2.0 3e)  z:tensor()  o:opt(`sgd;x)
  // q)\ts:20 {[x;y;z;o]use[z]mse(x;y); backward z; step o}[x;y;z;o]
  KRef x = Call("tensor", "(0.5 2.5 3e;`grad)");
  KRef y = Call("tensor", "1.0 2.0 3e");
  KRef o = Call("opt", List({kq::Sym("sgd"), x.share(), kq::Float(0.5)}));
  EXPECT_EQ(Shown(At(Call("opt", o), "parms")),
            "parmgroup pointer module name size\n"
            "-\n"
            "0 <ptr> parmdict 0 ,3");
  for (int i = 0; i < 20; ++i) {
    Call("zerograd", o);
    KRef z = Call("mse", List({x.share(), y.share()}));
    Call("backward", z);
    Call("step", o);
    Call("free", z);
  }
  KRef values = Call("tensor", x);
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(kabi::Reals(values.get())[i], kabi::Reals(Call("tensor", y).get())[i], 0.01);
  Call("free", List({x.share(), y.share(), o.share()}));
}

TEST_F(PluginOptimizerTest, ClipValueSeed004) {
  // q)z:mean y:mul(x;x:tensor(1 2 3e;`grad))  backward z  grad x -> 0.6666667 1.333333 2e
  KRef x = Call("tensor", "(1 2 3e;`grad)");
  KRef y = Call("mul", List({x.share(), x.share()}));
  KRef z = Call("mean", y);
  Call("backward", z);
  EXPECT_EQ(S1(Call("grad", x)), "0.6666667 1.333333 2e");
  // q)clipv(x;1.2) -> 0n   grad x -> 0.6666667 1.2 1.2e
  EXPECT_EQ(S1(Call("clipv", List({x.share(), kq::Float(1.2)}))), "0n");
  EXPECT_EQ(S1(Call("grad", x)), "0.6666667 1.2 1.2e");
  EXPECT_NEAR(Call("clip", List({x.share(), kq::Float(1.0)}))->f, std::sqrt(4.0 / 9 + 2 * 1.44),
              1e-5);
  EXPECT_THAT(Error("clipv", List({x.share()})),
              ::testing::HasSubstr("clipv: unrecognized arg(s)"));
  Call("free", List({x.share(), y.share(), z.share()}));
}

TEST_F(PluginOptimizerTest, AdamwAmsgradAccountingSeed000) {
  // q)q:module (`sequential; enlist(`linear;128;10); `relu)  o:opt(`adamw; q; `amsgrad,1b)
  // q)backward z:loss(l; x:forward(q;t); y:tensor(`randint;0;10;64))  step o
  // ktorch: optimizer| 6 3872 15496, counting each parameter's integer step as one element of
  // 8 bytes and no tensor.
  KRef q = Call("module", "(`sequential;enlist(`linear;128;10);`relu)");
  KRef o = Call(
      "opt", List({kq::Sym("adamw"), q.share(), kq::List({kq::Sym("amsgrad"), kq::Bool(true)})}));
  EXPECT_EQ(S1(At(Call("opt", List({o.share(), kq::Bool(false)})), "options")),
            "+(,`amsgrad)!,,1b");
  EXPECT_EQ(S1(Call("elements", o)), "0");
  KRef t = Call("tensor", "(`randn;64 128)");
  KRef x = Call("forward", List({q.share(), t.share()}));
  KRef y = Call("tensor", "(`randint;0;10;64)");
  KRef z = Call("ce", List({x.share(), y.share()}));
  Call("backward", z);
  Call("step", o);
  EXPECT_EQ(S1(Call("tensorcount", o)), "6");
  EXPECT_EQ(S1(Call("elements", o)), "3872");
  EXPECT_EQ(S1(Call("bytes", o)), "15496");
  Call("free", List({q.share(), o.share(), t.share(), x.share(), y.share(), z.share()}));
}

TEST_F(PluginOptimizerTest, StateRestoresAnOptimizerThatContinuesSeed002) {
  // q)s:state o   cols s`parms -> `parmgroup`pointer`module`name`size`buffers
  KRef q = Call("module", "enlist(`linear;4;3)");
  KRef o = Call("opt", List({kq::Sym("lamb"), q.share(), kq::Float(.05)}));
  KRef x = Call("tensor", "(`randn;5 4)");
  auto train = [&](const KRef& m, const KRef& op) {
    Call("zerograd", op);
    KRef y = Call("forward", List({m.share(), x.share()}));
    KRef z = Call("mean", y);
    Call("backward", z);
    Call("step", op);
    Call("free", List({y.share(), z.share()}));
  };
  train(q, o);
  KRef s = Call("state", o);
  KRef parms = At(s, "parms");
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::DictKeys(kabi::TableDict(parms.get()))))),
            "`parmgroup`pointer`module`name`size`buffers");
  KRef buffers = At(KRef(kabi::r1(kabi::TableDict(parms.get()))), "buffers");
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::DictKeys(kabi::Items(buffers.get())[1])))),
            "`step`exp_avg`exp_avg_sq");
  // q)q2:module state q   o2:opt(s;q2): the next steps are the same
  KRef q2 = Call("module", Call("state", q));
  KRef o2 = Call("opt", List({s.share(), q2.share()}));
  train(q, o);
  train(q2, o2);
  for (const char* name : {"weight", "bias"}) {
    KRef p = Call("parm", List({q.share(), kq::Sym(name)})),
         p2 = Call("parm", List({q2.share(), kq::Sym(name)}));
    EXPECT_EQ(S1(Call("tensor", p)), S1(Call("tensor", p2)));
    Call("free", List({p.share(), p2.share()}));
  }
  EXPECT_EQ(Error("opt", List({s.share(), o.share()})),
            "opt: expected module or model, given optimizer");
  Call("free", List({q.share(), o.share(), x.share(), q2.share(), o2.share()}));
}

}  // namespace plugin_optimizer_test
}  // namespace kscope::testing
