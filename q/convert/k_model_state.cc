#include "q/convert/k_model_state.h"

#include <string>

#include "q/convert/convert.h"
#include "q/convert/k_definition.h"
#include "q/convert/k_module_state.h"
#include "q/convert/k_optimizer_state.h"
#include "runtime/errors.h"
#include "scope/scope.h"

namespace kscope::q {
namespace {

using kabi::K;

K Dictionary(K module, K loss, K optimizer, const nn::NamedValues& train,
             const nn::NamedValues& test) {
  return kabi::xD(Symbols({"module", "loss", "optimizer", "train", "test"}),
                  kabi::knk(5, module, loss, optimizer, KFromOptions(train), KFromOptions(test)));
}

}  // namespace

K KFromModelDescription(const ModelDescription& d) {
  return Dictionary(KFromModuleRows(d.module), KFromLossDescription(d.loss),
                    KFromOptimizerDescription(d.optimizer, nullptr), d.train, d.test);
}

K KFromModelState(const ModelState& s) {
  return Dictionary(KFromModuleState(s.module), KFromLossDescription(s.loss),
                    KFromOptimizerDescription(s.optimizer.description, &s.optimizer.buffers),
                    s.train, s.test);
}

Handle ModelFromK(K d) {
  K keys = kabi::DictKeys(d), values = kabi::DictValues(d);
  if (keys->t != kabi::kSymbol || values->t != kabi::kMixed) {
    Fail("model: expecting a dictionary `module`loss`optimizer`train`test, given %s", KName(d));
  }
  K module = nullptr;
  LossDescription loss;
  OptimizerState optimizer;
  nn::NamedValues train, test;
  bool has_loss = false, has_optimizer = false;
  for (long long i = 0; i < keys->n; ++i) {
    const std::string key = kabi::Symbols(keys)[i];
    K value = kabi::Items(values)[i];
    if (key == "module") {
      module = value;
    } else if (key == "loss") {
      loss = LossDescriptionFromK(value);
      has_loss = true;
    } else if (key == "optimizer") {
      optimizer = OptimizerStateFromK(value);
      has_optimizer = true;
    } else if (key == "train") {
      train = OptionsFromDictionary("train", value);
    } else if (key == "test") {
      test = OptionsFromDictionary("test", value);
    } else {
      Fail(
          "model: unexpected key `%s in a model dictionary, expecting "
          "`module`loss`optimizer`train`test",
          key);
    }
  }
  if (module == nullptr) Fail("model: module not specified");
  if (!has_loss) Fail("model: loss not specified");
  if (!has_optimizer) Fail("model: optimizer not specified");
  // The module is made last, in a scope of its own: released if the model cannot be made.
  return with_scope([&] { return model(ModuleFromK(module), loss, optimizer, train, test); });
}

}  // namespace kscope::q
