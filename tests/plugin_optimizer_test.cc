// Optimizers through the plugin, and the training steps of seed 004 with module, loss and
// optimizer objects.
#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace {

using OptimizerSeedTest = PluginTest;

TEST_F(OptimizerSeedTest, AnOptimizerKeepsItsModuleSeed000) {
  // q)m:module enlist(`linear;512;10)  o:opt(`adam; m)  ref m -> 2   free o   ref m -> 1
  KRef m = Call("module", "enlist(`linear;512;10)");
  KRef o = Call("opt", List({kq::Sym("adam"), m.share()}));
  EXPECT_EQ(S1(Call("ref", m)), "2");
  Call("free", o);
  EXPECT_EQ(S1(Call("ref", m)), "1");
  Call("free", m);
}

TEST_F(OptimizerSeedTest, ClassesAndSizesSeed000) {
  // q)class each(t;m;o;l) -> `tensor`module`optimizer`loss
  KRef t = Call("tensor", "1 2 3");
  KRef m = Call("module", "`relu");
  KRef o = Call("opt", "`sgd");
  KRef l = Call("loss", "`mse");
  EXPECT_EQ(S1(Each("class", {&t, &m, &o, &l})), "`tensor`module`optimizer`loss");
  // q)q:module (`sequential; enlist(`linear;128;10); `relu)  o:opt(`adam; q)  size each -> 2 0 2
  KRef q = Call("module", "(`sequential;enlist(`linear;128;10);enlist `relu)");
  KRef adam = Call("opt", List({kq::Sym("adam"), q.share()}));
  EXPECT_EQ(S1(Call("size", q)), ",2");
  EXPECT_EQ(S1(Call("size", l)), ",0");
  EXPECT_EQ(S1(Call("size", adam)), ",2");
  EXPECT_EQ(S1(Call("elements", adam)), "0");  // no buffers before the first step
  Call("free", List({t.share(), m.share(), o.share(), l.share(), q.share(), adam.share()}));
}

TEST_F(OptimizerSeedTest, OptionsLrAndQuery) {
  // q)o:opt(`sgd; q; .2; .99)   gradient descent: learning rate .2, momentum .99
  KRef q = Call("module", "enlist(`linear;2;3)");
  KRef o = Call("opt", List({kq::Sym("sgd"), q.share(), kq::Float(.2), kq::Float(.99)}));
  EXPECT_EQ(S1(Call("lr", o)), ",0.2");
  EXPECT_EQ(S1(Call("opt", List({o.share(), kq::Bool(false)}))),
            "`optimizer`options`parameters!(`sgd;`lr`momentum!0.2 0.99;2)");
  Call("lr", List({o.share(), kq::Float(0.05)}));
  EXPECT_EQ(S1(Call("lr", o)), ",0.05");
  EXPECT_EQ(Error("opt", "`sgdx"), "opt: unrecognized optimizer `sgdx");
  EXPECT_EQ(Error("opt", List({kq::Sym("sgd"), q.share(), kq::Sym("fast")})), "sgd: option `lr expects double, given symbol");
  Call("free", List({q.share(), o.share()}));
}

TEST_F(OptimizerSeedTest, LbfgsIsQueriedButNotStepped) {
  // q)o:opt(`lbfgs;q;0.5)   step o -> 'LBFGS optimizer requires model, loss & inputs
  KRef q = Call("module", "enlist(`linear;2;3)");
  KRef o = Call("opt", List({kq::Sym("lbfgs"), q.share(), kq::Float(.5)}));
  EXPECT_EQ(S1(Call("opt", o)),
            "`optimizer`options`parameters!(`lbfgs;`lr`iter`eval`gradtol`changetol`history`search!(0.5;20;::;1e-07;1e-09;100;::);2)");
  EXPECT_EQ(Error("step", o), "LBFGS optimizer requires model, loss & inputs");
  Call("free", List({q.share(), o.share()}));
}

TEST_F(OptimizerSeedTest, TrainingStepsSeed004) {
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

}  // namespace
}  // namespace kscope::testing
