// The q examples (examples/q/*.q) run as their plugin calls through the k host: each test makes
// the calls its script makes, in the same order (q's right-to-left order within a line), with
// smaller sizes, and checks what the script checks — the accuracy or the fitted values, and
// obj[] empty at the end. The functions a script runs in withscope are host functions here that
// call the plugin; the script's own q code between calls (the spiral arms, the argmax behind
// its accuracy, formatting the progress lines) is done in C++. Keep each test in step with its
// script: a changed call in one is a changed call in the other.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_examples_test {

// A new reference to a borrowed k object (a host function's argument).
KRef Arg(kabi::K x) { return KRef(kabi::r1(x)); }

// The number in a real or float atom (plugin results such as a loss or an accuracy).
double Number(const KRef& x) {
  if (x->t == -kabi::kReal) return x->e;
  EXPECT_EQ(x->t, -kabi::kFloat) << "not a real or float atom: " << S1(x);
  return x->f;
}

// Item i of a general list, as a new reference.
KRef Item(const KRef& list, long long i) { return Arg(kabi::Items(list.get())[i]); }

// Item i of a float or real vector, or of a general list of such atoms.
double NumberAt(const KRef& v, long long i) {
  if (v->t == kabi::kFloat) return kabi::Floats(v.get())[i];
  if (v->t == kabi::kReal) return kabi::Reals(v.get())[i];
  return Number(Item(v, i));
}

// q)100*avg c={x?max x}each scores — percent of rows whose highest score is at their class.
double Accuracy(const KRef& scores, const KRef& classes) {
  EXPECT_EQ(scores->n, classes->n);
  long long matched = 0;
  for (long long i = 0; i < scores->n; ++i) {
    const std::vector<float> row = Reals(Item(scores, i));
    const long long predicted = std::max_element(row.begin(), row.end()) - row.begin();
    matched += predicted == kabi::Longs(classes.get())[i];
  }
  return 100.0 * matched / scores->n;
}

class PluginExamplesTest : public PluginTest {
 protected:
  // q)count obj[] — the live pointers.
  long long LivePointers() {
    const KRef table = Call("obj");
    return kabi::Items(kabi::DictValues(kabi::TableDict(table.get())))[0]->n;
  }

  // The data of mnist_logistic.q and distributed_mnist.q: a mean image per class, n training
  // and N test rows, made in scopes of their own.
  struct MnistData {
    KRef means, d, D;
  };
  MnistData Mnist(std::int64_t n, std::int64_t N) {
    // q)seed 123
    Call("seed", "123");
    // q)means:withscope[{mul(tensor(`randn;10 784);x)};.15]
    KRef scale(khost::Function(1, [&](const std::vector<kabi::K>& a) -> kabi::K {
      return Call("mul", List({Call("tensor", "(`randn;10 784)").share(), kabi::r1(a[0])}))
          .release();
    }));
    KRef means = Call("withscope", List({scale.share(), kq::Float(.15)}));
    // q)images:{[means;n] y:tensor(`randint;10;n); (add(index(means;0;y);tensor(`randn;n,784));y)}
    KRef images(khost::Function(2, [&](const std::vector<kabi::K>& a) -> kabi::K {
      KRef labels = Call("tensor", List({kq::Sym("randint"), kq::Long(10), kabi::r1(a[1])}));
      const KRef noise = Call("tensor", List({kq::Sym("randn"), kq::Longs({a[1]->j, 784})}));
      const KRef rows = Call("index", List({kabi::r1(a[0]), kq::Long(0), labels.share()}));
      return kq::List(
          {Call("add", List({rows.share(), noise.share()})).release(), labels.release()});
    }));
    // q)d:withscopen[images;(means;n)]   D:withscopen[images;(means;N)]
    const long long before = LivePointers();
    KRef d = Call("withscope", List({images.share(), means.share(), kq::Long(n)}));
    KRef D = Call("withscope", List({images.share(), means.share(), kq::Long(N)}));
    EXPECT_EQ(LivePointers(), before + 4);  // only the (x;y) pairs survived their scopes
    return {std::move(means), std::move(d), std::move(D)};
  }
};

// examples/q/spirals.q, with 100 points per class.
TEST_F(PluginExamplesTest, SpiralsScript) {
  constexpr int n = 100, k = 3;
  // q)seed 123
  Call("seed", "123");
  // q)points:{[n] z:tensor(`randn;k,n;`double); "e"$raze spiral[n]'[til k;.2*tensor z]}
  // with spiral:{x:til[x]%x-1; flip x*/:(sin;cos)@\:z+sum 4*(x;y)}
  std::vector<std::int64_t> noise_tensors;
  KRef points(khost::Function(1, [&](const std::vector<kabi::K>& a) -> kabi::K {
    const std::int64_t rows = a[0]->j;
    KRef z = Call("tensor", List({kq::Sym("randn"), kq::Longs({k, rows}), kq::Sym("double")}));
    noise_tensors.push_back(PointerId(z));
    return SpiralPoints(Call("tensor", z), static_cast<int>(rows), k).share();
  }));
  // q)q:module seq(`sequential;(`linear;2;100);`relu;(`linear;100;k))   l:loss`ce
  // o:opt(`sgd;q;.2;.99)
  KRef q = Call("module", Call("seq", "(`sequential;(`linear;2;100);`relu;(`linear;100;3))"));
  KRef l = Call("loss", "`ce");
  KRef o = Call("opt", List({kq::Sym("sgd"), q.share(), kq::Float(.2), kq::Float(.99)}));
  // q)x:tensor withscope[points;n]
  KRef x = Call("tensor", Call("withscope", List({points.share(), kq::Long(n)})));
  EXPECT_EQ(S1(Call("mapped", KRef(kq::Enlist(kq::Long(noise_tensors.at(0)))))),
            "0b");  // z died with the scope
  // q)y:tensor c:til[k]where k#n
  KRef classes = SpiralClasses(n, k);
  KRef y = Call("tensor", classes);
  // q)trainstep:{[q;l;o;x;y] zerograd o; r:loss(l;forward(q;x);y); backward r; step o; tensor r}
  KRef trainstep(khost::Function(5, [&](const std::vector<kabi::K>& a) -> kabi::K {
    Call("zerograd", Arg(a[2]));
    const KRef r =
        Call("loss",
             List({kabi::r1(a[1]), Call("forward", List({kabi::r1(a[0]), kabi::r1(a[3])})).share(),
                   kabi::r1(a[4])}));
    Call("backward", r);
    Call("step", Arg(a[2]));
    return Call("tensor", r).release();
  }));
  // q){[i] r:withscopen[trainstep;(q;l;o;x;y)]; if[0=i mod 100; -1 "step ",..]} each 1+til 1000
  const long long before = LivePointers();
  std::vector<double> losses;
  for (int i = 1; i <= 1000; ++i) {
    const KRef r =
        Call("withscope",
             List({trainstep.share(), q.share(), l.share(), o.share(), x.share(), y.share()}));
    if (i % 100 == 0) losses.push_back(Number(r));
  }
  EXPECT_EQ(LivePointers(), before);  // each step's output and loss died with its scope
  EXPECT_GT(losses.front(), losses.back());
  // q)accuracy:{[x] 100*avg c={x?max x}each evaluate(q;x)}   a:accuracy x
  const double a = Accuracy(Call("evaluate", List({q.share(), x.share()})), classes);
  // q)accuracy withscope[points;n]
  const KRef sample = Call("withscope", List({points.share(), kq::Long(n)}));
  const double fresh = Accuracy(Call("evaluate", List({q.share(), sample.share()})), classes);
  // q)free(q;l;o;x;y)   show obj[]   if[count obj[]; ..]   if[not a>95; ..]
  Call("free", List({q.share(), l.share(), o.share(), x.share(), y.share()}));
  EXPECT_EQ(LivePointers(), 0);
  EXPECT_GT(a, 95);
  EXPECT_GT(fresh, 90);  // printed by the script: a fresh sample is classified about as well
}

// examples/q/mnist_logistic.q, with n:3000 training rows and N:1000 test rows.
TEST_F(PluginExamplesTest, MnistLogisticScript) {
  constexpr std::int64_t n = 3000, N = 1000, epochs = 10;
  MnistData data = Mnist(n, N);
  KRef& means = data.means;
  KRef& d = data.d;
  KRef& D = data.D;
  // q)q:module enlist(`linear;784;10)   m:model(q;loss`ce;opt(`sgd;q;.5))
  KRef q = Call("module", List({Q("(`linear;784;10)").share()}));
  KRef o = Call("opt", List({kq::Sym("sgd"), q.share(), kq::Float(.5)}));
  KRef l = Call("loss", "`ce");
  KRef m = Call("model", List({q.share(), l.share(), o.share()}));
  // q)train(m;`batchsize`shuffle`metrics;(1000;1b;`loss))
  // test(m;`batchsize`metrics;(1000;`accuracy))
  Call("train", List({m.share(), kq::Syms({"batchsize", "shuffle", "metrics"}),
                      Q("(1000;1b;`loss)").share()}));
  Call("test",
       List({m.share(), kq::Syms({"batchsize", "metrics"}), Q("(1000;`accuracy)").share()}));
  // q)b:train(m;d 0;d 1)   test(m;D 0;D 1)
  EXPECT_EQ(S1(Call("train", List({m.share(), Item(d, 0).share(), Item(d, 1).share()}))), "3");
  EXPECT_EQ(S1(Call("test", List({m.share(), Item(D, 0).share(), Item(D, 1).share()}))), "1");
  // q)epoch:{[i] s:.z.p; r:run m; -1 "epoch ",..; r}   withscope[epoch]each 1+til epochs
  KRef epoch(khost::Function(
      1, [&](const std::vector<kabi::K>&) -> kabi::K { return Call("run", m).release(); }));
  std::vector<double> losses;
  for (std::int64_t i = 1; i <= epochs; ++i) {
    losses.push_back(Number(Call("withscope", List({epoch.share(), kq::Long(i)}))));
  }
  EXPECT_LT(losses.back(), losses.front() / 2);
  // q)a:testrun m
  const double a = Number(Call("testrun", m));
  // q)free(m;means;d 0;d 1;D 0;D 1)   show obj[]   if[count obj[]; ..]   if[not a>90; ..]
  Call("free", List({m.share(), means.share(), Item(d, 0).share(), Item(d, 1).share(),
                     Item(D, 0).share(), Item(D, 1).share()}));
  EXPECT_EQ(LivePointers(), 0);
  EXPECT_GT(a, 90);
}

// examples/q/distributed_mnist.q as a world of one (no KSCOPE_* environment: rank 0 of 1, a file
// rendezvous), with n:3000 training rows, N:1000 test rows and 5 epochs.
TEST_F(PluginExamplesTest, DistributedMnistScript) {
  constexpr std::int64_t n = 3000, N = 1000, epochs = 5;
  const std::string rendezvous =
      absl::StrFormat("%skscope_distributed_mnist_%d", ::testing::TempDir(), getpid());
  MnistData data = Mnist(n, N);
  // q)g:$[launched;group[];group(0;1;rendezvous)]   (here not launched: a world of one)
  KRef g = Call("group", List({kq::Long(0), kq::Long(1), kq::Sym(rendezvous)}));
  // q)q:module enlist(`linear;784;10)   m:model(q;loss`ce;opt(`sgd;q;.5))
  KRef q = Call("module", List({Q("(`linear;784;10)").share()}));
  KRef o = Call("opt", List({kq::Sym("sgd"), q.share(), kq::Float(.5)}));
  KRef l = Call("loss", "`ce");
  KRef m = Call("model", List({q.share(), l.share(), o.share()}));
  // q)train(m;`batchsize`shuffle`shuffleseed`metrics;(500;1b;7;`loss`grouploss))
  Call("train", List({m.share(), kq::Syms({"batchsize", "shuffle", "shuffleseed", "metrics"}),
                      Q("(500;1b;7;`loss`grouploss)").share()}));
  // q)test(m;`batchsize`metrics;(500;`groupaccuracy))
  Call("test",
       List({m.share(), kq::Syms({"batchsize", "metrics"}), Q("(500;`groupaccuracy)").share()}));
  // q)train(m;d 0;d 1)   test(m;D 0;D 1)   distribute(m;g)
  Call("train", List({m.share(), Item(data.d, 0).share(), Item(data.d, 1).share()}));
  Call("test", List({m.share(), Item(data.D, 0).share(), Item(data.D, 1).share()}));
  Call("distribute", List({m.share(), g.share()}));
  // q)epoch:{[i] r:run m; -1 ..; r}   withscope[epoch]each 1+til epochs
  KRef epoch(khost::Function(
      1, [&](const std::vector<kabi::K>&) -> kabi::K { return Call("run", m).release(); }));
  std::vector<double> losses;
  for (std::int64_t i = 1; i <= epochs; ++i) {
    // loss and grouploss: two atoms of one type, so one vector (as ktorch 2.3 gives metrics)
    const KRef r = Call("withscope", List({epoch.share(), kq::Long(i)}));
    ASSERT_EQ(r->n, 2);
    EXPECT_TRUE(r->t == kabi::kFloat || r->t == kabi::kReal) << S1(r);
    EXPECT_EQ(NumberAt(r, 0), NumberAt(r, 1));  // one task: its loss is the group's
    losses.push_back(NumberAt(r, 1));
  }
  EXPECT_LT(losses.back(), losses.front() / 2);
  // q)a:testrun m
  const double a = Number(Call("testrun", m));
  // q)p:copyparms q:module m; w:dict p; allreduce(p;`max)   same:w~dict p; free(p;q)
  KRef module = Call("module", m);
  KRef p = Call("copyparms", module);
  const KRef w = Call("dict", p);
  Call("allreduce", List({p.share(), kq::Sym("max")}));
  EXPECT_EQ(S1(Call("dict", p)), S1(w));
  Call("free", List({p.share(), module.share()}));
  // q)free(m;g;means;d 0;d 1;D 0;D 1)   if[count obj[]; ..]   if[not same; ..]   if[not a>90; ..]
  Call("free", List({m.share(), g.share(), data.means.share(), Item(data.d, 0).share(),
                     Item(data.d, 1).share(), Item(data.D, 0).share(), Item(data.D, 1).share()}));
  EXPECT_EQ(LivePointers(), 0);
  EXPECT_GT(a, 90);
  std::remove(rendezvous.c_str());
}

// examples/q/lbfgs.q.
TEST_F(PluginExamplesTest, LbfgsScript) {
  // q)seed 123
  Call("seed", "123");
  // q)t:-1+til[101]%50   x:flip "e"$(t;t*t)   y:flip enlist "e"$1+(-2*t)+.5*t*t
  std::vector<kabi::K> features, targets;
  for (int i = 0; i <= 100; ++i) {
    const double t = -1 + i / 50.0;
    features.push_back(kq::Reals({static_cast<float>(t), static_cast<float>(t * t)}));
    targets.push_back(kq::Reals({static_cast<float>(1 - 2 * t + .5 * t * t)}));
  }
  KRef x(kq::List(features)), y(kq::List(targets));
  // q)q:module enlist(`linear;2;1)   m:model(q;loss`mse;opt(`lbfgs;q;1.0;`search;`strong_wolfe))
  KRef q = Call("module", List({Q("(`linear;2;1)").share()}));
  KRef o = Call("opt", List({kq::Sym("lbfgs"), q.share(), kq::Float(1.0), kq::Sym("search"),
                             kq::Sym("strong_wolfe")}));
  KRef l = Call("loss", "`mse");
  KRef m = Call("model", List({q.share(), l.share(), o.share()}));
  // q)train(m;x;y)
  EXPECT_EQ(S1(Call("train", List({m.share(), x.share(), y.share()}))),
            "4");  // batches of 32; backstep takes all
  // q){-1 "backstep ",(string x),"  loss ",string backstep m} each 1+til 5
  std::vector<double> losses;
  for (int i = 1; i <= 5; ++i) losses.push_back(Number(Call("backstep", m)));
  EXPECT_GT(losses.front(), 0.1);
  EXPECT_LT(losses.back(), 1e-8);
  // q)f:withscope[{(tensor parm(x;`weight);tensor parm(x;`bias))};m]
  KRef parameters(khost::Function(1, [&](const std::vector<kabi::K>& a) -> kabi::K {
    KRef bias = Call("tensor", Call("parm", List({kabi::r1(a[0]), kq::Sym("bias")})));
    KRef weight = Call("tensor", Call("parm", List({kabi::r1(a[0]), kq::Sym("weight")})));
    return kq::List({weight.release(), bias.release()});
  }));
  const KRef f = Call("withscope", List({parameters.share(), m.share()}));
  // q)w:first f 0; b:first f 1
  const std::vector<float> w = Reals(Item(f, 0)), b = Reals(Item(f, 1));
  // q)free m   show obj[]   if[count obj[]; ..]   if[1e-4<max abs(b;w 0;w 1)-1 -2 .5; ..]
  Call("free", m);
  EXPECT_EQ(LivePointers(), 0);
  ASSERT_EQ(w.size(), 2u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_NEAR(b[0], 1, 1e-4);
  EXPECT_NEAR(w[0], -2, 1e-4);
  EXPECT_NEAR(w[1], .5, 1e-4);
}

}  // namespace plugin_examples_test
}  // namespace kscope::testing
