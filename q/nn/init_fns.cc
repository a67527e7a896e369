// Adapters for initializing tensors in place (api/nn/init.h): zeros ones fill eye dirac orthogonal
// knormal kuniform snormal xnormal xuniform, and gain.
//
// f x, for a pointer or a k array x, or f(x;[sel;]options..): x is a tensor, vector, dictionary
// or module pointer, or k data; sel selects the tensors changed: the vector indices (integers)
// or the dictionary keys / module parameter and buffer names (symbols), read as sel when item 1
// is of that type, is not one of the function's option symbols, and the function's required
// options still follow it. A pointer gives null (the tensors changed in place); k data gives a
// changed copy as k data. Options:
//   fill(x[;sel];value)  dirac(x[;sel][;groups])  orthogonal/xnormal/xuniform(x[;sel][;gain])
//   snormal(x[;sel];sparsity[;std]) knormal/kuniform(x[;sel][;nonlinearity][;fanin|fanout][;slope])
//   in any order  gain`nonlinearity / gain(`leakyrelu;slope) -> a float
#include <optional>
#include <string>
#include <vector>

#include "api/nn/init.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/convert/fill_target.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

bool IsKaimingOption(const std::string& s) {
  return s == "fanin" || s == "fanout" || init::is_nonlinearity(s);
}

// The number at i when given (and nothing after it), else `otherwise`.
double OptionalNumberAt(const Args& a, std::size_t i, double otherwise) {
  if (a.size() > i + 1) a.Unrecognized();
  return a.size() > i ? a.DoubleAt(i) : otherwise;
}

// Decodes the target, calls init(args, first option, target), and encodes the result.
template <typename Init>
K InitCall(const char* fn, K x, std::size_t required, bool (*is_option)(const std::string&),
           Init init) {
  return Guard([&] {
    const Args a(fn, x);
    const FillTarget t = FillTargetOf(a, required, is_option);
    init(a, t.options, t.target);
    return t.data ? KFromTensor(t.target.data()) : Null();
  });
}

// f x | f(x;sel): no options.
K NoOptions(const char* fn, K x, void (*init)(const init::Target&)) {
  return InitCall(fn, x, 0, NoOptionSymbols,
                  [&](const Args& a, std::size_t i, const init::Target& t) {
                    if (a.size() > i) a.Unrecognized();
                    init(t);
                  });
}

// f(x[;sel][;gain])
K WithGain(const char* fn, K x, void (*init)(const init::Target&, double)) {
  return InitCall(fn, x, 0, NoOptionSymbols,
                  [&](const Args& a, std::size_t i, const init::Target& t) {
                    init(t, OptionalNumberAt(a, i, 1));
                  });
}

// f(x[;sel][;nonlinearity][;fanin|fanout][;slope]), options in any order, each at most once.
K Kaiming(const char* fn, K x, void (*init)(const init::Target&, const init::Kaiming&)) {
  return InitCall(
      fn, x, 0, IsKaimingOption, [&](const Args& a, std::size_t first, const init::Target& t) {
        init::Kaiming o;
        bool slope = false, mode = false, nonlinearity = false;
        auto once = [&](bool* seen, const char* what) {
          if (*seen) Fail("%s: %s given more than once", fn, what);
          *seen = true;
        };
        for (std::size_t i = first; i < a.size(); ++i) {
          if (a[i]->t != -kabi::kSymbol) {
            once(&slope, "slope");
            o.a = a.DoubleAt(i);
          } else if (const std::string s = a.SymbolAt(i); s == "fanin" || s == "fanout") {
            once(&mode, "fan mode");
            o.fan_out = s == "fanout";
          } else {
            once(&nonlinearity, "nonlinearity");
            o.nonlinearity = s;
          }
        }
        init(t, o);
      });
}

K Zeros(K x) { return NoOptions("zeros", x, init::zeros); }
K Ones(K x) { return NoOptions("ones", x, init::ones); }
K Eye(K x) { return NoOptions("eye", x, init::eye); }

// fill(x[;sel];value)
K Fill(K x) {
  return InitCall("fill", x, 1, NoOptionSymbols,
                  [](const Args& a, std::size_t i, const init::Target& t) {
                    if (a.size() != i + 1) a.Unrecognized();
                    const K v = a[i];
                    if (v->t == -kabi::kFloat || v->t == -kabi::kReal) {
                      init::fill(t, a.DoubleAt(i));
                    } else if (v->t == -kabi::kBoolean) {
                      init::fill(t, a.BoolAt(i));
                    } else {
                      init::fill(t, a.LongAt(i));
                    }
                  });
}

// dirac(x[;sel][;groups])
K Dirac(K x) {
  return InitCall("dirac", x, 0, NoOptionSymbols,
                  [](const Args& a, std::size_t i, const init::Target& t) {
                    if (a.size() > i + 1) a.Unrecognized();
                    init::dirac(t, a.size() > i ? a.LongAt(i) : 1);
                  });
}

K Orthogonal(K x) { return WithGain("orthogonal", x, init::orthogonal); }
K Xnormal(K x) { return WithGain("xnormal", x, init::xavier_normal); }
K Xuniform(K x) { return WithGain("xuniform", x, init::xavier_uniform); }
K Knormal(K x) { return Kaiming("knormal", x, init::kaiming_normal); }
K Kuniform(K x) { return Kaiming("kuniform", x, init::kaiming_uniform); }

// snormal(x[;sel];sparsity[;std])
K Snormal(K x) {
  return InitCall("snormal", x, 1, NoOptionSymbols,
                  [](const Args& a, std::size_t i, const init::Target& t) {
                    if (a.size() <= i) a.Unrecognized();
                    init::sparse(t, a.DoubleAt(i), OptionalNumberAt(a, i + 1, 0.01));
                  });
}

// gain`nonlinearity | gain(`leakyrelu;slope) -> the recommended gain
K Gain(K x) {
  return Guard([&] {
    const Args a("gain", x);
    if (a.size() != 1 && a.size() != 2) a.Unrecognized();
    const std::string nonlinearity = a.SymbolAt(0);
    return kabi::kf(init::gain(
        nonlinearity, a.size() == 2 ? std::optional<double>(a.DoubleAt(1)) : std::nullopt));
  });
}

}  // namespace

std::vector<Export> InitExports() {
  return {Unary("zeros", Zeros),     Unary("ones", Ones),         Unary("fill", Fill),
          Unary("eye", Eye),         Unary("dirac", Dirac),       Unary("orthogonal", Orthogonal),
          Unary("knormal", Knormal), Unary("kuniform", Kuniform), Unary("snormal", Snormal),
          Unary("xnormal", Xnormal), Unary("xuniform", Xuniform), Unary("gain", Gain)};
}

}  // namespace kscope::q
