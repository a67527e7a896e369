// Adapters for models: model, and the option forms of train and test.
#include <string>
#include <vector>

#include "api/model.h"
#include "api/pointer.h"
#include "q/args.h"
#include "q/convert.h"
#include "q/definition.h"
#include "q/exports.h"
#include "q/guard.h"
#include "q/model_state.h"
#include "q/settings.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

bool IsModel(K x) { return IsPointer(x) && class_(HandleOf(x)) == ObjectClass::kModel; }

// model(q;l;o) | model m | model(m;flag) | model(m;obj..) | model d (a description or state)
K Model(K x) {
  return Guard([&] {
    if (IsModel(x)) return KFromModelDescription(describe_model(HandleOf(x), AllOptions()));
    if (x->t == kabi::kDictionary) return Pointer(ModelFromK(x));
    const Args a("model", x);
    if (a.size() == 2 && IsModel(a[0]) && a[1]->t == -kabi::kBoolean) {
      return KFromModelDescription(describe_model(a.PointerAt(0), a.BoolAt(1)));
    }
    std::vector<Handle> handles;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!a.IsPointerAt(i)) a.Unrecognized();
      handles.push_back(a.PointerAt(i));
    }
    if (handles.empty()) a.Unrecognized();
    if (IsModel(a[0])) {
      model(handles.front(), absl::MakeConstSpan(handles).subspan(1));
      return K{nullptr};
    }
    return Pointer(model(handles));
  });
}

// An option value: `()` is null (ktorch's train(m;`clipnorm;())), anything else as for modules.
nn::OptionValue SettingFromK(const char* fn, K x) {
  return x->t == kabi::kMixed && x->n == 0 ? nn::OptionValue() : OptionFromK(fn, x);
}

// Item j of a list of setting values (a general list or a simple one).
nn::OptionValue SettingAt(const char* fn, K values, long long j) {
  return values->t == kabi::kMixed ? SettingFromK(fn, kabi::Items(values)[j]) : OptionFromListAt(fn, values, j);
}

// `names` (a symbol list) paired with `values`: a list of as many values, or one value for one name.
nn::NamedValues SettingsFromK(const char* fn, K names, K values) {
  if (names->t != kabi::kSymbol) Fail("%s: expecting setting names, given %s", fn, KName(names));
  nn::NamedValues settings;
  const bool one = !(values->t >= kabi::kMixed && values->t <= kabi::kTime) || values->n != names->n;
  if (one && names->n != 1) Fail("%s: %d setting names given with %s", fn, names->n, KName(values));
  for (long long i = 0; i < names->n; ++i) {
    settings.emplace_back(kabi::Symbols(names)[i], one ? SettingFromK(fn, values) : SettingAt(fn, values, i));
  }
  return settings;
}

// The option forms of train and test: (m), (m;flag), (m;`name), (m;names), (m;dict),
// (m;`name;value), (m;names;values).
bool IsOptionForm(const Args& a) {
  if (a.size() == 1) return true;
  const int t = a.size() > 1 ? a[1]->t : 0;
  if (a.size() == 2) return t == -kabi::kBoolean || t == -kabi::kSymbol || t == kabi::kSymbol || t == kabi::kDictionary;
  return a.size() == 3 && (t == -kabi::kSymbol || t == kabi::kSymbol);
}

K OptionForm(nn::DataMode mode, const Args& a) {
  const Handle m = a.PointerAt(0);
  if (a.size() == 1) return KFromOptions(model_options(m, mode, AllOptions()));
  K second = a[1];
  if (a.size() == 2) {
    switch (second->t) {
      case -kabi::kBoolean: return KFromOptions(model_options(m, mode, a.BoolAt(1)));
      case -kabi::kSymbol: return KFromOption(model_option(m, mode, a.SymbolAt(1)));
      case kabi::kSymbol: return KFromOptions(model_options(m, mode, a.SymbolsAt(1)));
      default: set_model_options(m, mode, SettingsFromK(a.fn(), kabi::DictKeys(second), kabi::DictValues(second)));
    }
    return K{nullptr};
  }
  const nn::NamedValues values = second->t == kabi::kSymbol
                                     ? SettingsFromK(a.fn(), second, a[2])
                                     : nn::NamedValues{{a.SymbolAt(1), SettingFromK(a.fn(), a[2])}};
  set_model_options(m, mode, values);
  return K{nullptr};
}

// train(m;option forms..) | test(m;option forms..)
K Options(const char* fn, nn::DataMode mode, K x) {
  return Guard([&] {
    const Args a(fn, x);
    if (a.empty() || !a.IsPointerAt(0) || !IsOptionForm(a)) a.Unrecognized();
    return OptionForm(mode, a);
  });
}

K Train(K x) { return Options("train", nn::DataMode::kTrain, x); }
K Test(K x) { return Options("test", nn::DataMode::kTest, x); }

}  // namespace

std::vector<Export> ModelExports() { return {Unary("model", Model), Unary("train", Train), Unary("test", Test)}; }

}  // namespace kscope::q
