// Adapters for ktorch's random group (api/tensor/random_fill.h): normal uniform random cauchy
// exponential geometric lognormal fill in place; bernoulli and multinomial draw new tensors.
//
// Fills: f(x;[sel;]options..), x and sel as q/convert/fill_target.h reads them (a pointer gives
// null, k data a filled copy as k data). Options are numbers, so item 1 is a selection when it is
// an integer list or a symbol, or an integer atom followed by more items than f's options (normal
// (v;0;1) is mean 0 and std 1 for every tensor of v; normal(v;0;0;1) fills v[0] only):
//   normal(x[;sel][;mean[;std]])   uniform(x[;sel][;low[;high]])   random(x[;sel][;[low;]high])
//   cauchy(x[;sel][;median[;sigma]])   exponential(x[;sel][;rate])   geometric(x[;sel];probability)
//   lognormal(x[;sel][;mean[;std]])
// Omitted options take libtorch's defaults, as in ktorch (cauchy 0 1, exponential 1, lognormal
// 1 2, normal 0 1, uniform 0 1; random without bounds: 0 up to the dtype's largest integer).
// bernoulli(x[;out]) and multinomial(x[;n[;replace]][;out]) (no n: one draw, an atom per row):
// x a pointer or k data (a matrix may be given as a general list to bernoulli); k data in -> k
// data out, a pointer in -> a new pointer, or the draws written into the output pointer (null
// returned).
#include <string>

#include "api/tensor/random_fill.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/convert/fill_target.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// A fill's name, its options as its errors spell them, and how many it takes (bit n set: n
// options allowed).
struct Form {
  const char* fn;
  const char* usage;
  unsigned counts;
};

std::size_t Least(unsigned counts) {
  std::size_t n = 0;
  while (!(counts >> n & 1u)) ++n;
  return n;
}

std::size_t Most(unsigned counts) {
  std::size_t n = 0;
  while (counts >> (n + 1)) ++n;
  return n;
}

// Decodes f(x;[sel;]options..), checks the option count, calls fill(target, args, first option,
// option count) and encodes the result.
template <typename F>
K FillCall(const Form& f, K x, F fill) {
  return Guard([&] {
    const Args a(f.fn, x);
    const bool number = a.size() > 1 && a[1]->t < 0 && a[1]->t != -kabi::kSymbol;
    const FillTarget t =
        FillTargetOf(a, number ? Most(f.counts) : Least(f.counts), NoOptionSymbols);
    const std::size_t n = a.size() - t.options;
    if (n > Most(f.counts) || !(f.counts >> n & 1u)) {
      Fail("%s: expected %s, given %d option(s)", f.fn, f.usage, n);
    }
    fill(t.target, a, t.options, n);
    return t.data ? KFromTensor(t.target.data()) : Null();
  });
}

// A fill taking up to two double options (fill(t), fill(t, a) or fill(t, a, b)).
template <typename F>
K UpToTwoDoubles(const Form& f, K x, F fill) {
  return FillCall(f, x, [&](const init::Target& t, const Args& a, std::size_t i, std::size_t n) {
    if (n == 0) return fill(t);
    if (n == 1) return fill(t, a.DoubleAt(i));
    fill(t, a.DoubleAt(i), a.DoubleAt(i + 1));
  });
}

K Normal(K x) {
  return UpToTwoDoubles({"normal", "mean and std", 0b111u}, x,
                        [](const init::Target& t, auto... o) { random_fill::normal(t, o...); });
}

K Uniform(K x) {
  return UpToTwoDoubles({"uniform", "low and high", 0b111u}, x,
                        [](const init::Target& t, auto... o) { random_fill::uniform(t, o...); });
}

K Random(K x) {
  return FillCall({"random", "high or low and high", 0b111u}, x,
                  [](const init::Target& t, const Args& a, std::size_t i, std::size_t n) {
                    if (n == 0) return random_fill::random(t);
                    if (n == 1) return random_fill::random(t, a.LongAt(i));
                    random_fill::random(t, a.LongAt(i), a.LongAt(i + 1));
                  });
}

K Cauchy(K x) {
  return UpToTwoDoubles({"cauchy", "median and sigma", 0b111u}, x,
                        [](const init::Target& t, auto... o) { random_fill::cauchy(t, o...); });
}

K Exponential(K x) {
  return FillCall({"exponential", "rate", 0b11u}, x,
                  [](const init::Target& t, const Args& a, std::size_t i, std::size_t n) {
                    if (n == 0) return random_fill::exponential(t);
                    random_fill::exponential(t, a.DoubleAt(i));
                  });
}

K Geometric(K x) {
  return FillCall({"geometric", "probability", 0b10u}, x,
                  [](const init::Target& t, const Args& a, std::size_t i, std::size_t) {
                    random_fill::geometric(t, a.DoubleAt(i));
                  });
}

K Lognormal(K x) {
  return UpToTwoDoubles({"lognormal", "mean and std", 0b111u}, x,
                        [](const init::Target& t, auto... o) { random_fill::lognormal(t, o...); });
}

// bernoulli x | bernoulli(x;out)
K Bernoulli(K x) {
  return Guard([&] {
    const Args a("bernoulli", x);
    if (a.empty()) a.Unrecognized();
    if (a.size() == 2 && a.IsPointerAt(1))
      return KFromResult(random_fill::bernoulli(a.InputAt(0), a.PointerAt(1)));
    if (a.size() == 1) return KFromResult(random_fill::bernoulli(a.InputAt(0)));
    return KFromResult(random_fill::bernoulli(InputFromK("bernoulli", x)));  // a matrix
  });
}

// multinomial(x;n[;replace][;out])
K Multinomial(K x) {
  return Guard([&] {
    const Args a("multinomial", x);
    std::size_t end = a.size();
    Handle out;
    if (end > 2 && a.IsPointerAt(end - 1)) out = a.PointerAt(--end);
    if (end < 1 || end > 3) a.Unrecognized();
    const bool replace = end == 3 && a.BoolAt(2);
    const std::int64_t samples = end >= 2 ? a.LongAt(1) : -1;  // one draw, squeezed, as in ktorch
    return KFromResult(random_fill::multinomial(a.InputAt(0), samples, replace, out));
  });
}

}  // namespace

std::vector<Export> RandomExports() {
  return {Unary("bernoulli", Bernoulli),     Unary("multinomial", Multinomial),
          Unary("normal", Normal),           Unary("uniform", Uniform),
          Unary("random", Random),           Unary("cauchy", Cauchy),
          Unary("exponential", Exponential), Unary("geometric", Geometric),
          Unary("lognormal", Lognormal)};
}

}  // namespace kscope::q
