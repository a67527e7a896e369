#include "q/convert/k_model_state.h"

#include <optional>
#include <string>
#include <vector>

#include "q/convert/convert.h"
#include "q/convert/k_definition.h"
#include "q/convert/k_module_state.h"
#include "q/convert/k_optimizer_state.h"
#include "runtime/errors.h"
#include "scope/scope.h"

namespace kscope::q {
namespace {

using kabi::K;

// ktorch's keys, then kscope's `lossscale when given: `scale`goodsteps!(65536f;0).
K Dictionary(K module, K loss, K optimizer, const nn::NamedValues& train,
             const nn::NamedValues& test, const std::optional<nn::LossScale>& scale = {}) {
  std::vector<std::string> keys{"module", "loss", "optimizer", "train", "test"};
  K values = kabi::knk(5, module, loss, optimizer, KFromOptions(train), KFromOptions(test));
  if (scale) {
    keys.push_back("lossscale");
    kabi::jk(&values, kabi::xD(Symbols({"scale", "goodsteps"}),
                               kabi::knk(2, kabi::kf(scale->scale), kabi::kj(scale->good_steps))));
  }
  return kabi::xD(Symbols(keys), values);
}

nn::LossScale LossScaleFromK(K d) {
  auto refuse = [&] {
    Fail("model: lossscale expects `scale`goodsteps!(float;long), given %s", KName(d));
  };
  if (d->t != kabi::kDictionary) refuse();
  K keys = kabi::DictKeys(d), values = kabi::DictValues(d);
  if (keys->t != kabi::kSymbol || keys->n != 2 || values->t != kabi::kMixed ||
      std::string(kabi::Symbols(keys)[0]) != "scale" ||
      std::string(kabi::Symbols(keys)[1]) != "goodsteps")
    refuse();
  K scale = kabi::Items(values)[0], steps = kabi::Items(values)[1];
  if (scale->t != -kabi::kFloat || steps->t != -kabi::kLong || !(scale->f > 0) || steps->j < 0)
    refuse();
  nn::LossScale s;
  s.scale = scale->f;
  s.good_steps = steps->j;
  return s;
}

}  // namespace

K KFromModelDescription(const ModelDescription& d) {
  return Dictionary(KFromModuleRows(d.module), KFromLossDescription(d.loss),
                    KFromOptimizerDescription(d.optimizer, nullptr), d.train, d.test);
}

K KFromModelState(const ModelState& s) {
  return Dictionary(KFromModuleState(s.module), KFromLossDescription(s.loss),
                    KFromOptimizerDescription(s.optimizer.description, &s.optimizer.buffers),
                    s.train, s.test, s.loss_scale);
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
  std::optional<nn::LossScale> scale;
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
    } else if (key == "lossscale") {
      scale = LossScaleFromK(value);
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
  return with_scope(
      [&] { return model(ModuleFromK(module), loss, optimizer, train, test, scale); });
}

}  // namespace kscope::q
