// Initializing in place through the plugin: zeros ones fill eye dirac orthogonal knormal kuniform
// snormal xnormal xuniform on tensor pointers and k data, vectors and dictionaries whole or by
// index/key, module parameters and buffers by name, and gain. The random forms are checked
// against the draw they make from the same seed (knormal/xnormal are randn scaled by the std
// libtorch's formula gives for the options, kuniform/xuniform rand mapped onto [-bound, bound]),
// so each option is seen to reach libtorch; api/nn/init.h's own tests compare with libtorch's
// calls. Bad arguments of each form give the function's error and change no value.
#include <cmath>
#include <string>
#include <vector>

#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_init_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class PluginInitTest : public PluginTest {
 protected:
  std::vector<float> Values(const KRef& t) { return Reals(Call("tensor", t)); }

  // Seed 5's draw of `mode` (randn or rand) for `size`.
  std::vector<float> Draw(const char* mode, const char* size) {
    Call("seed", "5");
    KRef t = Call("tensor", List({kq::Sym(mode), Q(size).share()}));
    std::vector<float> v = Values(t);
    Call("free", t);
    return v;
  }
  // Expects got[i] = scale * drawn[i] + shift for all i.
  void ExpectScaled(const std::vector<float>& got, const std::vector<float>& drawn, double scale,
                    double shift) {
    ASSERT_EQ(got.size(), drawn.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], scale * drawn[i] + shift, 1e-5) << i;
  }
  // fn t or fn(t;options..) on a new 6x4 tensor t from seed 5 (returning null): t's values.
  std::vector<float> Init6x4(const char* fn, std::vector<kabi::K> options) {
    KRef t = Call("tensor", "(`empty;6 4)");
    Call("seed", "5");
    if (options.empty()) {
      EXPECT_EQ(S1(Call(fn, t)), "::") << fn;
    } else {
      options.insert(options.begin(), t.share());
      EXPECT_EQ(S1(Call(fn, KRef(kq::List(options)))), "::") << fn;
    }
    std::vector<float> v = Values(t);
    Call("free", t);
    return v;
  }
  std::string ParmValues(const KRef& q, const char* name) {
    KRef p = Call("parm", List({q.share(), kq::Sym(name)}));
    std::string s = S1(Call("tensor", p));
    Call("free", p);
    return s;
  }
};

TEST_F(PluginInitTest, ConstantFormsOnPointersAndData) {
  KRef t = Call("tensor", "(`randn;2 3)");
  EXPECT_EQ(S1(Call("zeros", t)), "::");
  EXPECT_THAT(Values(t), ElementsAre(0, 0, 0, 0, 0, 0));
  Call("ones", t);
  EXPECT_THAT(Values(t), ElementsAre(1, 1, 1, 1, 1, 1));
  EXPECT_EQ(S1(Call("fill", List({t.share(), kq::Float(2.5)}))), "::");
  EXPECT_THAT(Values(t), ElementsAre(2.5, 2.5, 2.5, 2.5, 2.5, 2.5));
  Call("eye", t);
  EXPECT_THAT(Values(t), ElementsAre(1, 0, 0, 0, 1, 0));
  KRef c = Call("tensor", "(`randn;4 2 3)");
  EXPECT_EQ(S1(Call("dirac", List({c.share(), kq::Long(2)}))), "::");
  EXPECT_THAT(Values(c),
              ElementsAre(0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0));
  Call("dirac", c);
  EXPECT_THAT(Values(c),
              ElementsAre(0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
  Call("free", List({t.share(), c.share()}));

  EXPECT_EQ(S1(Call("zeros", "1 2 3e")), "0 0 0e");
  EXPECT_EQ(S1(Call("ones", "1 2 3f")), "1 1 1f");
  EXPECT_EQ(S1(Call("fill", "(1 2 3e;5)")), "5 5 5e");
  EXPECT_EQ(S1(Call("eye", List({Q("(9 9e;9 9e)").share()}))), "(1 0e;0 1e)");
}

TEST_F(PluginInitTest, KaimingOptionsInAnyOrderReachLibtorch) {
  const std::vector<float> z = Draw("randn", "6 4");
  const double fan_in = 4, fan_out = 6;
  ExpectScaled(Init6x4("knormal", {}), z, std::sqrt(2.0) / std::sqrt(fan_in), 0);
  ExpectScaled(Init6x4("knormal", {kq::Float(0.2), kq::Sym("fanout"), kq::Sym("relu")}), z,
               std::sqrt(2.0) / std::sqrt(fan_out), 0);
  ExpectScaled(Init6x4("knormal", {kq::Sym("leakyrelu"), kq::Float(0.2), kq::Sym("fanin")}), z,
               std::sqrt(2.0 / 1.04) / std::sqrt(fan_in), 0);
  const std::vector<float> u = Draw("rand", "6 4");
  const double tanh_bound = 5.0 / 3 * std::sqrt(3.0 / fan_in);
  ExpectScaled(Init6x4("kuniform", {kq::Sym("tanh")}), u, 2 * tanh_bound, -tanh_bound);
  const double fanout_bound = std::sqrt(2.0) * std::sqrt(3.0 / fan_out);
  ExpectScaled(Init6x4("kuniform", {kq::Sym("fanout"), kq::Long(0)}), u, 2 * fanout_bound,
               -fanout_bound);
}

TEST_F(PluginInitTest, XavierOrthogonalAndSparse) {
  const std::vector<float> z = Draw("randn", "6 4");
  ExpectScaled(Init6x4("xnormal", {}), z, std::sqrt(2.0 / 10), 0);
  ExpectScaled(Init6x4("xnormal", {kq::Float(2)}), z, 2 * std::sqrt(2.0 / 10), 0);
  const std::vector<float> u = Draw("rand", "6 4");
  const double bound = std::sqrt(6.0 / 10);
  ExpectScaled(Init6x4("xuniform", {}), u, 2 * bound, -bound);
  ExpectScaled(Init6x4("xuniform", {kq::Long(3)}), u, 6 * bound, -3 * bound);

  // orthogonal(t;2) on 3x5: the rows are orthogonal, each of length 2
  KRef t = Call("tensor", "(`empty;3 5)");
  Call("orthogonal", List({t.share(), kq::Float(2)}));
  const std::vector<float> w = Values(t);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      double dot = 0;
      for (int k = 0; k < 5; ++k) dot += w[i * 5 + k] * w[j * 5 + k];
      EXPECT_NEAR(dot, i == j ? 4 : 0, 1e-4) << i << " " << j;
    }
  }
  std::string zeros8x5 = "(0 0 0 0 0e";
  for (int row = 1; row < 8; ++row) zeros8x5 += ";0 0 0 0 0e";
  zeros8x5 += ")";
  // snormal(t;sparsity[;std]): std times the normal draw, then ceil(sparsity*rows) zeros in
  // every column; as on k data
  const std::vector<float> z8x5 = Draw("randn", "8 5");
  for (const auto& [sparsity, zeros] : {std::pair{0.5, 4}, {0.25, 2}}) {
    KRef s = Call("tensor", "(`empty;8 5)");
    Call("seed", "5");
    Call("snormal", List({s.share(), kq::Float(sparsity), kq::Float(0.3)}));
    Call("seed", "5");
    KRef data = Call("snormal", List({Q(zeros8x5).share(), kq::Float(sparsity), kq::Float(0.3)}));
    const std::vector<float> v = Values(s);
    EXPECT_EQ(Reals(data), v);
    for (int col = 0; col < 5; ++col) {
      int n = 0;
      for (int row = 0; row < 8; ++row) {
        const int i = row * 5 + col;
        if (v[i] == 0) {
          ++n;
        } else {
          EXPECT_NEAR(v[i], 0.3 * z8x5[i], 1e-5) << i;
        }
      }
      EXPECT_EQ(n, zeros) << col;
    }
    Call("free", s);
  }
  Call("free", t);
}

TEST_F(PluginInitTest, VectorsAndDictionariesWholeOrSelected) {
  KRef v = Call("vector", "(1 2e;3 4e;5 6e)");
  Call("ones", List({v.share(), kq::Long(1)}));
  EXPECT_EQ(S1(Call("vector", v)), "(1 2e;1 1e;5 6e)");
  Call("fill", List({v.share(), kq::Longs({0, 2}), kq::Long(7)}));
  EXPECT_EQ(S1(Call("vector", v)), "(7 7e;1 1e;7 7e)");
  Call("fill", List({v.share(), kq::Long(1)}));  // the one number is the value: every tensor
  EXPECT_EQ(S1(Call("vector", v)), "(1 1e;1 1e;1 1e)");
  Call("zeros", v);
  EXPECT_EQ(S1(Call("vector", v)), "(0 0e;0 0e;0 0e)");

  KRef d = Call("dict", "`a`b!((1 2e;3 4e);(5 6e;7 8e))");
  Call("eye", List({d.share(), kq::Sym("b")}));
  EXPECT_EQ(S1(Call("dict", d)), "`a`b!((1 2e;3 4e);(1 0e;0 1e))");
  Call("fill", List({d.share(), kq::Syms({"a", "b"}), kq::Float(0.5)}));
  EXPECT_EQ(S1(Call("dict", d)), "`a`b!((0.5 0.5e;0.5 0.5e);(0.5 0.5e;0.5 0.5e))");
  // a nonlinearity symbol is an option, not a key: every tensor, with tanh's gain
  const std::vector<float> z = Draw("randn", "2 2");
  Call("seed", "5");
  Call("knormal", List({d.share(), kq::Sym("tanh")}));
  ExpectScaled(Reals(At(Call("dict", d), "a")), z, 5.0 / 3 / std::sqrt(2.0), 0);
  Call("free", List({v.share(), d.share()}));
}

TEST_F(PluginInitTest, ModuleParametersAndBuffersByName) {
  KRef q = Call("module", "enlist(`linear;4;6)");
  Call("zeros", q);
  EXPECT_EQ(ParmValues(q, "bias"), "0 0 0 0 0 0e");
  const std::vector<float> z = Draw("randn", "6 4");
  Call("seed", "5");
  EXPECT_EQ(
      S1(Call("knormal", List({q.share(), kq::Sym("weight"), kq::Sym("relu"), kq::Sym("fanout")}))),
      "::");
  KRef w = Call("parm", List({q.share(), kq::Sym("weight")}));
  ExpectScaled(Values(w), z, std::sqrt(2.0) / std::sqrt(6.0), 0);
  EXPECT_EQ(S1(Call("gradflag", w)), "1b");
  Call("fill", List({q.share(), kq::Sym("bias"), kq::Long(3)}));
  EXPECT_EQ(ParmValues(q, "bias"), "3 3 3 3 3 3e");

  KRef bn = Call("module", "enlist(`batchnorm1d;2)");
  Call("fill", List({bn.share(), kq::Syms({"running_var", "weight"}), kq::Float(0.5)}));
  KRef rv = Call("buffer", List({bn.share(), kq::Sym("running_var")}));
  EXPECT_EQ(S1(Call("tensor", rv)), "0.5 0.5e");
  EXPECT_EQ(ParmValues(bn, "weight"), "0.5 0.5e");
  Call("free", List({q.share(), w.share(), bn.share(), rv.share()}));
}

TEST_F(PluginInitTest, Gain) {
  EXPECT_EQ(S1(Call("gain", "`relu")), S1(KRef(kq::Float(std::sqrt(2.0)))));
  EXPECT_EQ(S1(Call("gain", "`tanh")), S1(KRef(kq::Float(5.0 / 3))));
  EXPECT_EQ(S1(Call("gain", "(`leakyrelu;.2)")), S1(KRef(kq::Float(std::sqrt(2.0 / 1.04)))));
  EXPECT_EQ(S1(Call("gain", "`linear")), "1f");
  EXPECT_THAT(Error("gain", "`softmax"),
              HasSubstr("gain: unknown nonlinearity `softmax, expected one of linear"));
  EXPECT_THAT(Error("gain", "1"), HasSubstr("gain: arg[0] expected symbol"));
}

TEST_F(PluginInitTest, BadArgumentsOfEachFormChangeNothing) {
  KRef t = Call("tensor", "(1 2 3e;4 5 6e)");
  KRef v = Call("vector", "(1 2e;3 4e)");
  KRef d = Call("dict", "`a`b!(1 2e;3 4e)");
  KRef q = Call("module", "enlist(`linear;2;3)");
  KRef loss = Call("loss", "`mse");
  auto snapshot = [&] {
    return S1(Call("tensor", t)) + S1(Call("vector", v)) + S1(Call("dict", d)) +
           ParmValues(q, "weight") + ParmValues(q, "bias");
  };
  const std::string before = snapshot();
  struct Bad {
    const char* fn;
    KRef arg;
    const char* error;
  };
  std::vector<Bad> calls;
  auto bad = [&](const char* fn, KRef arg, const char* error) {
    calls.push_back(Bad{fn, std::move(arg), error});
  };
  bad("knormal", KRef(q.share()), "knormal: parameter `bias has 1 dimension, expected 2 or more");
  bad("kuniform", List({t.share(), kq::Sym("fanin"), kq::Sym("fanout")}),
      "kuniform: fan mode given more than once");
  bad("knormal", List({t.share(), kq::Float(1), kq::Float(2)}),
      "knormal: slope given more than once");
  bad("knormal", List({t.share(), kq::Sym("softmax")}), "knormal: unknown nonlinearity `softmax");
  bad("fill", List({v.share(), kq::Long(5), kq::Long(1)}),
      "fill: vector index 5 out of range for 2 tensor(s)");
  bad("eye", List({d.share(), kq::Syms({"a", "z"})}), "eye: no key `z in dictionary");
  bad("fill", List({q.share(), kq::Sym("w"), kq::Long(0)}),
      "fill: no parameter or buffer `w in linear module");
  bad("fill", KRef(t.share()), "fill: unrecognized arg(s)");
  bad("zeros", List({t.share(), kq::Long(1), kq::Long(2)}), "zeros: unrecognized arg(s)");
  bad("dirac", List({t.share(), kq::Sym("x")}), "dirac: arg[1] expected long");
  bad("dirac", KRef(t.share()), "dirac: tensor has 2 dimensions, expected 3 to 5");
  bad("xnormal", List({t.share(), kq::Sym("x")}), "xnormal: arg[1] expected number");
  bad("snormal", List({t.share(), kq::Float(2)}), "snormal: sparsity 2 is outside 0-1");
  bad("orthogonal", KRef(v.share()), "orthogonal: vector[0] has 1 dimension, expected 2 or more");
  bad("zeros", KRef(loss.share()),
      "zeros: expected tensor, vector, dictionary, module or model, given loss");
  bad("xuniform", List({Q("1 2 3").share(), kq::Float(1)}), "xuniform: tensor has 1 dimension");
  for (const Bad& b : calls) {
    EXPECT_THAT(Error(b.fn, b.arg), HasSubstr(b.error));
    EXPECT_EQ(snapshot(), before) << b.error;
  }
  Call("free", List({t.share(), v.share(), d.share(), q.share(), loss.share()}));
}

}  // namespace plugin_init_test
}  // namespace kscope::testing
