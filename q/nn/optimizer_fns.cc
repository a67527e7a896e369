// Adapters for optimizers: opt step lr.
#include <algorithm>

#include "api/core/pointer.h"
#include "api/model/model.h"
#include "api/model/model_run.h"
#include "api/nn/optimizer.h"
#include "api/nn/optimizer_state.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/convert/k_definition.h"
#include "q/convert/k_optimizer_state.h"
#include "q/env/settings.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

bool IsIntegerAtom(K x) {
  return x->t == -kabi::kLong || x->t == -kabi::kInt || x->t == -kabi::kShort;
}
bool IsKeys(K x) {
  return x->t == -kabi::kSymbol || x->t == kabi::kSymbol || IsIntegerAtom(x) ||
         x->t == kabi::kLong || x->t == kabi::kInt || x->t == kabi::kShort;
}

// ktorch's params: a pointer (module, tensor, vector, dictionary), (pointer;keys|indices) or ().
bool IsParms(K x) {
  if (IsPointer(x)) return true;
  if (x->t != kabi::kMixed) return false;
  return x->n == 0 || (x->n == 2 && IsPointer(kabi::Items(x)[0]) && IsKeys(kabi::Items(x)[1]));
}

ParameterSource SourceFromK(K x) {
  if (IsPointer(x)) return ParameterSource{HandleOf(x), {}, {}};
  if (x->n == 0) return ParameterSource{};
  const Args pair("opt", x);
  ParameterSource s{pair.PointerAt(0), {}, {}};
  if (pair.IsSymbolAt(1) || pair[1]->t == kabi::kSymbol) {
    s.keys = pair.SymbolsAt(1);
  } else {
    s.indices = pair.LongsAt(1);
  }
  return s;
}

// Where the group and the params are among the arguments after item `from`: a group is an
// integer followed by params. Returns the index of the params, or 0 if none are given.
std::size_t ParmsAt(const Args& a, std::size_t from, std::int64_t* group) {
  *group = 0;
  if (a.size() > from + 1 && IsIntegerAtom(a[from]) && IsParms(a[from + 1])) {
    *group = a.LongAt(from);
    return from + 1;
  }
  return a.size() > from && IsParms(a[from]) ? from : 0;
}

// The options of `kind` in items [from, n) of x: positional, then name-value pairs (each pair
// as two items or as one, ktorch's opt(`adamw;q;`amsgrad,1b)) or a dictionary.
void Options(const std::string& kind, K x, std::size_t from,
             std::vector<nn::OptionValue>* positional, nn::NamedValues* named) {
  if (x->t != kabi::kMixed) return;
  OptionsFromK(kind.c_str(), x, static_cast<long long>(from), opt_options(kind), positional, named);
}

// opt o | opt(o;flag) | opt(o;[group;]params;opts..)
K Edit(const Args& a, K x) {
  const Handle o = a.PointerAt(0);
  if (a.size() == 1 || (a.size() == 2 && a[1]->t == -kabi::kBoolean)) {
    return KFromOptimizerDescription(describe_opt(o, a.size() == 2 ? a.BoolAt(1) : AllOptions()),
                                     nullptr);
  }
  std::int64_t group = 0;
  const std::size_t at = ParmsAt(a, 1, &group);
  if (at == 0) a.Unrecognized();
  std::vector<nn::OptionValue> positional;
  nn::NamedValues named;
  Options(describe_opt(o, false).kind, x, at + 1, &positional, &named);
  opt_edit(o, group, SourceFromK(a[at]), positional, named);
  return K{nullptr};
}

// opt`kind | opt(`kind;opts..) | opt m (the model's optimizer) | opt(`kind;[group;]params;opts..) |
// opt(o;..) | opt(state;module)
K Opt(K x) {
  return Guard([&] {
    const Args a("opt", x);
    if (a.empty()) a.Unrecognized();
    if (IsPointer(x) && class_(HandleOf(x)) == ObjectClass::kModel)
      return Pointer(model_opt(HandleOf(x)));
    if (a.IsPointerAt(0)) return Edit(a, x);
    if (a[0]->t == kabi::kDictionary) {
      if (a.size() != 2) a.Unrecognized();
      return Pointer(opt(OptimizerStateFromK(a[0]), a.PointerAt(1)));
    }
    std::vector<nn::OptionValue> positional;
    nn::NamedValues named;
    if (x->t == kabi::kSymbol && x->n > 0) {  // (`sgd;`x..) arrives as a symbol list
      for (long long i = 1; i < x->n; ++i)
        positional.emplace_back(std::string(kabi::Symbols(x)[i]));
      return Pointer(opt(kabi::Symbols(x)[0], positional, named));
    }
    const std::string kind = a.SymbolAt(0);
    std::int64_t group = 0;
    const std::size_t at = ParmsAt(a, 1, &group);
    Options(kind, x, at == 0 ? 1 : at + 1, &positional, &named);
    if (at == 0) return Pointer(opt(kind, positional, named));
    return Pointer(opt_group(kind, group, SourceFromK(a[at]), positional, named));
  });
}

K Step(K x) {
  return Guard([&] {
    const Handle h = Args("step", x).PointerAt(0);
    if (class_(h) == ObjectClass::kModel) {
      model_step(h);
    } else {
      step(h);
    }
    return K{nullptr};
  });
}

double Rate(const nn::OptionValue& rate, K given) {
  if (const double* d = std::get_if<double>(&rate)) return *d;
  if (const std::int64_t* j = std::get_if<std::int64_t>(&rate)) return static_cast<double>(*j);
  Fail("lr: expecting a number, given %s", KName(given));
}

// lr o -> one rate per group | lr(o;rate) every group | lr(o;rates) one per group
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
    const nn::OptionValue given = OptionFromK("lr", a[1]);
    if (const auto* rates = std::get_if<std::vector<double>>(&given)) {
      lr(a.PointerAt(0), *rates);
    } else if (const auto* longs = std::get_if<std::vector<std::int64_t>>(&given)) {
      lr(a.PointerAt(0), std::vector<double>(longs->begin(), longs->end()));
    } else {
      lr(a.PointerAt(0), Rate(given, a[1]));
    }
    return K{nullptr};
  });
}

}  // namespace

std::vector<Export> OptimizerExports() {
  return {Unary("opt", Opt), Unary("step", Step), Unary("lr", Lr)};
}

}  // namespace kscope::q
