// Models: a module, a loss and an optimizer trained together (ktorch's `model`), their parts,
// descriptions and state, and their training and testing options (ktorch's `train`/`test`
// option forms; the options themselves are listed in api/model/model_options.h).
//
// Ownership: model(parts) and model(m, parts) consume the part handles they are given (stale
// afterwards; addref first to keep one), validating every argument before any is consumed, so
// on error every handle is as it was. The model shares its parts' libtorch objects;
// model_module/model_loss/model_opt register new handles sharing them. Every creating call
// registers one new handle (origin "model", or the part's function) in the calling thread's
// innermost scope; intermediate handles made while recreating a model live in a scope of
// their own and never leak.
//
// Errors: kscope::Error naming the function: "model: module not specified" (likewise loss,
// optimizer), "model: arg[1] unrecognized: tensor", "model: arg[2] is a second loss",
// "module: expected model, given tensor", "stale pointer", the option errors of
// api/model/model_options.h ("unrecognized test setting: shuffle"), and those of module,
// loss and opt when recreating. Thread-safety: any thread; a model must not be used from two
// threads at once.
#ifndef KSCOPE_API_MODEL_MODEL_H_
#define KSCOPE_API_MODEL_MODEL_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "api/model/loss_scale.h"
#include "api/model/model_options.h"
#include "api/nn/loss.h"
#include "api/nn/module.h"
#include "api/nn/module_state.h"
#include "api/nn/optimizer.h"
#include "api/nn/optimizer_state.h"
#include "api/nn/options.h"
#include "runtime/handle.h"

namespace kscope {

// model(q;l;o): a new model of one module, one loss and one optimizer, given in any order.
Handle model(absl::Span<const Handle> parts);
// model(m;obj..): replaces the model's module, loss and/or optimizer (one of each at most).
void model(Handle m, absl::Span<const Handle> parts);

// `module m`, `loss m`, `opt m`: new handles to the model's parts.
Handle model_module(Handle m);
Handle model_loss(Handle m);
Handle model_opt(Handle m);

// ktorch's `model m`: the definitions of the parts and the options (all of them, or only those
// that differ from the defaults).
struct ModelDescription {
  std::vector<ModuleRow> module;
  LossDescription loss;
  OptimizerDescription optimizer;
  nn::NamedValues train;
  nn::NamedValues test;
};
ModelDescription describe_model(Handle m, bool all_options = true);

// ktorch's `state m`: the description with the module's parameters and buffers and the
// optimizer's buffers, enough to recreate the model exactly; for a model trained in fp16 (train
// option amp `fp16), kscope's loss scale too.
struct ModelState {
  ModuleState module;
  LossDescription loss;
  OptimizerState optimizer;
  nn::NamedValues train;
  nn::NamedValues test;
  std::optional<nn::LossScale> loss_scale;  // given when the train option amp is fp16
};
ModelState model_state(Handle m, bool all_options = true);

// A new model from a description (new parameter values) or a state (the same values and
// optimizer buffers).
Handle model(const ModelDescription& description);
Handle model(const ModelState& state);
// A new model of `module` (consumed), a loss, an optimizer over the module's parameters, options
// and (fp16 training) a loss scale: what the two above build once they have the module.
Handle model(Handle module, const LossDescription& loss, const OptimizerState& optimizer,
             const nn::NamedValues& train, const nn::NamedValues& test,
             const std::optional<nn::LossScale>& loss_scale = std::nullopt);

// The training or testing options: all (or the non-default ones), one by name, some by name;
// setting some (validated together, nothing changed on error).
nn::NamedValues model_options(Handle m, nn::DataMode mode, bool all_options = true);
nn::OptionValue model_option(Handle m, nn::DataMode mode, const std::string& name);
nn::NamedValues model_options(Handle m, nn::DataMode mode, const std::vector<std::string>& names);
void set_model_options(Handle m, nn::DataMode mode, const nn::NamedValues& values);
// The options in typed form, for batching and running.
nn::RunOptions run_options(Handle m, nn::DataMode mode);

// train(m;..) and test(m;..) spelled as in ktorch for the option forms.
inline nn::NamedValues train_options(Handle m, bool all_options = true) {
  return model_options(m, nn::DataMode::kTrain, all_options);
}
inline nn::OptionValue train_option(Handle m, const std::string& name) {
  return model_option(m, nn::DataMode::kTrain, name);
}
inline void train(Handle m, const nn::NamedValues& values) {
  set_model_options(m, nn::DataMode::kTrain, values);
}
inline nn::NamedValues test_options(Handle m, bool all_options = true) {
  return model_options(m, nn::DataMode::kTest, all_options);
}
inline nn::OptionValue test_option(Handle m, const std::string& name) {
  return model_option(m, nn::DataMode::kTest, name);
}
inline void test(Handle m, const nn::NamedValues& values) {
  set_model_options(m, nn::DataMode::kTest, values);
}

}  // namespace kscope

#endif  // KSCOPE_API_MODEL_MODEL_H_
