// Adapters for optimizers: opt step lr.
#include "api/optimizer.h"
#include "q/args.h"
#include "q/convert.h"
#include "q/definition.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// opt`kind | opt(`kind;opts..) | opt(`kind;module;opts..) | opt o | opt(o;flag)
K Opt(K x) {
  return Guard([&] {
    const Args a("opt", x);
    if (IsPointer(x) || (a.size() == 2 && a.IsPointerAt(0) && a[1]->t == -kabi::kBoolean)) {
      const OptimizerDescription d = describe_opt(a.PointerAt(0), a.size() == 2 ? a.BoolAt(1) : true);
      return kabi::xD(Symbols({"optimizer", "options", "parameters"}),
                      kabi::knk(3, Symbol(d.kind), KFromOptions(d.options), kabi::kj(d.parameters)));
    }
    std::vector<nn::OptionValue> positional;
    nn::NamedValues named;
    if (x->t == kabi::kSymbol && x->n > 0) {  // (`sgd;`x..) arrives as a symbol list
      for (long long i = 1; i < x->n; ++i) positional.emplace_back(std::string(kabi::Symbols(x)[i]));
      return Pointer(opt(kabi::Symbols(x)[0], positional, named));
    }
    const std::string kind = a.SymbolAt(0);
    const bool with_module = a.IsPointerAt(1);
    if (x->t == kabi::kMixed) OptionsFromK(kind.c_str(), x, with_module ? 2 : 1, opt_options(kind), &positional, &named);
    if (with_module) return Pointer(opt_module(kind, a.PointerAt(1), positional, named));
    return Pointer(opt(kind, positional, named));
  });
}

K Step(K x) {
  return Guard([&] {
    step(Args("step", x).PointerAt(0));
    return K{nullptr};
  });
}

// lr o -> one rate per group | lr(o;rate)
K Lr(K x) {
  return Guard([&] {
    const Args a("lr", x);
    if (IsPointer(x)) {
      const std::vector<double> rates = lr(HandleOf(x));
      K v = kabi::ktn(kabi::kFloat, static_cast<long long>(rates.size()));
      std::copy(rates.begin(), rates.end(), kabi::Floats(v));
      return v;
    }
    if (a.size() != 2) a.Unrecognized();
    const nn::OptionValue rate = OptionFromK("lr", a[1]);
    const double* d = std::get_if<double>(&rate);
    const std::int64_t* j = std::get_if<std::int64_t>(&rate);
    if (d == nullptr && j == nullptr) Fail("lr: expecting a number, given %s", KName(a[1]));
    lr(a.PointerAt(0), d != nullptr ? *d : static_cast<double>(*j));
    return K{nullptr};
  });
}

}  // namespace

std::vector<Export> OptimizerExports() {
  return {Unary("opt", Opt), Unary("step", Step), Unary("lr", Lr)};
}

}  // namespace kscope::q
