// The catalogue's spectral group (D7) through the plugin, as q calls it: every transform on k
// data, on a pointer (a pointer out) and into an output pointer, giving the same values
// (complex results come back as real/imaginary pairs); known transforms and round trips;
// frequencies and windows as new pointers with options, checked against libtorch; shifts;
// errors that name the function and change nothing.
#include <string>
#include <vector>

#include <ATen/ops/bartlett_window.h>
#include <ATen/ops/blackman_window.h>
#include <ATen/ops/hamming_window.h>
#include <ATen/ops/hann_window.h>
#include <ATen/ops/kaiser_window.h>

#include "tests/plugin_fixture.h"

namespace kscope::testing {
namespace plugin_math_spectral_test {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Pointwise;

std::vector<float> Floats(const at::Tensor& t) {
  const at::Tensor f = t.to(at::kFloat).contiguous();
  return std::vector<float>(f.data_ptr<float>(), f.data_ptr<float>() + f.numel());
}

class PluginMathSpectralTest : public PluginTest {
 protected:
  // name with `first` (owned), the q literals `rest`, then `last` (owned) if given.
  KRef CallWith(const char* name, kabi::K first, const std::vector<std::string>& rest,
                kabi::K last = nullptr) {
    std::vector<kabi::K> items{first};
    for (const std::string& literal : rest) items.push_back(Q(literal).release());
    if (last != nullptr) items.push_back(last);
    return Call(name, ArgList(items));
  }
  std::vector<float> Values(const KRef& pointer) { return Reals(Call("tensor", pointer)); }
};

constexpr const char* kMatrix = "(1 2 3 4 5 6e;0 1 0 1 0 1e;2 2 1 1 0 0e;1 0 0 0 0 0e)";

TEST_F(PluginMathSpectralTest, EveryTransformAgreesAcrossForms) {
  const std::vector<std::pair<const char*, std::vector<std::string>>> cases = {
      {"fft", {}},
      {"fft", {"8", "0", "`ortho"}},
      {"ifft", {"`forward"}},
      {"rfft", {"::", "0"}},
      {"irfft", {"6"}},
      {"hfft", {"4", "0"}},
      {"ihfft", {}},
      {"fft2", {"2 3"}},
      {"ifft2", {"::", "0 1", "`ortho"}},
      {"rfft2", {}},
      {"irfft2", {"4 6", "-2 -1", "`backward"}},
      {"hfft2", {}},
      {"ihfft2", {"`forward"}},
      {"fftn", {"::", "1"}},
      {"ifftn", {}},
      {"rfftn", {"4 6", "0 1", "`ortho"}},
      {"irfftn", {}},
      {"hfftn", {"3 4"}},
      {"ihfftn", {}},
  };
  for (const auto& [name, rest] : cases) {
    const std::vector<float> by_data = Reals(CallWith(name, Q(kMatrix).release(), rest));
    ASSERT_FALSE(by_data.empty()) << name;
    KRef p = Call("tensor", kMatrix);
    KRef r = CallWith(name, p.share(), rest);
    EXPECT_EQ(Values(r), by_data) << name << " pointer";
    KRef out =
        Call("tensor", List({Q("`empty").release(), Q("0").release(), Call("dtype", r).release()}));
    EXPECT_EQ(S1(CallWith(name, p.share(), rest, out.share())), "::") << name << " out";
    EXPECT_EQ(Values(out), by_data) << name << " out";
    Call("free", List({p.share(), r.share(), out.share()}));
  }
}

TEST_F(PluginMathSpectralTest, KnownTransformsAndOptionalArguments) {
  // An impulse transforms to ones: (real;imaginary), as ktorch gives complex values by default.
  const KRef impulse = Call("fft", "1 0 0 0e");
  EXPECT_EQ(impulse->n, 2);  // the real parts (ones), then the imaginary parts (zeros)
  EXPECT_THAT(Reals(impulse), ElementsAre(1, 1, 1, 1, 0, 0, 0, 0));
  EXPECT_THAT(Reals(Call("fft", "(1 0 0 0e;`ortho)")), ElementsAre(0.5, 0.5, 0.5, 0.5, 0, 0, 0, 0));
  EXPECT_THAT(Reals(Call("ifft", "(1 0 0 0e;`backward)")),
              ElementsAre(0.25, 0.25, 0.25, 0.25, 0, 0, 0, 0));
  EXPECT_EQ(Reals(Call("fft", "(1 0 0 0e;8)")).size(), 16u);  // zero-padded to 8
  EXPECT_EQ(Reals(Call("rfft", "(1 1 1 1e;::;0)")).size(), 6u);
  EXPECT_THAT(Reals(Call("rfft", "1 1 1 1e")),
              Pointwise(FloatNear(1e-6), {4.f, 0.f, 0.f, 0.f, 0.f, 0.f}));
  EXPECT_THAT(Reals(Call("fft2", "((1 0e;0 0e);`forward)")),
              ElementsAre(0.25, 0.25, 0.25, 0.25, 0, 0, 0, 0));
  // Pointers round trip: irfft(rfft x) and ifft(fft x) give x back.
  KRef p = Call("tensor", "1 2 3 4 5 6e");
  KRef f = Call("rfft", p);
  KRef back = Call("irfft", List({f.share(), Q("6").release()}));
  EXPECT_THAT(Values(back), Pointwise(FloatNear(1e-5), {1.f, 2.f, 3.f, 4.f, 5.f, 6.f}));
  KRef c = Call("fft", p);
  KRef again = Call("ifft", c);
  EXPECT_THAT(Values(again), Pointwise(FloatNear(1e-5), {1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 0.f, 0.f,
                                                         0.f, 0.f, 0.f, 0.f}));
  EXPECT_EQ(S1(Call("dtype", again)), "`cfloat");
  Call("free", List({p.share(), f.share(), back.share(), c.share(), again.share()}));
}

TEST_F(PluginMathSpectralTest, FrequenciesAreNewPointers) {
  KRef a = Call("fftfreq", "4");
  EXPECT_THAT(Values(a), ElementsAre(0, 0.25, -0.5, -0.25));
  KRef b = Call("rfftfreq", "(4;0.5)");
  EXPECT_THAT(Values(b), ElementsAre(0, 0.5, 1));
  KRef c = Call("fftfreq", "(4;`double)");
  EXPECT_EQ(S1(Call("dtype", c)), "`double");
  KRef d = Call("rfftfreq", "(4;1;`grad)");
  EXPECT_EQ(S1(Call("gradflag", d)), "1b");
  KRef out = Call("tensor", "(`empty;0)");
  EXPECT_EQ(S1(Call("fftfreq", List({Q("4").release(), Q("2").release(), out.share()}))), "::");
  EXPECT_THAT(Values(out), ElementsAre(0, 0.125, -0.25, -0.125));
  Call("free", List({a.share(), b.share(), c.share(), d.share(), out.share()}));
}

TEST_F(PluginMathSpectralTest, ShiftsMoveTheZeroFrequency) {
  EXPECT_EQ(S1(Call("fftshift", "0 1 2 3 4")), "3 4 0 1 2");
  EXPECT_EQ(S1(Call("ifftshift", "3 4 0 1 2")), "0 1 2 3 4");
  EXPECT_EQ(S1(Call("fftshift", "((0 1 2;3 4 5);1)")), "(2 0 1;5 3 4)");
  EXPECT_EQ(S1(Call("ifftshift", "((0 1 2;3 4 5);0 1)")), "(4 5 3;1 2 0)");
  KRef p = Call("tensor", "(0 1 2;3 4 5)");
  KRef r = Call("fftshift", List({p.share(), Q("0").release()}));
  EXPECT_EQ(S1(Call("tensor", r)), "(3 4 5;0 1 2)");
  KRef both = Call("ifftshift", List({p.share(), Q("0 1").release()}));
  EXPECT_EQ(S1(Call("tensor", both)), "(4 5 3;1 2 0)");
  Call("free", List({p.share(), r.share(), both.share()}));
}

TEST_F(PluginMathSpectralTest, WindowsMatchLibtorch) {
  const std::vector<std::tuple<const char*, const char*, at::Tensor>> cases = {
      {"bartlett", "5", at::bartlett_window(5)},
      {"blackman", "(5;0b)", at::blackman_window(5, false)},
      {"hann", "4", at::hann_window(4)},
      {"hann", "(5;0b)", at::hann_window(5, false)},
      {"hamming", "(5;0b;0.5;0.5)", at::hamming_window(5, false, 0.5, 0.5)},
      {"hamming", "6", at::hamming_window(6)},
      {"kaiser", "(6;1b;5.0)", at::kaiser_window(6, true, 5.0)},
      {"kaiser", "(6;0b)", at::kaiser_window(6, false)},
  };
  for (const auto& [name, args, want] : cases) {
    KRef w = Call(name, args);
    EXPECT_THAT(Values(w), Pointwise(FloatNear(1e-6), Floats(want))) << name << args;
    Call("free", w);
  }
  KRef g = Call("hann", "(4;`grad)");
  EXPECT_EQ(S1(Call("gradflag", g)), "1b");
  KRef d = Call("kaiser", "(4;1b;3;`double)");
  EXPECT_EQ(S1(Call("dtype", d)), "`double");
  Call("free", List({g.share(), d.share()}));
}

TEST_F(PluginMathSpectralTest, BadArgumentsNameTheFunctionAndChangeNothing) {
  KRef p = Call("tensor", "1 2 3 4e");
  KRef o = Call("tensor", "0 0e");
  EXPECT_THAT(Error("fft", List({p.share(), Q("`half").release()})),
              HasSubstr("fft: norm expected `backward, `forward or `ortho, given `half"));
  EXPECT_THAT(Error("fft2", List({p.share(), Q("1.5").release()})),
              HasSubstr("fft2: unrecognized arg(s)"));
  EXPECT_THAT(Error("fftshift", List({p.share(), o.share()})),
              HasSubstr("fftshift: has no output form"));
  EXPECT_THAT(Error("hann", List({Q("4").release(), o.share()})),
              HasSubstr("hann: has no output form"));
  EXPECT_THAT(Error("hann", "(4;`big)"), HasSubstr("unrecognized tensor option: `big"));
  EXPECT_THAT(Values(p), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(Values(o), ElementsAre(0, 0));
  Call("free", List({p.share(), o.share()}));
}

}  // namespace plugin_math_spectral_test
}  // namespace kscope::testing
