#include "api/env/help.h"

#include "api/core/pointer.h"
#include "api/env/environment.h"
#include "api/nn/kind_names.h"
#include "api/nn/module_kind.h"
#include "api/nn/optimizer_kind.h"
#include "api/tensor/info.h"
#include "api/tensor/tensor.h"
#include "runtime/errors.h"
#include "runtime/names.h"

namespace kscope {
namespace {

// Each option with its default; required options and those without one read as null.
nn::NamedValues Defaults(const std::vector<nn::OptionSpec>& specs) {
  nn::NamedValues defaults;
  for (const nn::OptionSpec& spec : specs) {
    defaults.emplace_back(spec.name, spec.required ? nn::OptionValue() : spec.fallback);
  }
  return defaults;
}

KindHelp Of(const nn::ModuleKind& k) {
  return KindHelp{k.name, k.inputs, k.max_inputs, Defaults(k.options)};
}
KindHelp Of(const nn::OptimizerKind& k) { return KindHelp{k.name, 0, 0, Defaults(k.options)}; }

template <typename Find>
std::vector<KindHelp> KindHelpTable(const std::vector<std::string>& names, Find find) {
  std::vector<KindHelp> rows;
  for (const std::string& name : names) rows.push_back(Of(*find(name)));
  return rows;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> help_topics() {
  return {{"backward", "backward calculation modes"},
          {"dtype", "PyTorch tensor types mapped to k types"},
          {"ktype", "k types mapped to PyTorch tensor types"},
          {"loss", "loss types, module options & forward args"},
          {"module", "module types, options & forward args"},
          {"optimizer", "optimizer types & options"},
          {"tensor", "tensor creation options"}};
}

std::vector<KindHelp> module_help() {
  return KindHelpTable(nn::ModuleKindNames(), nn::FindModuleKind);
}
std::vector<KindHelp> loss_help() { return KindHelpTable(nn::LossKindNames(), nn::FindLossKind); }
std::vector<KindHelp> optimizer_help() {
  return KindHelpTable(nn::OptimizerKindNames(), nn::FindOptimizerKind);
}

KindHelp kind_help(const std::string& name) {
  if (const nn::ModuleKind* k = nn::FindModuleKind(name)) return Of(*k);
  if (const nn::ModuleKind* k = nn::FindLossKind(name)) return Of(*k);
  if (const nn::OptimizerKind* k = nn::FindOptimizerKind(name)) return Of(*k);
  Fail("help: unrecognized topic or kind `%s", name);
}

std::vector<std::pair<std::string, char>> dtype_ktypes() {
  std::vector<std::pair<std::string, char>> rows;
  for (const char* name : {"float", "double", "half", "bool", "byte", "char", "long", "int",
                           "short", "chalf", "cfloat", "cdouble"}) {
    rows.emplace_back(name, KTypeOf(*DtypeFromName(name)));
  }
  return rows;
}

std::vector<std::string> help_devices() {
  std::vector<std::string> devices{"cpu"};
  for (const std::string& d : cuda_device_names()) devices.push_back(d);
  return devices;
}

std::vector<std::pair<std::string, std::string>> tensor_option_defaults() {
  return {{"device", "cpu"},      {"dtype", default_dtype()}, {"layout", "strided"},
          {"gradient", "nograd"}, {"pin", "unpinned"},        {"memory", "contiguous"}};
}

KindHelp kind_help(Handle h) {
  const ObjectClass c = class_(h);
  if (c != ObjectClass::kModule && c != ObjectClass::kLoss && c != ObjectClass::kOptimizer) {
    Fail("help: expecting a topic, a kind, or a module, loss or optimizer, given %s", ClassName(c));
  }
  return kind_help(objtype(h));
}

HelpTopic help_topic(const std::string& name) {
  static constexpr std::pair<const char*, HelpTopic> kTopics[] = {
      {"backward", HelpTopic::kBackward},   {"device", HelpTopic::kDevice},
      {"dtype", HelpTopic::kDtype},         {"ktype", HelpTopic::kKtype},
      {"module", HelpTopic::kModule},       {"loss", HelpTopic::kLoss},
      {"optimizer", HelpTopic::kOptimizer}, {"tensor", HelpTopic::kTensor}};
  for (const auto& [topic, value] : kTopics) {
    if (name == topic) return value;
  }
  return HelpTopic::kKind;
}

}  // namespace kscope
