// Adapters for models: model; the option and data forms of train and test; data, input, target
// and their test forms; datasize testsize testbatch batchinit testinit testrestore unshuffle;
// backstep run testrun; and kscope's checkpoints (api/model/checkpoint.h):
//   checkpoint(m;file;epoch)   saves model m's training between epochs; returns ::
//   resume(m;file)             m continues from the checkpoint (its data given first); returns
//                              the epoch saved with it
//   file: a symbol, `:/path/m.ckpt (q's leading colon optional).
#include <string>
#include <vector>

#include "api/core/pointer.h"
#include "api/model/checkpoint.h"
#include "api/model/model.h"
#include "api/model/model_data.h"
#include "api/model/model_run.h"
#include "api/tensor/container.h"
#include "api/tensor/tensor.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/convert/k_definition.h"
#include "q/convert/k_model_data.h"
#include "q/convert/k_model_state.h"
#include "q/env/settings.h"
#include "q/exports.h"
#include "q/guard.h"
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
      if (!a.IsPointerAt(i)) Fail("model not implemented for %s", KName(x));  // ktorch's text
      handles.push_back(a.PointerAt(i));
    }
    if (handles.empty()) Fail("model not implemented for %s", KName(x));
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
  return values->t == kabi::kMixed ? SettingFromK(fn, kabi::Items(values)[j])
                                   : OptionFromListAt(fn, values, j);
}

// `names` (a symbol list) paired with `values`: a list of as many values, or one value for one
// name.
nn::NamedValues SettingsFromK(const char* fn, K names, K values) {
  if (names->t != kabi::kSymbol) Fail("%s: expecting setting names, given %s", fn, KName(names));
  nn::NamedValues settings;
  const bool one =
      !(values->t >= kabi::kMixed && values->t <= kabi::kTime) || values->n != names->n;
  if (one && names->n != 1) Fail("%s: %d setting names given with %s", fn, names->n, KName(values));
  for (long long i = 0; i < names->n; ++i) {
    settings.emplace_back(kabi::Symbols(names)[i],
                          one ? SettingFromK(fn, values) : SettingAt(fn, values, i));
  }
  return settings;
}

// The option forms of train and test: (m), (m;flag), (m;`name), (m;names), (m;dict),
// (m;`name;value), (m;names;values).
bool IsOptionForm(const Args& a) {
  if (a.size() == 1) return true;
  const int t = a.size() > 1 ? a[1]->t : 0;
  if (a.size() == 2)
    return t == -kabi::kBoolean || t == -kabi::kSymbol || t == kabi::kSymbol ||
           t == kabi::kDictionary;
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
      default:
        set_model_options(m, mode,
                          SettingsFromK(a.fn(), kabi::DictKeys(second), kabi::DictValues(second)));
    }
    return K{nullptr};
  }
  const nn::NamedValues values = second->t == kabi::kSymbol
                                     ? SettingsFromK(a.fn(), second, a[2])
                                     : nn::NamedValues{{a.SymbolAt(1), SettingFromK(a.fn(), a[2])}};
  set_model_options(m, mode, values);
  return K{nullptr};
}

// The data forms (m;x) | (m;x;y) -> the number of batches.
K DataForm(nn::DataMode mode, const Args& a) {
  if (a.size() != 2 && a.size() != 3) a.Unrecognized();
  const Handle m = a.PointerAt(0);
  const DataParts x = DataPartsFromK(a.fn(), a[1]);
  if (a.size() == 2) return kabi::kj(model_data(m, mode, x));
  return kabi::kj(model_data(m, mode, x, DataPartsFromK(a.fn(), a[2])));
}

// train(m;option forms..) | test(m;option forms..) | train(m;x[;y]) | test(m;x[;y])
K Options(const char* fn, nn::DataMode mode, K x) {
  return Guard([&] {
    const Args a(fn, x);
    if (a.empty() || !a.IsPointerAt(0)) a.Unrecognized();
    return IsOptionForm(a) ? OptionForm(mode, a) : DataForm(mode, a);
  });
}

// data m -> (input;target) as k arrays | data(m;x[;y]) -> number of batches (testdata likewise)
K Data(const char* fn, nn::DataMode mode, K x) {
  return Guard([&] {
    if (IsModel(x)) {
      const Handle m = HandleOf(x);
      return kabi::knk(2, KFromDataTensors(model_input(m, mode)),
                       KFromDataTensors(model_target(m, mode)));
    }
    return DataForm(mode, Args(fn, x));
  });
}

// A new pointer sharing a model's input or target (null if none), as ktorch gives them.
K SharedData(Handle data) { return data.is_null() ? Null() : Pointer(data); }

// input m -> a tensor, vector or dictionary pointer sharing the model's input (null if none) |
// input(m;x) | input(m;x1;x2..) -> number of batches
K Input(const char* fn, nn::DataMode mode, K x) {
  return Guard([&] {
    if (IsModel(x)) return SharedData(model_input_handle(HandleOf(x), mode));
    const Args a(fn, x);
    if (a.size() < 2 || !a.IsPointerAt(0)) a.Unrecognized();
    std::vector<DataPart> parts;
    for (std::size_t i = 1; i < a.size(); ++i) {
      const DataParts given = DataPartsFromK(fn, a[i]);
      parts.insert(parts.end(), given.parts().begin(), given.parts().end());
    }
    return kabi::kj(model_input(a.PointerAt(0), mode, DataParts(std::move(parts))));
  });
}

// target m -> a pointer sharing the model's target (null if none) | target(m;y) -> number of
// batches
K Target(const char* fn, nn::DataMode mode, K x) {
  return Guard([&] {
    if (IsModel(x)) return SharedData(model_target_handle(HandleOf(x), mode));
    const Args a(fn, x);
    if (a.size() != 2) a.Unrecognized();
    return kabi::kj(model_target(a.PointerAt(0), mode, DataPartsFromK(fn, a[1])));
  });
}

// The model of a one-model call f m; error otherwise.
Handle ModelArg(const char* fn, K x) {
  const Args a(fn, x);
  if (a.size() != 1 || !a.IsPointerAt(0)) a.Unrecognized();
  return a.PointerAt(0);
}

K DataSize(const char* fn, nn::DataMode mode, K x) {
  return Guard([&] { return kabi::kj(model_datasize(ModelArg(fn, x), mode)); });
}
K TestBatch(K x) {
  return Guard(
      [&] { return kabi::kb(model_batch(ModelArg("testbatch", x), nn::DataMode::kTest)); });
}
K BatchInit(const char* fn, nn::DataMode mode, K x) {
  return Guard([&] { return kabi::kj(model_batchinit(ModelArg(fn, x), mode)); });
}
K TestRestore(K x) {
  return Guard(
      [&] { return kabi::kj(model_restore(ModelArg("testrestore", x), nn::DataMode::kTest)); });
}
K Unshuffle(K x) {
  return Guard([&] {
    model_unshuffle(ModelArg("unshuffle", x));
    return K{nullptr};
  });
}

K Train(K x) { return Options("train", nn::DataMode::kTrain, x); }
K Test(K x) { return Options("test", nn::DataMode::kTest, x); }

// backstep m | backstep(m;x;y) -> the loss
K Backstep(K x) {
  return Guard([&] {
    const Args a("backstep", x);
    if (a.size() == 1) return KFromTensor(model_backstep(ModelArg("backstep", x)));
    if (a.size() != 3) a.Unrecognized();
    return KFromTensor(model_backstep(a.PointerAt(0), DataPartsFromK("backstep", a[1]),
                                      DataPartsFromK("backstep", a[2])));
  });
}

// Metrics as the options say: one metric alone, several in a list (a vector when all are atoms of
// one type: ktorch 2.3's losses and accuracy, all reals), or keyed by name with
// `dictionary; k values, or with `tensor a tensor, vector or dictionary pointer (as ktorch).
K KFromMetrics(const RunMetrics& r) {
  if (r.tensor) return Pointer(metrics_handle(r));
  K values = kabi::knk(0);
  for (const auto& value : r.values) kabi::jk(&values, KFromTensor(value.second));
  if (r.dictionary) {
    std::vector<std::string> names;
    for (const auto& value : r.values) names.push_back(value.first);
    return kabi::xD(Symbols(names), values);
  }
  if (r.values.size() != 1) return CollapseAtoms(values);  // atoms of one type: a vector
  K one = kabi::r1(kabi::Items(values)[0]);
  kabi::r0(values);
  return one;
}

// run m | run(m;x;y) (likewise testrun): the metrics of one pass over the data.
K Run(const char* fn, nn::DataMode mode, K x) {
  return Guard([&] {
    const Args a(fn, x);
    if (a.size() != 1 && a.size() != 3) a.Unrecognized();
    const Handle m = a.PointerAt(0);
    if (a.size() == 3) model_data(m, mode, DataPartsFromK(fn, a[1]), DataPartsFromK(fn, a[2]));
    return KFromMetrics(mode == nn::DataMode::kTrain ? run(m) : testrun(m));
  });
}

K Checkpoint(K x) {
  return Guard([&] {
    const Args a("checkpoint", x);
    if (a.size() != 3) a.Unrecognized();
    checkpoint(a.PointerAt(0), a.FileAt(1), a.LongAt(2));
    return Null();
  });
}

K Resume(K x) {
  return Guard([&] {
    const Args a("resume", x);
    if (a.size() != 2) a.Unrecognized();
    return kabi::kj(resume(a.PointerAt(0), a.FileAt(1)));
  });
}

constexpr nn::DataMode kTrain = nn::DataMode::kTrain, kTest = nn::DataMode::kTest;

}  // namespace

std::vector<Export> ModelExports() {
  return {Unary("model", Model),
          Unary("train", Train),
          Unary("test", Test),
          Unary("data", [](K x) { return Data("data", kTrain, x); }),
          Unary("testdata", [](K x) { return Data("testdata", kTest, x); }),
          Unary("input", [](K x) { return Input("input", kTrain, x); }),
          Unary("testinput", [](K x) { return Input("testinput", kTest, x); }),
          Unary("target", [](K x) { return Target("target", kTrain, x); }),
          Unary("testtarget", [](K x) { return Target("testtarget", kTest, x); }),
          Unary("datasize", [](K x) { return DataSize("datasize", kTrain, x); }),
          Unary("testsize", [](K x) { return DataSize("testsize", kTest, x); }),
          Unary("testbatch", TestBatch),
          Unary("batchinit", [](K x) { return BatchInit("batchinit", kTrain, x); }),
          Unary("testinit", [](K x) { return BatchInit("testinit", kTest, x); }),
          Unary("testrestore", TestRestore),
          Unary("unshuffle", Unshuffle),
          Unary("backstep", Backstep),
          Unary("run", [](K x) { return Run("run", kTrain, x); }),
          Unary("testrun", [](K x) { return Run("testrun", kTest, x); }),
          Unary("checkpoint", Checkpoint),
          Unary("resume", Resume)};
}

}  // namespace kscope::q
