// help[] -> topic!description; help`topic -> the topic's table or dictionary (backward dtype
// ktype loss module optimizer tensor, and kscope's device); help`kind -> a module, loss or
// optimizer kind's options with their defaults; help p -> the defaults of the kind of module,
// loss or optimizer p holds.
// Every table is built from api/env/help.h, which derives it from the kind tables.
#include "api/env/help.h"
#include "api/tensor/autograd.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/convert/k_definition.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

K Table(const std::vector<std::string>& names, std::vector<K> columns) {
  K values = kabi::ktn(kabi::kMixed, static_cast<long long>(columns.size()));
  for (std::size_t i = 0; i < columns.size(); ++i) kabi::Items(values)[i] = columns[i];
  return kabi::xT(kabi::xD(Symbols(names), values));
}

K KFromBools(const std::vector<bool>& flags) {
  K x = kabi::ktn(kabi::kBoolean, static_cast<long long>(flags.size()));
  for (std::size_t i = 0; i < flags.size(); ++i) kabi::Bytes(x)[i] = flags[i];
  return x;
}

K KFromChars(const std::vector<char>& chars) {
  K x = kabi::ktn(kabi::kChar, static_cast<long long>(chars.size()));
  for (std::size_t i = 0; i < chars.size(); ++i) kabi::Chars(x)[i] = chars[i];
  return x;
}

K Strings(const std::vector<std::string>& texts) {
  K x = kabi::ktn(kabi::kMixed, static_cast<long long>(texts.size()));
  for (std::size_t i = 0; i < texts.size(); ++i) {
    kabi::Items(x)[i] =
        kabi::kpn(const_cast<char*>(texts[i].data()), static_cast<long long>(texts[i].size()));
  }
  return x;
}

K Topics() {
  std::vector<std::string> names, descriptions;
  for (const auto& [name, description] : help_topics()) {
    names.push_back(name);
    descriptions.push_back(description);
  }
  return kabi::xD(Symbols(names), Strings(descriptions));
}

K Backward() {
  std::vector<std::string> modes, descriptions;
  std::vector<bool> retain, create;
  for (const BackwardModeInfo& m : backward_modes()) {
    modes.emplace_back(m.name);
    retain.push_back(m.retain);
    create.push_back(m.create);
    descriptions.emplace_back(m.description);
  }
  return Table({"mode", "retain", "create", "description"},
               {Symbols(modes), KFromBools(retain), KFromBools(create), Strings(descriptions)});
}

// One row per kind: its name, inputs (modules and losses) and options!defaults.
K Kinds(const char* column, const std::vector<KindHelp>& kinds, bool inputs) {
  std::vector<std::string> names;
  std::vector<std::int64_t> fewest, most;
  K options = kabi::ktn(kabi::kMixed, static_cast<long long>(kinds.size()));
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    names.push_back(kinds[i].kind);
    fewest.push_back(static_cast<std::int64_t>(kinds[i].inputs));
    most.push_back(static_cast<std::int64_t>(kinds[i].max_inputs));
    kabi::Items(options)[i] = KFromOptions(kinds[i].defaults);
  }
  if (!inputs) return Table({column, "options"}, {Symbols(names), options});
  return Table({column, "inputs", "maxinputs", "options"},
               {Symbols(names), KFromLongs(fewest), KFromLongs(most), options});
}

// help`dtype: dtype!ktype; help`ktype: ktype!dtype for the types k has (the first eight), as
// ktorch gives them.
K Dtypes(bool ktype_first) {
  std::vector<std::string> dtypes;
  std::vector<char> ktypes;
  for (const auto& [dtype, ktype] : dtype_ktypes()) {
    dtypes.push_back(dtype);
    ktypes.push_back(ktype);
  }
  if (!ktype_first) return kabi::xD(Symbols(dtypes), KFromChars(ktypes));
  constexpr std::size_t kKTypes = 8;  // float double half bool byte char long int
  dtypes.resize(kKTypes);
  ktypes.resize(kKTypes);
  return kabi::xD(KFromChars(ktypes), Symbols(dtypes));
}

// help`tensor: option!default
K TensorOptions() {
  std::vector<std::string> names, defaults;
  for (const auto& [option, value] : tensor_option_defaults()) {
    names.push_back(option);
    defaults.push_back(value);
  }
  return kabi::xD(Symbols(names), Symbols(defaults));
}

K Topic(const std::string& name) {
  switch (help_topic(name)) {
    case HelpTopic::kBackward: return Backward();
    case HelpTopic::kDevice: return Table({"device"}, {Symbols(help_devices())});
    case HelpTopic::kDtype: return Dtypes(false);
    case HelpTopic::kKtype: return Dtypes(true);
    case HelpTopic::kModule: return Kinds("module", module_help(), true);
    case HelpTopic::kLoss: return Kinds("loss", loss_help(), true);
    case HelpTopic::kOptimizer: return Kinds("optimizer", optimizer_help(), false);
    case HelpTopic::kTensor: return TensorOptions();
    case HelpTopic::kKind: break;
  }
  return KFromOptions(kind_help(name).defaults);
}

K Help(K x) {
  return Guard([&] {
    const Args a("help", x);
    if (a.empty()) return Topics();
    if (IsPointer(x)) return KFromOptions(kind_help(HandleOf(x)).defaults);
    if (a.size() != 1 || !a.IsSymbolAt(0)) {
      Fail("help: expecting a topic, a kind, or a module, loss or optimizer, given %s", KName(x));
    }
    return Topic(a.SymbolAt(0));
  });
}

}  // namespace

std::vector<Export> HelpExports() { return {Unary("help", Help)}; }

}  // namespace kscope::q
