// The math catalogue through the plugin, as q calls it: the one argument parser (k data in ->
// k out, pointers in -> a pointer out, a trailing output pointer, `::` in place, `::` as a
// placeholder for an optional argument, a matrix given as a general list) on the pointwise
// group D1-D3, and every name of ktorch's group D exported. api/math/math_catalogue.h's own tests
// compare each function with libtorch; here each form is checked against the k-data form and
// against values computed in C++.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <vector>

#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_math_catalogue_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class PluginMathCatalogueTest : public PluginTest {
 protected:
  std::vector<float> Values(const KRef& t) { return Reals(Call("tensor", t)); }
};

// ktorch-api.md §1.5: the 194 names of group D, each exported once.
constexpr const char* kGroupD[] = {
    "Abs",         "Acos",      "angle",     "Asin",        "Atan",        "bitwisenot",
    "ceil",        "cosh",      "Cos",       "digamma",     "erf",         "erfc",
    "erfinv",      "Exp",       "expm1",     "Floor",       "frac",        "lgamma",
    "Log",         "log10",     "log1p",     "log2",        "Neg",         "Not",
    "Reciprocal",  "round",     "rsqrt",     "sgn",         "sigmoid",     "sign",
    "Sin",         "sinh",      "Sqrt",      "Tan",         "tanh",        "trunc",
    "atan2",       "Div",       "fmod",      "fpow",        "mul",         "pow",
    "remainder",   "xor",       "add",       "addcdiv",     "addcmul",     "clamp",
    "lerp",        "mvlgamma",  "allclose",  "close",       "equal",       "eq",
    "ge",          "gt",        "le",        "lt",          "ne",          "finite",
    "inf",         "nan",       "neginf",    "posinf",      "fmax",        "fmin",
    "maximum",     "minimum",   "sort",      "msort",       "argsort",     "topk",
    "kthvalue",    "In",        "Any",       "All",         "amax",        "amin",
    "aminmax",     "argmax",    "argmin",    "Max",         "Min",         "mean",
    "nanmean",     "median",    "nanmedian", "mode",        "std",         "variance",
    "meanstd",     "meanvar",   "prod",      "Sum",         "nansum",      "unique",
    "uniquec",     "dist",      "logsumexp", "fnorm",       "nnorm",       "mnorm",
    "vnorm",       "det",       "logdet",    "slogdet",     "mrank",       "chol",
    "cholx",       "eig",       "eigvals",   "eigh",        "eigvalsh",    "qr",
    "lu",          "lux",       "lun",       "svd",         "svdvals",     "solve",
    "trisolve",    "cholsolve", "lstsq",     "lusolve",     "inverse",     "pinverse",
    "cholinverse", "power",     "bmm",       "Cross",       "dot",         "householder",
    "matmul",      "mm",        "mmt",       "mtm",         "multidot",    "mv",
    "outer",       "addbmm",    "addmm",     "addmv",       "addr",        "baddbmm",
    "fft",         "ifft",      "rfft",      "irfft",       "hfft",        "ihfft",
    "fft2",        "ifft2",     "rfft2",     "irfft2",      "hfft2",       "ihfft2",
    "fftn",        "ifftn",     "rfftn",     "irfftn",      "hfftn",       "ihfftn",
    "fftfreq",     "rfftfreq",  "fftshift",  "ifftshift",   "bartlett",    "blackman",
    "hann",        "hamming",   "kaiser",    "bernoulli",   "multinomial", "normal",
    "uniform",     "random",    "cauchy",    "exponential", "geometric",   "lognormal",
    "bincount",    "cumprod",   "cumsum",    "diag",        "diagflat",    "diagonal",
    "Flip",        "histc",     "renorm",    "roll",        "tensordot",   "trace",
    "tril",        "triu",
};

TEST_F(PluginMathCatalogueTest, EveryNameOfGroupDIsExportedOnce) {
  static_assert(std::size(kGroupD) == 194);
  const std::vector<std::string> exported = Plugin().Names();
  for (const char* name : kGroupD)
    EXPECT_EQ(std::count(exported.begin(), exported.end(), name), 1) << name;
}

TEST_F(PluginMathCatalogueTest, OneInputDataPointerOutputAndInPlaceAgree) {
  const char* names[] = {"Abs",        "Acos",   "Asin",  "Atan",   "ceil",    "cosh",  "Cos",
                         "digamma",    "erf",    "erfc",  "erfinv", "Exp",     "expm1", "Floor",
                         "frac",       "lgamma", "Log",   "log10",  "log1p",   "log2",  "Neg",
                         "Reciprocal", "round",  "rsqrt", "sgn",    "sigmoid", "sign",  "Sin",
                         "sinh",       "Sqrt",   "Tan",   "tanh",   "trunc",   "angle"};
  const KRef x = Q("0.1 0.5 0.9e");
  for (const char* name : names) {
    const std::vector<float> by_data = Reals(Call(name, x));
    ASSERT_EQ(by_data.size(), 3u) << name;
    KRef p = Call("tensor", x);
    KRef r = Call(name, p);
    EXPECT_EQ(Values(r), by_data) << name;
    KRef out = Call("tensor", "(`empty;0)");
    EXPECT_EQ(S1(Call(name, List({p.share(), out.share()}))), "::") << name;
    EXPECT_EQ(Values(out), by_data) << name;
    if (std::string(name) != "angle") {
      EXPECT_EQ(S1(Call(name, List({p.share(), kq::Null()}))), "::") << name;
      EXPECT_EQ(Values(p), by_data) << name;
    }
    Call("free", List({p.share(), r.share(), out.share()}));
  }
  EXPECT_THAT(Reals(Call("Exp", x)), ElementsAre(std::exp(0.1f), std::exp(0.5f), std::exp(0.9f)));
  EXPECT_EQ(S1(Call("bitwisenot", "0 5 -2")), "-1 -6 1");
  EXPECT_EQ(S1(Call("Not", "010b")), "101b");
}

TEST_F(PluginMathCatalogueTest, AMatrixAsAGeneralListIsOneTensor) {
  EXPECT_EQ(S1(Call("Abs", "(1 -2;-3 4)")), "(1 2;3 4)");
  EXPECT_EQ(S1(Call("Neg", "-1.5")), "1.5");
  // Rows of no elements: a 2x0 tensor, and two empty rows back (the fuzzer's find).
  KRef empty_rows = Call("Abs", List({kabi::ktn(kabi::kReal, 0), kabi::ktn(kabi::kReal, 0)}));
  ASSERT_EQ(empty_rows->t, kabi::kMixed);
  ASSERT_EQ(empty_rows->n, 2);
  EXPECT_EQ(kabi::Items(empty_rows.get())[1]->t, kabi::kReal);
  EXPECT_EQ(kabi::Items(empty_rows.get())[1]->n, 0);
}

TEST_F(PluginMathCatalogueTest, TwoInputsNumbersAlphaAndPointersBesideData) {
  EXPECT_EQ(S1(Call("pow", "(2 3;2)")), "4 9");
  EXPECT_EQ(S1(Call("pow", "(2;2 3)")), "4 8");
  EXPECT_EQ(S1(Call("Div", "(1 2 3;2)")), "0.5 1 1.5e");
  EXPECT_EQ(S1(Call("add", "(1 2 3;10 20 30;2)")), "21 42 63");
  EXPECT_EQ(S1(Call("sub", "(1 2 3f;1)")), "0 1 2f");
  EXPECT_EQ(S1(Call("xor", "(101b;110b)")), "011b");
  KRef p = Call("tensor", "1 2 3e");
  KRef r = Call("mul", List({p.share(), Q("2 2 2e").share()}));
  EXPECT_THAT(Values(r), ElementsAre(2, 4, 6));
  EXPECT_EQ(S1(Call("add", List({p.share(), Q("1e").share(), kq::Null()}))), "::");
  EXPECT_THAT(Values(p), ElementsAre(2, 3, 4));
  Call("free", List({p.share(), r.share()}));
}

TEST_F(PluginMathCatalogueTest, TwoArraysGiveWhatTwoPointersGive) {
  // f(x;y) on two k arrays skips the parse on a function with a binary direct form (add, mm),
  // as f(p;q) does: the same values and the same errors as the pointers' call, for those and
  // for the functions that go through the parse.
  struct Case {
    const char* name;
    const char* x;
    const char* y;
  };
  const auto each_way = [&](const Case& c, const auto& check) {
    KRef p = Call("tensor", c.x);
    KRef q = Call("tensor", c.y);
    const KRef pointers = List({p.share(), q.share()});
    check(List({Q(c.x).share(), Q(c.y).share()}), pointers);
    Call("free", pointers);
  };
  const Case values[] = {
      {"add", "1 2 3e", "4 5 6e"},
      {"mul", "(1 2e;3 4e)", "(5 6e;7 8e)"},
      {"atan2", "1 2f", "3 4f"},
      {"maximum", "1 5 3", "4 2 6"},
      {"mm", "(1 2e;3 4e)", "(5 6e;7 8e)"},
      {"matmul", "(1 2f;3 4f)", "5 6f"},
      {"outer", "1 2e", "3 4 5e"},
      {"dot", "1 2 3", "4 5 6"},
      {"eq", "1 2 3", "1 0 3"},
      {"xor", "101b", "110b"},
  };
  for (const Case& c : values) {
    each_way(c, [&](const KRef& data, const KRef& pointers) {
      KRef r = Call(c.name, pointers);
      EXPECT_EQ(S1(Call(c.name, data)), S1(Call("tensor", r))) << c.name;
      Call("free", r);
    });
  }
  for (const Case& c : {Case{"mm", "1 2 3e", "(1 2e;3 4e)"}, Case{"add", "1 2 3e", "1 2e"}}) {
    each_way(c, [&](const KRef& data, const KRef& pointers) {
      const std::string error = Error(c.name, pointers);  // libtorch's message, as ktorch gives it
      EXPECT_FALSE(error.empty()) << c.name;
      EXPECT_EQ(Error(c.name, data), error);
    });
  }
  EXPECT_THAT(Error("mm", "((1 2e;3 4 5e);(1 2e;3 4e))"),
              HasSubstr("mm: general list items differ in type or shape"));
  EXPECT_THAT(Error("mm", "(();(1 2e;3 4e))"),
              HasSubstr("mm: unable to convert general list to a tensor"));
  KRef timestamps(kabi::ktn(kabi::kTimestamp, 2));
  std::fill_n(kabi::Longs(timestamps.get()), 2, 0);
  EXPECT_THAT(Error("add", List({timestamps.share(), Q("1 2").share()})),
              HasSubstr("add: unable to convert timestamp list to a tensor"));
}

TEST_F(PluginMathCatalogueTest, OtherPointwiseAndPlaceholders) {
  EXPECT_EQ(S1(Call("clamp", "(1 2 3 4;2;3)")), "2 2 3 3");
  EXPECT_EQ(S1(Call("clamp", "(1 2 3 4;::;3)")), "1 2 3 3");
  EXPECT_EQ(S1(Call("clamp", "(1 2 3 4f;2.5)")), "2.5 2.5 3 4");
  EXPECT_EQ(S1(Call("addcmul", "(1 1f;2 3f;4 5f;0.5)")), "5 8.5");
  EXPECT_EQ(S1(Call("addcdiv", "(1 1f;2 3f;4 6f)")), "1.5 1.5");
  EXPECT_EQ(S1(Call("lerp", "(0 10f;10 20f;0.5)")), "5 15f");
  EXPECT_EQ(S1(Call("lerp", "(0 10f;10 20f;0 1f)")), "0 20f");
  const std::vector<float> mv = Reals(Call("mvlgamma", "(2.5 3.5e;2)"));
  ASSERT_EQ(mv.size(), 2u);
  // mvlgamma(x, 2) = log(pi)/2 + lgamma(x) + lgamma(x - 1/2)
  EXPECT_NEAR(mv[0], std::log(M_PI) / 2 + std::lgamma(2.5) + std::lgamma(2.0), 1e-5);
}

TEST_F(PluginMathCatalogueTest, EveryItemIsATensorOfAListParameter) {
  EXPECT_EQ(S1(Call("multidot", "((1 2f;3 4f);(1 0f;0 1f);(2 0f;0 2f))")), "(2 4f;6 8f)");
  KRef v = Call("vector", "((1 2f;3 4f);(2 0f;0 2f))");
  KRef out = Call("tensor", "(`empty;0)");
  EXPECT_EQ(S1(Call("multidot", List({v.share(), out.share()}))), "::");
  EXPECT_EQ(S1(Call("tensor", out)), "(2 4e;6 8e)");  // written into out's float tensor
  Call("free", List({v.share(), out.share()}));
}

TEST_F(PluginMathCatalogueTest, AVectorPointerSpreadsOverTheTensorsThatFollow) {
  KRef a = Call("tensor", "(2 1f;4 3f)");
  KRef factors = Call("lu", a);  // (LU;pivots)
  KRef unpacked = Call("lun", factors);
  KRef product = Call("multidot", unpacked);  // P L U
  EXPECT_EQ(S1(Call("tensor", product)), "(2 1f;4 3f)");
  KRef x = Call("lusolve", List({Q("(3 4f;7 9f)").share(), factors.share()}));
  EXPECT_EQ(S1(Call("tensor", x)), "(1 1.5;1 1f)");  // (2 1;4 3) times it is (3 4;7 9)
  EXPECT_THAT(Error("lusolve", List({factors.share()})),
              HasSubstr("lusolve: arg[2] (tensor) is required"));
  Call("free", List({a.share(), factors.share(), unpacked.share(), product.share(), x.share()}));
}

TEST_F(PluginMathCatalogueTest, BadArgumentsNameTheFunctionAndChangeNothing) {
  KRef p = Call("tensor", "1 2 3e");
  EXPECT_THAT(Error("Abs", "`x"), HasSubstr("Abs: unable to convert symbol scalar to a tensor"));
  EXPECT_THAT(Error("add", List({p.share()})),
              HasSubstr("add: arg[1] (tensor or number) is required"));
  EXPECT_THAT(Error("add", List({p.share(), p.share(), Q("2").share(), Q("3").share()})),
              HasSubstr("add: unrecognized arg(s)"));
  EXPECT_THAT(Error("angle", List({p.share(), kq::Null()})),
              HasSubstr("angle: unrecognized arg(s)"));
  EXPECT_THAT(Error("Abs", "(1 2;::)"), HasSubstr("Abs: in-place form needs a tensor pointer"));
  EXPECT_THAT(Error("mvlgamma", List({p.share(), Q("1.5").share()})),
              HasSubstr("mvlgamma: arg[1] expected long"));
  KRef v = Call("vector", "(1 2e;3 4e)");
  EXPECT_THAT(Error("Exp", List({p.share(), v.share()})),
              HasSubstr("Exp: expected tensor, given vector"));
  // f p and f(p;q) skip the parse (math::RunDirect), with the same errors.
  EXPECT_THAT(Error("Exp", v), HasSubstr("Exp: expected tensor, given vector"));
  EXPECT_THAT(Error("add", List({p.share(), v.share()})),
              HasSubstr("add: expected tensor, given vector"));
  KRef gone = Call("tensor", "1 2 3e");
  Call("free", gone);
  EXPECT_THAT(Error("mul", List({gone.share(), p.share()})), HasSubstr("stale pointer"));
  EXPECT_THAT(Values(p), ElementsAre(1, 2, 3));
  Call("free", List({p.share(), v.share()}));
}

}  // namespace plugin_math_catalogue_test
}  // namespace kscope::testing
