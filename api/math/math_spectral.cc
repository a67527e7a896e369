// The catalogue's spectral functions and windows (ktorch-api.md §1.5 D7):
//   - the transforms f(x;size;dim;norm[;out]): one dimension (fft ifft rfft irfft hfft ihfft:
//     size a long, dim a long, default -1), two (fft2 ...: sizes and dims longs, dims default
//     -2 -1) and n (fftn ...: sizes and dims longs, default all); norm one of `backward
//     (libtorch's default) `forward `ortho, checked here so that a bad one names the function;
//   - fftfreq(n;scale;options) and rfftfreq: sample frequencies for window n and spacing scale
//     (default 1), a new handle whatever the arguments (or written into an output tensor);
//   - fftshift(x;dim) and ifftshift: the zero frequency moved to the centre and back (dims
//     default all);
//   - the windows bartlett blackman hann (n;periodic;options), hamming (n;periodic;alpha;beta;
//     options) and kaiser (n;periodic;beta;options): periodic defaults true, the other
//     parameters to libtorch's defaults; each a new handle.
// Options may ask for grad: the result then requires grad (factories refuse the flag, so it is
// set on the made tensor). Results of transforms of real input are complex where libtorch's are.
#include <ATen/ops/bartlett_window.h>
#include <ATen/ops/blackman_window.h>
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

#include "api/math/math_catalogue.h"
#include "runtime/errors.h"

namespace kscope::math {
namespace {

// The norm symbol at parameter 3 of every transform; the view is of a literal, so it outlives
// the call.
c10::string_view Norm(const Call& c) {
  const std::string given = c.symbol(3, "backward");
  for (const char* mode : {"backward", "forward", "ortho"}) {
    if (given == mode) return mode;
  }
  Fail("%s: norm expected `backward, `forward or `ortho, given `%s", c.fn(), given);
}

// Longs at parameter i, or none (libtorch's default).
std::optional<std::vector<std::int64_t>> Longs(const Call& c, std::size_t i) {
  if (!c.has(i)) return std::nullopt;
  return c.integers(i);
}
// A view of `longs` for an op: called on Longs' temporary within the op's call expression, so
// the vector outlives the view's use.
at::OptionalIntArrayRef Optional(const std::optional<std::vector<std::int64_t>>& longs) {
  if (!longs) return {};
  return at::IntArrayRef(*longs);
}

// Factory options without grad, and the made tensor given the grad flag the options asked for.
at::TensorOptions Factory(const at::TensorOptions& o) { return o.requires_grad(false); }
at::Tensor WithGrad(at::Tensor t, const at::TensorOptions& o) {
  return o.requires_grad() ? t.requires_grad_(true) : t;
}

// f(x;size;dim;norm), one dimension.
#define KSCOPE_FFT(name, op)                                                        \
  Function {                                                                        \
    name, "t|lly", [](const Call& c) -> Output {                                    \
      return at::op(c.tensor(0), c.optional_integer(1), c.integer(2, -1), Norm(c)); \
    }                                                                               \
  }
// f(x;sizes;dims;norm), two dimensions (dims default -2 -1).
#define KSCOPE_FFT2(name, op)                                                              \
  Function {                                                                               \
    name, "t|LLy", [](const Call& c) -> Output {                                           \
      return at::op(c.tensor(0), Optional(Longs(c, 1)), c.integers(2, {-2, -1}), Norm(c)); \
    }                                                                                      \
  }
// f(x;sizes;dims;norm), n dimensions (dims default all, or the last as many as sizes).
#define KSCOPE_FFTN(name, op)                                                            \
  Function {                                                                             \
    name, "t|LLy", [](const Call& c) -> Output {                                         \
      return at::op(c.tensor(0), Optional(Longs(c, 1)), Optional(Longs(c, 2)), Norm(c)); \
    }                                                                                    \
  }
// f(n;scale;options).
#define KSCOPE_FREQUENCIES(name, op)                                            \
  Function {                                                                    \
    name, "l|fo",                                                               \
        [](const Call& c) -> Output {                                           \
          const at::TensorOptions o = c.options(2);                             \
          return WithGrad(at::op(c.integer(0), c.real(1, 1.0), Factory(o)), o); \
        },                                                                      \
        nullptr, true, Returns::kHandle                                         \
  }
// f(x;dims).
#define KSCOPE_SHIFT(name, op)                                                              \
  Function {                                                                                \
    name, "t|L",                                                                            \
        [](const Call& c) -> Output { return at::op(c.tensor(0), Optional(Longs(c, 1))); }, \
        nullptr, false                                                                      \
  }
// f(n;periodic;options).
#define KSCOPE_WINDOW(name, op)                                                  \
  Function {                                                                     \
    name, "l|bo",                                                                \
        [](const Call& c) -> Output {                                            \
          const at::TensorOptions o = c.options(2);                              \
          return WithGrad(at::op(c.integer(0), c.flag(1, true), Factory(o)), o); \
        },                                                                       \
        nullptr, false, Returns::kHandle                                         \
  }

at::Tensor Hamming(const Call& c) {
  const at::TensorOptions o = c.options(4);
  return WithGrad(at::hamming_window(c.integer(0), c.flag(1, true), c.real(2, 0.54),
                                     c.real(3, 0.46), Factory(o)),
                  o);
}

at::Tensor Kaiser(const Call& c) {
  const at::TensorOptions o = c.options(3);
  return WithGrad(at::kaiser_window(c.integer(0), c.flag(1, true), c.real(2, 12.0), Factory(o)), o);
}

const Function kSpectral[] = {
    KSCOPE_FFT("fft", fft_fft),
    KSCOPE_FFT("ifft", fft_ifft),
    KSCOPE_FFT("rfft", fft_rfft),
    KSCOPE_FFT("irfft", fft_irfft),
    KSCOPE_FFT("hfft", fft_hfft),
    KSCOPE_FFT("ihfft", fft_ihfft),
    KSCOPE_FFT2("fft2", fft_fft2),
    KSCOPE_FFT2("ifft2", fft_ifft2),
    KSCOPE_FFT2("rfft2", fft_rfft2),
    KSCOPE_FFT2("irfft2", fft_irfft2),
    KSCOPE_FFT2("hfft2", fft_hfft2),
    KSCOPE_FFT2("ihfft2", fft_ihfft2),
    KSCOPE_FFTN("fftn", fft_fftn),
    KSCOPE_FFTN("ifftn", fft_ifftn),
    KSCOPE_FFTN("rfftn", fft_rfftn),
    KSCOPE_FFTN("irfftn", fft_irfftn),
    KSCOPE_FFTN("hfftn", fft_hfftn),
    KSCOPE_FFTN("ihfftn", fft_ihfftn),
    KSCOPE_FREQUENCIES("fftfreq", fft_fftfreq),
    KSCOPE_FREQUENCIES("rfftfreq", fft_rfftfreq),
    KSCOPE_SHIFT("fftshift", fft_fftshift),
    KSCOPE_SHIFT("ifftshift", fft_ifftshift),
    KSCOPE_WINDOW("bartlett", bartlett_window),
    KSCOPE_WINDOW("blackman", blackman_window),
    KSCOPE_WINDOW("hann", hann_window),
    Function{"hamming", "l|bffo", [](const Call& c) -> Output { return Hamming(c); }, nullptr,
             false, Returns::kHandle},
    Function{"kaiser", "l|bfo", [](const Call& c) -> Output { return Kaiser(c); }, nullptr, false,
             Returns::kHandle},
};

#undef KSCOPE_FFT
#undef KSCOPE_FFT2
#undef KSCOPE_FFTN
#undef KSCOPE_FREQUENCIES
#undef KSCOPE_SHIFT
#undef KSCOPE_WINDOW

}  // namespace

absl::Span<const Function> SpectralFunctions() { return kSpectral; }

}  // namespace kscope::math
