#include "api/env/help.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

#include "api/core/pointer.h"
#include "api/env/environment.h"
#include "api/env/kind_facts.h"
#include "api/nn/kind_names.h"
#include "api/nn/module_kind.h"
#include "api/nn/optimizer_kind.h"
#include "api/tensor/info.h"
#include "api/tensor/tensor.h"
#include "runtime/errors.h"
#include "runtime/names.h"

namespace kscope {
namespace {

// Each option with its default; required options and those without one read as null, a
// definition (nn::Nested) as an empty one, as ktorch shows none.
nn::NamedValues Defaults(const std::vector<nn::OptionSpec>& specs) {
  nn::NamedValues defaults;
  for (const nn::OptionSpec& spec : specs) {
    defaults.emplace_back(spec.name, spec.nested != nullptr ? nn::NestedDefinition("")
                                     : spec.required        ? nn::OptionValue()
                                                            : spec.fallback);
  }
  return defaults;
}

// `defaults` with the values `samples` gives in place of theirs.
nn::NamedValues WithSamples(nn::NamedValues defaults, const nn::NamedValues& samples) {
  for (const auto& [name, value] : samples) {
    for (auto& option : defaults) {
      if (option.first == name) option.second = value;
    }
  }
  return defaults;
}

// The optimizers' PyTorch classes and sample values, as ktorch's help shows them: lbfgs's number
// of evaluations (computed from iter when not given) as a long null, its line search as
// strong_wolf.
const KindFacts& OptimizerFactsOf(const std::string& kind) {
  static const auto* const facts =
      new std::vector<KindFacts>{{"adagrad", "torch.optim.Adagrad", false, "", 0, {}, {}},
                                 {"adam", "torch.optim.Adam", false, "", 0, {}, {}},
                                 {"adamw", "torch.optim.AdamW", false, "", 0, {}, {}},
                                 {"lamb", "", false, "", 0, {}, {}},
                                 {"lbfgs",
                                  "torch.optim.LBFGS",
                                  false,
                                  "",
                                  0,
                                  {},
                                  {{"eval", std::numeric_limits<std::int64_t>::min()},
                                   {"search", std::string("strong_wolf")}}},
                                 {"rmsprop", "torch.optim.RMSprop", false, "", 0, {}, {}},
                                 {"sgd", "torch.optim.SGD", false, "", 0, {}, {}}};
  for (const KindFacts& f : *facts) {
    if (f.kind == kind) return f;
  }
  Fail("help: no facts for optimizer `%s", kind);
}

KindHelp Of(const nn::ModuleKind& k) {
  const KindFacts* facts = FindKindFacts(k.name);
  if (facts == nullptr) Fail("help: no facts for kind `%s", k.name);
  nn::NamedValues defaults = Defaults(k.options);
  nn::NamedValues example = WithSamples(defaults, facts->example);
  return KindHelp{k.name,         k.inputs, k.max_inputs, std::move(defaults), std::move(example),
                  facts->pytorch, facts};
}
KindHelp Of(const nn::OptimizerKind& k) {
  const KindFacts& facts = OptimizerFactsOf(k.name);
  nn::NamedValues defaults = Defaults(k.options);
  nn::NamedValues example = WithSamples(defaults, facts.example);
  return KindHelp{k.name, 0, 0, std::move(defaults), std::move(example), facts.pytorch, nullptr};
}

// Every kind of a family, by name.
template <typename Find>
std::vector<KindHelp> KindHelpTable(std::vector<std::string> names, Find find) {
  std::sort(names.begin(), names.end());
  std::vector<KindHelp> rows;
  for (const std::string& name : names) rows.push_back(Of(*find(name)));
  return rows;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> help_topics() {
  return {{"backward", "backward calculation modes"},
          {"device", "PyTorch device mapped to random seed"},
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

KindHelp kind_help(const std::string& name, const char* fn) {
  if (const nn::ModuleKind* k = nn::FindModuleKind(name)) return Of(*k);
  if (const nn::ModuleKind* k = nn::FindLossKind(name)) return Of(*k);
  if (const nn::OptimizerKind* k = nn::FindOptimizerKind(name)) return Of(*k);
  Fail("%s: unrecognized topic or kind `%s", fn, name);
}

std::vector<std::pair<std::string, char>> dtype_ktypes() {
  std::vector<std::pair<std::string, char>> rows;
  for (const char* name : {"float", "double", "half", "bool", "byte", "char", "long", "int",
                           "short", "chalf", "cfloat", "cdouble"}) {
    rows.emplace_back(name, KTypeOf(*DtypeFromName(name)));
  }
  return rows;
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
