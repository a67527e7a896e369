// Models as arguments through the plugin: clip(m;maxnorm[;normtype][;groupflag]) and clipv(m;value)
// over the model's optimizer's parameters, clip m by the model's training options (0n, a norm,
// or one norm per group), opt(`kind;m) / opt(`kind;group;(m;children)) / opt(o;group;m), and
// batchnorm m / batchnorm q / batchnorm(q;d) with the statistics checked against the data.
#include <algorithm>
#include <cmath>
#include <vector>

#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_clip_test {

class PluginClipTest : public PluginTest {
 protected:
  // q)q:module seq(`sequential;(`linear;4;5);`relu;(`linear;5;2))  o:opt`sgd
  // q)opt(o;0;(q;0))  opt(o;1;(q;2))  m:model(q;loss`mse;o)  backward(m;x;y)
  KRef TwoGroupModel() {
    KRef q = Call("module", Call("seq", "(`sequential;(`linear;4;5);`relu;(`linear;5;2))"));
    KRef o = Call("opt", "`sgd");
    Call("opt", List({o.share(), kq::Long(0), kq::List({q.share(), kq::Long(0)})}));
    Call("opt", List({o.share(), kq::Long(1), kq::List({q.share(), kq::Long(2)})}));
    KRef m = Call("model", List({q.share(), Call("loss", "`mse").share(), o.share()}));
    KRef x = Call("tensor", "(`randn;6 4)");
    KRef y = Call("tensor", "(`randn;6 2)");
    KRef x10 = Call("mul", List({x.share(), kq::Float(10)}));
    Call("backward", List({m.share(), x10.share(), y.share()}));
    Call("free", List({x.share(), y.share(), x10.share()}));
    return m;
  }

  // The gradient of parameter `name` of model m, as k reals.
  std::vector<float> Grad(const KRef& m, const char* name) {
    KRef p = Call("parm", List({m.share(), kq::Sym(name)}));
    std::vector<float> g = Reals(Call("grad", p));
    Call("free", p);
    return g;
  }
  float LargestGrad(const KRef& m) {
    float largest = 0;
    for (const char* name : {"0.weight", "0.bias", "2.weight", "2.bias"}) {
      for (float g : Grad(m, name)) largest = std::max(largest, std::abs(g));
    }
    return largest;
  }
};

TEST_F(PluginClipTest, ClipAModelsOptimizerParameters) {
  Call("seed", "7");
  KRef m = TwoGroupModel();
  // q)clip(m;1.0;1b) -> one norm per optimizer group;  clip(m;.5;1b) -> 1 1 (the last clip held)
  KRef first = Call("clip", List({m.share(), kq::Float(1.0), kq::Bool(true)}));
  ASSERT_EQ(first->t, kabi::kFloat);
  ASSERT_EQ(first->n, 2);
  ASSERT_GT(kabi::Floats(first.get())[0], 1);
  ASSERT_GT(kabi::Floats(first.get())[1], 1);
  KRef second = Call("clip", List({m.share(), kq::Float(.5), kq::Long(2), kq::Bool(true)}));
  for (int g = 0; g < 2; ++g) EXPECT_NEAR(kabi::Floats(second.get())[g], 1, 1e-5);
  // q)clip(m;.1) -> the norm across both groups, each at .5
  KRef all = Call("clip", List({m.share(), kq::Float(.1)}));
  ASSERT_EQ(all->t, -kabi::kFloat);
  EXPECT_NEAR(all->f, std::sqrt(.5), 1e-5);
  // q)clipv(m;.001) -> 0n, every gradient within +-.001
  ASSERT_GT(LargestGrad(m), .001f);
  EXPECT_EQ(S1(Call("clipv", List({m.share(), kq::Float(.001)}))), "0n");
  EXPECT_FLOAT_EQ(LargestGrad(m), .001f);
  KRef l = Call("loss", "`mse");
  EXPECT_EQ(Error("clip", List({l.share(), kq::Float(1)})),
            "clip: expected tensor, vector, dictionary, module, optimizer or model, given loss");
  EXPECT_EQ(Error("clipv", List({l.share(), kq::Float(1)})),
            "clipv: expected tensor, vector, dictionary, module, optimizer or model, given loss");
  EXPECT_EQ(Error("clip", l), "clip: expected model, given loss");
  Call("free", List({m.share(), l.share()}));
}

TEST_F(PluginClipTest, ClipAModelByItsTrainingOptions) {
  Call("seed", "7");
  KRef m = TwoGroupModel();
  const std::vector<float> before = Grad(m, "2.weight");
  // q)clip m -> 0n with neither clipnorm nor clipvalue: nothing clipped
  EXPECT_EQ(S1(Call("clip", m)), "0n");
  EXPECT_EQ(Grad(m, "2.weight"), before);
  // q)train(m;`clipnorm;.5); clip m -> the previous norm (a scalar); clip m -> .5
  Call("train", List({m.share(), kq::Sym("clipnorm"), kq::Float(.5)}));
  KRef norm = Call("clip", m);
  ASSERT_EQ(norm->t, -kabi::kFloat);
  ASSERT_GT(norm->f, .5);
  EXPECT_NEAR(Call("clip", m)->f, .5, 1e-5);
  // q)train(m;`clipgroup;1b); clip m -> one norm per group, together the norm .5
  Call("train", List({m.share(), kq::Sym("clipgroup"), kq::Bool(true)}));
  KRef norms = Call("clip", m);
  ASSERT_EQ(norms->t, kabi::kFloat);
  ASSERT_EQ(norms->n, 2);
  EXPECT_NEAR(std::hypot(kabi::Floats(norms.get())[0], kabi::Floats(norms.get())[1]), .5, 1e-5);
  // q)train(m;`clipvalue;.001); clip m -> 0n, every gradient within +-.001
  Call("train", List({m.share(), kq::Sym("clipvalue"), kq::Float(.001)}));
  ASSERT_GT(LargestGrad(m), .001f);
  EXPECT_EQ(S1(Call("clip", m)), "0n");
  EXPECT_FLOAT_EQ(LargestGrad(m), .001f);
  Call("free", m);
}

TEST_F(PluginClipTest, OptGivenAModel) {
  // q)m:model(q;loss`mse;opt`sgd)  o:opt(`adam;m) -> the parameters of the model's module
  KRef q = Call("module", Call("seq", "(`sequential;(`linear;4;5);`relu;(`linear;5;2))"));
  KRef m =
      Call("model", List({q.share(), Call("loss", "`mse").share(), Call("opt", "`sgd").share()}));
  KRef o = Call("opt", List({kq::Sym("adam"), m.share(), kq::Float(.1)}));
  KRef parms = Call("opt", o);
  kabi::K keys = kabi::DictKeys(parms.get());
  ASSERT_EQ(std::string(kabi::Symbols(keys)[2]), "parms");
  KRef columns(kabi::r1(kabi::TableDict(kabi::Items(kabi::DictValues(parms.get()))[2])));
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::Items(kabi::DictValues(columns.get()))[3]))),
            "`0.weight`0.bias`2.weight`2.bias");
  EXPECT_EQ(S1(Call("lr", o)), ",0.1");
  // q)o2:opt(`sgd;1;(m;`2))  opt(o2;0;(m;0))
  KRef o2 = Call("opt", List({kq::Sym("sgd"), kq::Long(1), kq::List({m.share(), kq::Sym("2")})}));
  Call("opt", List({o2.share(), kq::Long(0), kq::List({m.share(), kq::Long(0)})}));
  KRef rows = Call("opt", o2);
  KRef columns2(kabi::r1(kabi::TableDict(kabi::Items(kabi::DictValues(rows.get()))[2])));
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::Items(kabi::DictValues(columns2.get()))[0]))), "0 0 1 1");
  EXPECT_EQ(S1(KRef(kabi::r1(kabi::Items(kabi::DictValues(columns2.get()))[3]))),
            "`0.weight`0.bias`2.weight`2.bias");
  // The new optimizer steps the model's parameters.
  KRef p = Call("parm", List({m.share(), kq::Sym("2.bias")}));
  const std::vector<float> before = Reals(Call("tensor", p));
  KRef x = Call("tensor", "(`randn;3 4)");
  KRef y = Call("tensor", "(`randn;3 2)");
  Call("backward", List({m.share(), x.share(), y.share()}));
  Call("step", o);
  EXPECT_NE(Reals(Call("tensor", p)), before);
  KRef l = Call("loss", "`mse");
  EXPECT_EQ(Error("opt", List({kq::Sym("sgd"), kq::Long(0), l.share()})),
            "opt: expected module, model, tensor, vector or dictionary, given loss");
  Call("free",
       List({m.share(), o.share(), o2.share(), p.share(), x.share(), y.share(), l.share()}));
}

// Mean and unbiased variance of each column of a rows x cols matrix.
std::pair<std::vector<double>, std::vector<double>> Moments(const std::vector<float>& x, int rows,
                                                            int cols) {
  std::vector<double> mean(cols, 0), var(cols, 0);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) mean[j] += x[i * cols + j] / static_cast<double>(rows);
  }
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) var[j] += std::pow(x[i * cols + j] - mean[j], 2) / (rows - 1);
  }
  return {mean, var};
}

TEST_F(PluginClipTest, BatchnormOfAModelAndAModule) {
  // q)q:module seq(`sequential;(`batchnorm1d;3);(`linear;3;2))  m:model(q;loss`mse;opt`sgd)
  // q)train(m;`batchsize;12)  train(m;x;y)  batchnorm m -> (,`0)!,0.1
  KRef q = Call("module", Call("seq", "(`sequential;(`batchnorm1d;3);(`linear;3;2))"));
  KRef m =
      Call("model", List({q.share(), Call("loss", "`mse").share(), Call("opt", "`sgd").share()}));
  Call("train", List({m.share(), kq::Sym("batchsize"), kq::Long(12)}));
  KRef x = Call("tensor", "(`randn;12 3)");
  KRef y = Call("tensor", "(`randn;12 2)");
  Call("train", List({m.share(), x.share(), y.share()}));
  KRef module = Call("module", m);
  Call("training", List({module.share(), kq::Bool(false)}));
  EXPECT_EQ(S1(Call("batchnorm", m)), "(,`0)!,0.1");
  const auto [mean, var] = Moments(Reals(Call("tensor", x)), 12, 3);
  KRef running_mean = Call("buffer", List({module.share(), kq::Sym("0.running_mean")}));
  KRef running_var = Call("buffer", List({module.share(), kq::Sym("0.running_var")}));
  const std::vector<float> rm = Reals(Call("tensor", running_mean)),
                           rv = Reals(Call("tensor", running_var));
  for (int j = 0; j < 3; ++j) {
    EXPECT_NEAR(rm[j], mean[j], 1e-5) << j;
    EXPECT_NEAR(rv[j], var[j], 1e-5) << j;
  }
  EXPECT_EQ(S1(Call("training", module)), "0b");  // as it was
  // q)d:batchnorm module m -> the momentum put back; then null until batchnorm(q;d)
  KRef d = Call("batchnorm", module);
  EXPECT_EQ(S1(d), "(,`0)!,0.1");
  EXPECT_EQ(Reals(Call("tensor", running_mean)), std::vector<float>({0, 0, 0}));  // reset
  EXPECT_EQ(S1(Call("batchnorm", module)), "(,`0)!,0n");
  Call("batchnorm", List({module.share(), d.share()}));
  EXPECT_EQ(S1(Call("batchnorm", module)), "(,`0)!,0.1");
  Call("batchnorm", List({module.share(), d.share()}));
  EXPECT_EQ(Error("batchnorm", List({module.share(), Q("(,`x)!,0.1").share()})),
            "batchnorm: no batchnorm layer `x in sequential module");
  EXPECT_EQ(Error("batchnorm", List({module.share(), Q("(,`0)!,`a").share()})),
            "batchnorm: expected dictionary of layer names -> momentum (floats), given symbol list "
            "-> symbol list");
  KRef linear = Call("module", "enlist(`linear;2;2)");
  KRef none = Call("batchnorm", linear);  // an empty dictionary of symbols -> floats
  ASSERT_EQ(none->t, kabi::kDictionary);
  EXPECT_EQ(kabi::DictKeys(none.get())->t, kabi::kSymbol);
  EXPECT_EQ(kabi::DictValues(none.get())->t, kabi::kFloat);
  EXPECT_EQ(kabi::DictKeys(none.get())->n, 0);
  Call("free", List({m.share(), x.share(), y.share(), module.share(), running_mean.share(),
                     running_var.share(), linear.share()}));
}

}  // namespace plugin_clip_test
}  // namespace kscope::testing
