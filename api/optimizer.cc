#include "api/optimizer.h"

#include "api/nn/module_object.h"
#include "api/nn/optimizer_kind.h"
#include "api/nn/optimizer_object.h"
#include "runtime/errors.h"
#include "scope/scope_stack.h"

namespace kscope {
namespace {

using nn::ModuleObject;
using nn::OptimizerObject;
using nn::OptimizerSpec;

// Builds the optimizer `kind` over the parameters of `modules` and registers its handle.
Handle MakeOptimizer(const std::string& kind, std::vector<std::shared_ptr<ModuleObject>> modules,
                     const std::vector<nn::OptionValue>& positional, const nn::NamedValues& named) {
  const nn::OptimizerKind* k = nn::FindOptimizerKind(kind);
  if (k == nullptr) Fail("opt: unrecognized optimizer `%s", kind);
  auto spec = std::make_shared<OptimizerSpec>(
      OptimizerSpec{k, nn::OptionSet::Parse(kind, k->options, positional, named), std::move(modules)});
  std::vector<at::Tensor> parameters;
  for (const auto& m : spec->modules) {
    for (const at::Tensor& p : m->module().parameters()) parameters.push_back(p);
  }
  auto optimizer = k->make(std::move(parameters), spec->options);
  return Own(Object(std::make_shared<OptimizerObject>(std::move(spec), std::move(optimizer))), "opt");
}

}  // namespace

Handle opt(const std::string& kind, const std::vector<nn::OptionValue>& positional, const nn::NamedValues& named) {
  return MakeOptimizer(kind, {}, positional, named);
}

Handle opt_module(const std::string& kind, Handle module, const std::vector<nn::OptionValue>& positional,
                  const nn::NamedValues& named) {
  // A wrapper of the optimizer's own: it holds one more reference to the libtorch module.
  auto held = std::static_pointer_cast<ModuleObject>(nn::ModuleOf("opt", module, ObjectClass::kModule)->share());
  return MakeOptimizer(kind, {std::move(held)}, positional, named);
}

std::vector<std::string> opt_options(const std::string& kind) {
  const nn::OptimizerKind* k = nn::FindOptimizerKind(kind);
  return k ? nn::OptionNames(k->options) : std::vector<std::string>{};
}

OptimizerDescription describe_opt(Handle o, bool all_options) {
  auto opt = nn::OptimizerOf("opt", o);
  return OptimizerDescription{opt->spec().kind->name, opt->spec().options.Values(all_options), opt->parameter_count()};
}

void step(Handle o) {
  auto opt = nn::OptimizerOf("step", o);
  if (const char* refusal = opt->spec().kind->step_refusal) Fail("%s", refusal);
  opt->optimizer().step();
}

std::vector<double> lr(Handle o) {
  std::vector<double> rates;
  for (const auto& group : nn::OptimizerOf("lr", o)->optimizer().param_groups()) rates.push_back(group.options().get_lr());
  return rates;
}

void lr(Handle o, double rate) {
  auto opt = nn::OptimizerOf("lr", o);
  if (!(rate >= 0)) Fail("lr: invalid learning rate %g", rate);
  opt->set_lr(rate);
}

}  // namespace kscope
