// api/math/math_catalogue.h's spectral group (D7): every transform, frequency, shift and window
// function checked against the same libtorch call made directly, as data, as handles, into an
// output handle; defaults and every optional argument; errors that name the function and
// change nothing.
#include <functional>

#include <ATen/ops/allclose.h>
#include <ATen/ops/bartlett_window.h>
#include <ATen/ops/blackman_window.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/fft_fft.h>
#include <ATen/ops/fft_fft2.h>
#include <ATen/ops/fft_fftfreq.h>
#include <ATen/ops/fft_fftn.h>
#include <ATen/ops/fft_fftshift.h>
#include <ATen/ops/fft_hfft.h>
#include <ATen/ops/fft_hfft2.h>
#include <ATen/ops/fft_hfftn.h>
#include <ATen/ops/fft_ifft.h>
#include <ATen/ops/fft_ifft2.h>
#include <ATen/ops/fft_ifftn.h>
#include <ATen/ops/fft_ifftshift.h>
#include <ATen/ops/fft_ihfft.h>
#include <ATen/ops/fft_ihfft2.h>
#include <ATen/ops/fft_ihfftn.h>
#include <ATen/ops/fft_irfft.h>
#include <ATen/ops/fft_irfft2.h>
#include <ATen/ops/fft_irfftn.h>
#include <ATen/ops/fft_rfft.h>
#include <ATen/ops/fft_rfft2.h>
#include <ATen/ops/fft_rfftfreq.h>
#include <ATen/ops/fft_rfftn.h>
#include <ATen/ops/hamming_window.h>
#include <ATen/ops/hann_window.h>
#include <ATen/ops/kaiser_window.h>
#include <ATen/ops/randn.h>

#include "api/math/math_catalogue.h"
#include "api/tensor/tensor.h"
#include "api/tensor/tensor_creation.h"
#include "runtime/handle_table.h"
#include "tests/error_text.h"
#include "tests/math_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace math_spectral_test {

using testing::EmptyOf;
using testing::ErrorOf;
using testing::ExpectSameTensor;
using ::testing::HasSubstr;
using testing::LeakCheckTest;

using MathSpectralTest = LeakCheckTest;
using Args = std::vector<math::Arg>;

// `name` on x then `rest`: as data, as a handle and into an output handle, each compared with
// want.
void ExpectEveryForm(const std::string& name, const at::Tensor& x, const Args& rest,
                     const at::Tensor& want) {
  Args data{Operand(x.clone())};
  data.insert(data.end(), rest.begin(), rest.end());
  const Result by_data = math::Run(name, data);
  ASSERT_FALSE(by_data.is_handle()) << name;
  ExpectSameTensor(by_data.tensor(), want, name + " data");

  Scope scope = Scope::Open();
  Args handles{Operand(tensor(x.clone()))};
  handles.insert(handles.end(), rest.begin(), rest.end());
  const Result by_handle = math::Run(name, handles);
  ASSERT_TRUE(by_handle.is_handle()) << name;
  ExpectSameTensor(tensor(by_handle.handle()), want, name + " handle");

  if (math::Find(name)->writes_output) {
    const Handle out = EmptyOf(want.scalar_type());
    EXPECT_TRUE(math::Run(name, handles, out).is_none()) << name;
    ExpectSameTensor(tensor(out), want, name + " out");
  }
}

using Transform = std::function<at::Tensor(const at::Tensor&)>;
struct TransformCase {
  const char* name;
  Args rest;  // size;dim;norm as the caller gives them
  Transform reference;
};

TEST_F(MathSpectralTest, EveryTransformMatchesLibtorch) {
  const at::Tensor real = at::randn({4, 6, 5}, at::kDouble);
  const at::Tensor complex = at::randn({4, 6, 5}, at::kComplexDouble);
  const std::int64_t n = 8;
  const std::int64_t dim = 1;
  const std::vector<std::int64_t> sizes{3, 4};
  const std::vector<std::int64_t> dims{0, 2};
  const std::vector<TransformCase> one_dim = {
      {"fft", {}, [](auto& t) { return at::fft_fft(t); }},
      {"fft",
       {n, dim, std::string("ortho")},
       [&](auto& t) { return at::fft_fft(t, n, dim, "ortho"); }},
      {"ifft", {}, [](auto& t) { return at::fft_ifft(t); }},
      {"ifft",
       {n, std::monostate(), std::string("forward")},
       [&](auto& t) { return at::fft_ifft(t, n, -1, "forward"); }},
      {"rfft", {}, [](auto& t) { return at::fft_rfft(t); }},
      {"rfft",
       {std::monostate(), dim},
       [&](auto& t) { return at::fft_rfft(t, c10::nullopt, dim); }},
      {"irfft", {}, [](auto& t) { return at::fft_irfft(t); }},
      {"irfft",
       {n, dim, std::string("backward")},
       [&](auto& t) { return at::fft_irfft(t, n, dim, "backward"); }},
      {"hfft", {}, [](auto& t) { return at::fft_hfft(t); }},
      {"hfft",
       {n, dim, std::string("ortho")},
       [&](auto& t) { return at::fft_hfft(t, n, dim, "ortho"); }},
      {"ihfft", {}, [](auto& t) { return at::fft_ihfft(t); }},
      {"ihfft", {n, dim}, [&](auto& t) { return at::fft_ihfft(t, n, dim); }},
      {"fft2", {}, [](auto& t) { return at::fft_fft2(t); }},
      {"fft2",
       {sizes, dims, std::string("ortho")},
       [&](auto& t) { return at::fft_fft2(t, sizes, dims, "ortho"); }},
      {"ifft2", {}, [](auto& t) { return at::fft_ifft2(t); }},
      {"ifft2", {sizes}, [&](auto& t) { return at::fft_ifft2(t, sizes); }},
      {"rfft2", {}, [](auto& t) { return at::fft_rfft2(t); }},
      {"rfft2",
       {std::monostate(), dims},
       [&](auto& t) { return at::fft_rfft2(t, c10::nullopt, dims); }},
      {"irfft2", {}, [](auto& t) { return at::fft_irfft2(t); }},
      {"irfft2",
       {sizes, dims, std::string("forward")},
       [&](auto& t) { return at::fft_irfft2(t, sizes, dims, "forward"); }},
      {"hfft2", {}, [](auto& t) { return at::fft_hfft2(t); }},
      {"hfft2", {sizes, dims}, [&](auto& t) { return at::fft_hfft2(t, sizes, dims); }},
      {"ihfft2", {}, [](auto& t) { return at::fft_ihfft2(t); }},
      {"ihfft2",
       {sizes, dims, std::string("ortho")},
       [&](auto& t) { return at::fft_ihfft2(t, sizes, dims, "ortho"); }},
      {"fftn", {}, [](auto& t) { return at::fft_fftn(t); }},
      {"fftn",
       {sizes, dims, std::string("ortho")},
       [&](auto& t) { return at::fft_fftn(t, sizes, dims, "ortho"); }},
      {"ifftn", {}, [](auto& t) { return at::fft_ifftn(t); }},
      {"ifftn",
       {std::monostate(), dims},
       [&](auto& t) { return at::fft_ifftn(t, c10::nullopt, dims); }},
      {"rfftn", {}, [](auto& t) { return at::fft_rfftn(t); }},
      {"rfftn", {sizes}, [&](auto& t) { return at::fft_rfftn(t, sizes); }},
      {"irfftn", {}, [](auto& t) { return at::fft_irfftn(t); }},
      {"irfftn",
       {sizes, dims, std::string("forward")},
       [&](auto& t) { return at::fft_irfftn(t, sizes, dims, "forward"); }},
      {"hfftn", {}, [](auto& t) { return at::fft_hfftn(t); }},
      {"hfftn", {sizes, dims}, [&](auto& t) { return at::fft_hfftn(t, sizes, dims); }},
      {"ihfftn", {}, [](auto& t) { return at::fft_ihfftn(t); }},
      {"ihfftn",
       {std::monostate(), std::monostate(), std::string("ortho")},
       [&](auto& t) { return at::fft_ihfftn(t, c10::nullopt, c10::nullopt, "ortho"); }},
  };
  EXPECT_EQ(one_dim.size(), 36u);  // 18 transforms, by default and with arguments
  for (const TransformCase& c : one_dim) {
    const std::string name = c.name;
    // Real-to-complex transforms need real input; the others are given complex input.
    const bool takes_real = name.rfind("rfft", 0) == 0 || name.rfind("ihfft", 0) == 0;
    const at::Tensor& x = takes_real ? real : complex;
    ExpectEveryForm(name, x, c.rest, c.reference(x));
  }
}

TEST_F(MathSpectralTest, FrequenciesAreNewHandlesWithOptions) {
  Scope scope = Scope::Open();
  const Result plain = math::Run("fftfreq", {std::int64_t{5}});
  ASSERT_TRUE(plain.is_handle());
  ExpectSameTensor(tensor(plain.handle()), at::fft_fftfreq(5), "fftfreq");
  const Result scaled =
      math::Run("rfftfreq", {std::int64_t{6}, 0.5, std::vector<std::string>{"double", "grad"}});
  const at::Tensor r = TensorOf("rfftfreq", scaled.handle());  // not a detached copy
  ExpectSameTensor(r, at::fft_rfftfreq(6, 0.5, at::kDouble), "rfftfreq");
  EXPECT_TRUE(r.requires_grad());
  const Handle out = EmptyOf(at::kDouble);
  EXPECT_TRUE(math::Run("fftfreq", {std::int64_t{4}, std::int64_t{2}}, out).is_none());
  ExpectSameTensor(tensor(out), at::fft_fftfreq(4, 2.0, at::kDouble), "fftfreq out");
}

TEST_F(MathSpectralTest, ShiftsMatchLibtorch) {
  const at::Tensor x = at::randn({4, 5});
  ExpectEveryForm("fftshift", x, {}, at::fft_fftshift(x));
  ExpectEveryForm("fftshift", x, {std::int64_t{1}}, at::fft_fftshift(x, at::IntArrayRef{1}));
  ExpectEveryForm("ifftshift", x, {}, at::fft_ifftshift(x));
  ExpectEveryForm("ifftshift", x, {std::vector<std::int64_t>{0, 1}},
                  at::fft_ifftshift(x, at::IntArrayRef{0, 1}));
}

using Window = std::function<at::Tensor()>;

TEST_F(MathSpectralTest, WindowsMatchLibtorch) {
  Scope scope = Scope::Open();
  const std::int64_t n = 7;
  const std::vector<std::string> dbl{"double"};
  const std::vector<std::tuple<const char*, Args, Window>> cases = {
      {"bartlett", {n}, [&] { return at::bartlett_window(n); }},
      {"bartlett", {n, false, dbl}, [&] { return at::bartlett_window(n, false, at::kDouble); }},
      {"blackman", {n}, [&] { return at::blackman_window(n); }},
      {"blackman", {n, false}, [&] { return at::blackman_window(n, false); }},
      {"hann", {n}, [&] { return at::hann_window(n); }},
      {"hann", {n, true, dbl}, [&] { return at::hann_window(n, true, at::kDouble); }},
      {"hamming", {n}, [&] { return at::hamming_window(n); }},
      {"hamming",
       {n, false, 0.5, 0.4, dbl},
       [&] { return at::hamming_window(n, false, 0.5, 0.4, at::kDouble); }},
      {"hamming", {n, true, 0.6}, [&] { return at::hamming_window(n, true, 0.6); }},
      {"kaiser", {n}, [&] { return at::kaiser_window(n); }},
      {"kaiser",
       {n, false, 5.0, dbl},
       [&] { return at::kaiser_window(n, false, 5.0, at::kDouble); }},
  };
  for (const auto& [name, args, reference] : cases) {
    const Result r = math::Run(name, args);
    ASSERT_TRUE(r.is_handle()) << name;
    ExpectSameTensor(tensor(r.handle()), reference(), name);
  }
  const at::Tensor grad = TensorOf(
      "hann", math::Run("hann", {n, std::monostate(), std::vector<std::string>{"grad"}}).handle());
  EXPECT_TRUE(grad.requires_grad());
  ExpectSameTensor(grad.detach(), at::hann_window(n), "hann grad");
}

TEST_F(MathSpectralTest, BadArgumentsNameTheFunctionAndChangeNothing) {
  Scope scope = Scope::Open();
  const at::Tensor values = at::randn({4});
  const Handle x = tensor(values.clone());
  const std::size_t live = HandleTable::Global().size();
  EXPECT_THAT(
      ErrorOf([&] {
        math::Run("fft", {Operand(x), std::monostate(), std::monostate(), std::string("half")});
      }),
      HasSubstr("fft: norm expected `backward, `forward or `ortho, given `half"));
  EXPECT_THAT(ErrorOf([&] {
                math::Run("fft2", {Operand(x), 1.5});
              }),
              HasSubstr("fft2: arg[1] expected long(s)"));
  EXPECT_THAT(ErrorOf([&] { math::Run("fftshift", {Operand(x)}, x); }),
              HasSubstr("fftshift: has no output form"));
  EXPECT_THAT(ErrorOf([&] { math::Run("hann", {std::int64_t{4}}, x); }),
              HasSubstr("hann: has no output form"));
  EXPECT_THAT(ErrorOf([&] { math::Run("hann", {Operand(x)}); }),
              HasSubstr("hann: arg[0] expected long"));
  EXPECT_THAT(ErrorOf([&] {
                math::Run("kaiser", {std::int64_t{4}, true, 1.0, std::vector<std::string>{"big"}});
              }),
              HasSubstr("unrecognized tensor option: `big"));
  EXPECT_THAT(ErrorOf([&] { math::Run("fft", {Operand(x)}, Handle(), true); }),
              HasSubstr("fft: has no in-place form"));
  EXPECT_EQ(HandleTable::Global().size(), live);
  EXPECT_TRUE(at::equal(tensor(x), values));
}

}  // namespace math_spectral_test
}  // namespace kscope
