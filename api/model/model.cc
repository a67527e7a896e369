#include "api/model/model.h"

#include <memory>
#include <utility>

#include "api/core/pointer.h"
#include "api/model/graphed_steps.h"
#include "api/model/model_object.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "scope/scope.h"
#include "scope/scope_stack.h"

namespace kscope {
namespace {

using nn::Model;
using nn::ModelObject;

// The module, loss and optimizer among `handles` (arguments `first`, `first`+1, .. of the
// call): each a live handle of one of those classes, at most one of each.
struct Parts {
  std::shared_ptr<nn::ModuleObject> module;
  std::shared_ptr<nn::ModuleObject> loss;
  std::shared_ptr<nn::OptimizerObject> optimizer;
};

template <typename T>
void Put(std::shared_ptr<T>* slot, std::shared_ptr<T> part, std::size_t arg, const char* what) {
  if (*slot) Fail("model: arg[%d] is a second %s", arg, what);
  *slot = std::move(part);
}

Parts PartsOf(absl::Span<const Handle> handles, std::size_t first) {
  Parts parts;
  for (std::size_t i = 0; i < handles.size(); ++i) {
    const Handle h = handles[i];
    const std::size_t arg = first + i;
    switch (const ObjectClass c = class_(h)) {
      case ObjectClass::kModule:
        Put(&parts.module, nn::ModuleOf("model", h, c), arg, "module");
        break;
      case ObjectClass::kLoss: Put(&parts.loss, nn::ModuleOf("model", h, c), arg, "loss"); break;
      case ObjectClass::kOptimizer:
        Put(&parts.optimizer, nn::OptimizerOf("model", h), arg, "optimizer");
        break;
      default: Fail("model: arg[%d] unrecognized: %s", arg, ClassName(c));
    }
  }
  return parts;
}

Model& ModelAt(const char* fn, Handle m) { return nn::ModelOf(fn, m)->model(); }

// The training or testing options of model m, for `train` or `test`.
nn::ModelOptions& OptionsAt(Handle m, nn::DataMode mode) {
  const bool train = mode == nn::DataMode::kTrain;
  Model& model = ModelAt(train ? "train" : "test", m);
  return train ? model.train : model.test;
}

Handle Part(const char* fn, std::shared_ptr<CompositeObject> part) {
  return Own(Object(std::move(part)), fn);
}

}  // namespace

Handle model(absl::Span<const Handle> parts) {
  Parts p = PartsOf(parts, 0);
  if (!p.module) Fail("model: module not specified");
  if (!p.loss) Fail("model: loss not specified");
  if (!p.optimizer) Fail("model: optimizer not specified");
  auto m = std::make_shared<Model>();
  m->module = std::move(p.module);
  m->loss = std::move(p.loss);
  m->optimizer = std::move(p.optimizer);
  return OwnConsuming(
      parts, Object(std::shared_ptr<CompositeObject>(std::make_shared<ModelObject>(std::move(m)))),
      "model");
}

void model(Handle m, absl::Span<const Handle> parts) {
  Model& target = ModelAt("model", m);
  Parts p = PartsOf(parts, 1);
  // Checked: consume the handles, then swap the parts in (neither fails on checked input).
  std::vector<Object> released =
      HandleTable::Global().ReleaseAll(parts, [](std::size_t) { Fail(kStalePointer); });
  if (p.module) target.module = std::move(p.module);
  if (p.loss) target.loss = std::move(p.loss);
  if (p.optimizer) target.optimizer = std::move(p.optimizer);
}

Handle model_module(Handle m) { return Part("module", ModelAt("module", m).module->share()); }
Handle model_loss(Handle m) { return Part("loss", ModelAt("loss", m).loss->share()); }
Handle model_opt(Handle m) { return Part("opt", ModelAt("opt", m).optimizer->share()); }

ModelDescription describe_model(Handle m, bool all_options) {
  Model& model = ModelAt("model", m);
  auto scope = Scope::Open();  // the part handles below live only as long as this call
  return ModelDescription{describe(model_module(m), all_options),
                          describe_loss(model_loss(m), all_options),
                          describe_opt(model_opt(m), all_options), model.train.Values(all_options),
                          model.test.Values(all_options)};
}

ModelState model_state(Handle m, bool all_options) {
  Model& model = ModelAt("state", m);
  auto scope = Scope::Open();
  std::optional<nn::LossScale> loss_scale;
  if (model.train.get().amp == at::kHalf) loss_scale = model.loss_scale;
  return ModelState{state(model_module(m), all_options),  describe_loss(model_loss(m), all_options),
                    opt_state(model_opt(m), all_options), model.train.Values(all_options),
                    model.test.Values(all_options),       loss_scale};
}

Handle model(Handle module, const LossDescription& loss_description,
             const OptimizerState& optimizer, const nn::NamedValues& train,
             const nn::NamedValues& test, const std::optional<nn::LossScale>& loss_scale) {
  return with_scope([&] {
    nn::ModelOptions train_options(nn::DataMode::kTrain), test_options(nn::DataMode::kTest);
    train_options.Set(train);
    test_options.Set(test);
    const Handle l = loss(loss_description);
    const Handle o = opt(optimizer, module);
    const Handle m = model({module, l, o});
    Model& made = ModelAt("model", m);
    made.train = std::move(train_options);
    made.test = std::move(test_options);
    if (loss_scale) made.loss_scale = *loss_scale;
    return m;
  });
}

Handle model(const ModelDescription& d) {
  return with_scope([&] {
    return model(module(definition(d.module)), d.loss, OptimizerState{d.optimizer, {}}, d.train,
                 d.test);
  });
}

Handle model(const ModelState& s) {
  return with_scope(
      [&] { return model(module(s.module), s.loss, s.optimizer, s.train, s.test, s.loss_scale); });
}

nn::NamedValues model_options(Handle m, nn::DataMode mode, bool all_options) {
  return OptionsAt(m, mode).Values(all_options);
}

nn::OptionValue model_option(Handle m, nn::DataMode mode, const std::string& name) {
  return OptionsAt(m, mode).Value(name);
}

nn::NamedValues model_options(Handle m, nn::DataMode mode, const std::vector<std::string>& names) {
  const nn::ModelOptions& options = OptionsAt(m, mode);
  nn::NamedValues values;
  for (const std::string& name : names) values.emplace_back(name, options.Value(name));
  return values;
}

void set_model_options(Handle m, nn::DataMode mode, const nn::NamedValues& values) {
  nn::ModelOptions& options = OptionsAt(m, mode);
  nn::ModelOptions next = options;
  next.Set(values);
  if (next.get().graph) CheckGraphable("train", ModelAt("train", m), next.get());
  options = std::move(next);
}

nn::RunOptions run_options(Handle m, nn::DataMode mode) { return OptionsAt(m, mode).get(); }

}  // namespace kscope
