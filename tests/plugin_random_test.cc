// The random group D8 through the plugin, as q calls it: the fills normal uniform random cauchy
// exponential geometric lognormal on k data (a filled copy back) and on tensor, vector,
// dictionary and module pointers (null back, the tensors changed), whole or by index/key/name;
// each pointer form checked against the k-data form drawn from the same seed, and normal and
// uniform against the plugin's randn/rand draws scaled; bernoulli and multinomial on data,
// pointers and into an output pointer (probabilities of 0 and 1 make their draws certain).
// api/tensor/random_fill.h's own tests compare every call with libtorch's. Bad arguments of each
// form give the function's error and change nothing.
#include <cmath>
#include <string>
#include <vector>

#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_random_test {

using ::testing::ElementsAre;
using ::testing::Ge;
using ::testing::Gt;
using ::testing::HasSubstr;

class PluginRandomTest : public PluginTest {
 protected:
  std::vector<float> Values(const KRef& t) { return Reals(Call("tensor", t)); }

  // fn(x;options..) from seed 5 on k data x: the filled copy.
  KRef OnData(const char* fn, const char* x, const char* options) {
    Call("seed", "5");
    return Call(fn, Q(std::string("(") + x + ";" + options + ")"));
  }
  // The same call from seed 5 on a new pointer to x: null back, then the tensor's values.
  KRef OnPointer(const char* fn, const char* x, const char* options) {
    KRef p = Call("tensor", x);
    Call("seed", "5");
    KRef args = Q(std::string("(::;") + options + ")");
    std::vector<kabi::K> items{p.share()};
    for (long long j = 1; j < args->n; ++j) items.push_back(kabi::r1(kabi::Items(args.get())[j]));
    EXPECT_EQ(S1(Call(fn, KRef(kq::List(items)))), "::") << fn;
    KRef v = Call("tensor", p);
    Call("free", p);
    return v;
  }
  // Seed 5's draw of `mode` (randn or rand) for `size`.
  std::vector<float> Draw(const char* mode, const char* size) {
    Call("seed", "5");
    KRef t = Call("tensor", List({kq::Sym(mode), Q(size).share()}));
    std::vector<float> v = Values(t);
    Call("free", t);
    return v;
  }
};

void ExpectScaled(const std::vector<float>& got, const std::vector<float>& drawn, double scale,
                  double shift) {
  ASSERT_EQ(got.size(), drawn.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], scale * drawn[i] + shift, 1e-5) << i;
}

TEST_F(PluginRandomTest, NormalAndUniformAreTheSeedsDrawsScaled) {
  const char* x = "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0e";  // 20: libtorch's vectorised path
  const std::vector<float> z = Draw("randn", "20");
  const std::vector<float> u = Draw("rand", "20");
  Call("seed", "5");
  ExpectScaled(Reals(Call("normal", x)), z, 1, 0);
  ExpectScaled(Reals(OnData("normal", x, "1;2")), z, 2, 1);
  ExpectScaled(Reals(OnPointer("normal", x, "1;2")), z, 2, 1);
  ExpectScaled(Reals(OnData("uniform", x, "-1;3")), u, 4, -1);
  ExpectScaled(Reals(OnPointer("uniform", x, "-1;3")), u, 4, -1);
}

TEST_F(PluginRandomTest, EveryFillOnDataMatchesThePointerForm) {
  struct Row {
    const char* fn;
    const char* x;
    const char* options;
  };
  const Row rows[] = {
      {"normal", "(0 0 0 0f;0 0 0 0f;0 0 0 0f)", "0;1"},
      {"uniform", "0 0 0 0e", "2;3"},
      {"random", "0 0 0 0 0 0", "10"},
      {"random", "0 0 0 0e", "-3;3"},
      {"cauchy", "0 0 0 0e", "1;2"},
      {"exponential", "0 0 0 0f", "2"},
      {"geometric", "0 0 0 0 0", "0.4"},
      {"geometric", "0 0 0 0e", "0.4"},
      {"lognormal", "0 0 0 0e", "0;0.5"},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.fn);
    const KRef data = OnData(r.fn, r.x, r.options);
    EXPECT_EQ(data->t, Q(r.x)->t);  // same type and count: a filled copy
    EXPECT_EQ(data->n, Q(r.x)->n);
    EXPECT_NE(S1(data), S1(Q(r.x)));
    EXPECT_EQ(S1(OnPointer(r.fn, r.x, r.options)), S1(data));
  }
  EXPECT_THAT(Reals(OnData("uniform", "0 0 0 0e", "2;3")), ::testing::Each(Ge(2)));
  EXPECT_THAT(Reals(OnData("lognormal", "0 0 0 0e", "0;0.5")), ::testing::Each(Gt(0)));
  for (float g : Reals(OnData("geometric", "0 0 0 0e", "0.4"))) {
    EXPECT_EQ(g, std::floor(g));
    EXPECT_GE(g, 1);
  }
  for (float i : Reals(OnData("random", "0 0 0 0e", "-3;3"))) {
    EXPECT_EQ(i, std::floor(i));
    EXPECT_GE(i, -3);
    EXPECT_LT(i, 3);
  }
}

TEST_F(PluginRandomTest, VectorsDictionariesAndModulesWholeOrBySelection) {
  KRef v = Call("vector", "(0 0 0e;0 0e)");
  EXPECT_EQ(S1(Call("normal", List({v.share(), kq::Long(1), kq::Long(0), kq::Long(1)}))), "::");
  EXPECT_EQ(S1(Call("vector", List({v.share(), kq::Long(0)}))), "0 0 0e");
  EXPECT_NE(S1(Call("vector", v)), "(0 0 0e;0 0e)");
  Call("zeros", v);
  EXPECT_EQ(S1(Call("uniform", List({v.share(), Q(",0").share()}))), "::");  // an index list
  EXPECT_EQ(S1(Call("vector", List({v.share(), kq::Long(1)}))), "0 0e");
  EXPECT_THAT(Reals(Call("vector", List({v.share(), kq::Long(0)}))), ::testing::Each(Gt(0)));
  Call("zeros", v);
  EXPECT_EQ(S1(Call("exponential", List({v.share(), kq::Long(3)}))),
            "::");  // an integer atom: the rate
  EXPECT_THAT(Reals(Call("vector", v)), ::testing::Each(Gt(0)));

  KRef d = Call("dict", "`a`b!(0 0e;0 0 0)");
  EXPECT_EQ(S1(Call("random", List({d.share(), kq::Sym("b"), kq::Long(5), kq::Long(6)}))), "::");
  EXPECT_EQ(S1(Call("dict", d)), "`a`b!(0 0e;5 5 5)");

  KRef q = Call("module", "(`linear;3;2)");
  KRef w = Call("parm", List({q.share(), kq::Sym("weight")}));
  KRef b = Call("parm", List({q.share(), kq::Sym("bias")}));
  const std::string bias = S1(Call("tensor", b));
  const std::string weight = S1(Call("tensor", w));
  EXPECT_EQ(S1(Call("cauchy", List({q.share(), kq::Sym("weight"), kq::Float(0), kq::Float(1)}))),
            "::");
  EXPECT_EQ(S1(Call("tensor", b)), bias);
  EXPECT_NE(S1(Call("tensor", w)), weight);
  EXPECT_EQ(S1(Call("gradflag", w)), "1b");
  Call("free", List({v.share(), d.share(), q.share(), w.share(), b.share()}));
}

TEST_F(PluginRandomTest, BernoulliAndMultinomialOnDataPointersAndOutputs) {
  EXPECT_EQ(S1(Call("bernoulli", "0 1 1 0f")), "0 1 1 0f");
  EXPECT_EQ(S1(Call("bernoulli", "(0 1e;1 0e)")), "(0 1e;1 0e)");
  EXPECT_EQ(S1(Call("multinomial", "(0 0 1e;1)")), ",2");
  EXPECT_EQ(S1(Call("multinomial", "(0 0 1e;3;1b)")), "2 2 2");
  EXPECT_EQ(S1(Call("multinomial", "((0 1e;1 0e);1)")), "(,1;,0)");

  KRef p = Call("tensor", "1 0 1e");
  KRef b = Call("bernoulli", p);
  EXPECT_EQ(S1(Call("tensor", b)), "1 0 1e");
  KRef out = Call("tensor", "(`empty;0;`double)");
  EXPECT_EQ(S1(Call("bernoulli", List({p.share(), out.share()}))), "::");
  EXPECT_EQ(S1(Call("tensor", out)), "1 0 1f");
  KRef m = Call("multinomial", List({p.share(), kq::Long(2)}));
  EXPECT_THAT(S1(Call("tensor", m)), ::testing::AnyOf("0 2", "2 0"));
  KRef reals = Call("tensor", "(`empty;0)");  // indices written as reals
  EXPECT_EQ(S1(Call("multinomial", List({p.share(), kq::Long(4), kq::Bool(true), reals.share()}))),
            "::");
  EXPECT_THAT(Values(reals), ElementsAre(::testing::AnyOf(0, 2), ::testing::AnyOf(0, 2),
                                         ::testing::AnyOf(0, 2), ::testing::AnyOf(0, 2)));
  Call("free", List({p.share(), b.share(), out.share(), m.share(), reals.share()}));
}

TEST_F(PluginRandomTest, BadArgumentsNameTheFunctionAndChangeNothing) {
  KRef longs = Call("tensor", "1 2 3");
  KRef v = Call("vector", "(1 2e;3 4;01b)");
  KRef d = Call("dict", "(,`a)!,1 2e");
  EXPECT_THAT(Error("normal", longs),
              HasSubstr("normal: tensor is long, expected a floating-point tensor"));
  EXPECT_THAT(Error("normal", List({d.share(), kq::Float(1), kq::Float(2), kq::Float(3)})),
              HasSubstr("normal: expected mean and std, given 3 option(s)"));
  EXPECT_THAT(Error("random", List({v.share(), kq::Float(1), kq::Float(2), kq::Float(3)})),
              HasSubstr("random: expected high or low and high, given 3 option(s)"));
  EXPECT_THAT(Error("uniform", v),
              HasSubstr("uniform: vector[1] is long, expected a floating-point tensor"));
  // bool's range: vector[2] fails after vector[0] and [1] drew (neither is changed)
  EXPECT_THAT(Error("random", List({v.share(), kq::Long(0), kq::Long(1000)})),
              HasSubstr("out of bounds for bool"));
  EXPECT_THAT(Error("geometric", List({longs.share(), kq::Sym("p")})),
              HasSubstr("geometric: arg[1] expected number"));
  EXPECT_THAT(Error("lognormal", List({d.share(), kq::Sym("b"), kq::Long(0), kq::Long(1)})),
              HasSubstr("lognormal: no key `b in dictionary"));
  EXPECT_THAT(Error("exponential", List({v.share(), Q("0 3").share(), kq::Long(1)})),
              HasSubstr("exponential: vector index 3 out of range for 3 tensor(s)"));
  EXPECT_THAT(Error("cauchy", List({longs.share(), kq::Long(0), kq::Long(-1)})),
              HasSubstr("cauchy: sigma -1 is not positive"));
  EXPECT_THAT(Error("bernoulli", v), HasSubstr("bernoulli: expected tensor, given vector"));
  EXPECT_THAT(Error("multinomial",
                    List({longs.share(), kq::Long(1), kq::Bool(true), kq::Long(2), kq::Long(3)})),
              HasSubstr("multinomial: unrecognized arg(s)"));
  EXPECT_THAT(Error("multinomial", List({Q("1 1e").share(), kq::Long(1), v.share()})),
              HasSubstr("multinomial: expected tensor, given vector"));
  EXPECT_EQ(S1(Call("tensor", longs)), "1 2 3");
  EXPECT_EQ(S1(Call("vector", v)), "(1 2e;3 4;01b)");
  EXPECT_EQ(S1(Call("dict", d)), "(,`a)!,1 2e");
  Call("free", List({longs.share(), v.share(), d.share()}));
}

}  // namespace plugin_random_test
}  // namespace kscope::testing
