// help and options, one function with two faces, as ktorch's:
//   help[] -> topic!description; options[] -> the default tensor options;
//   help`topic / options`topic -> the topic's table or dictionary (backward device dtype ktype
//     loss module optimizer tensor);
//   help`kind -> a module or loss kind's dictionary, ktorch's keys and values (module pytorch
//     forward result n args options, the options with ktorch's sample values); an optimizer
//     kind's options; options`kind -> the kind's options with the sample values;
//   help p -> the dictionary of the module or loss p holds, with its own options; options p ->
//     those options; for any other object both give its options: an optimizer's per group, a
//     tensor's (a table for a vector, a dictionary of rows for a dictionary).
// Every table is built from api/env/help.h, which derives it from the kind tables.
#include "api/core/pointer.h"
#include "api/env/help.h"
#include "api/nn/loss.h"
#include "api/nn/module.h"
#include "api/nn/optimizer.h"
#include "api/tensor/autograd.h"
#include "api/tensor/info.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/convert/k_definition.h"
#include "q/convert/k_optimizer_state.h"
#include "q/env/seeds.h"
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

// The input types of a kind's forward, as ktorch lists them: an atom for one.
K ArgTypes(const std::vector<std::string>& args) {
  return args.size() == 1 ? Symbol(args.front()) : Symbols(args);
}

// help`kind, help p: a module or loss kind's dictionary with `options` as its options.
K KindDictionary(const KindHelp& k, K options) {
  const KindFacts& f = *k.facts;
  return kabi::xD(Symbols({"module", "pytorch", "forward", "result", "n", "args", "options"}),
                  kabi::knk(7, Symbol(k.kind), kabi::kp(const_cast<char*>(f.pytorch.c_str())),
                            kabi::kb(f.forward), Symbol(f.result), kabi::kj(f.required),
                            ArgTypes(f.args), options));
}

// help`module, help`loss: a row per kind, ktorch's columns.
K KindTable(const std::vector<KindHelp>& kinds) {
  const auto n = static_cast<long long>(kinds.size());
  std::vector<std::string> names, pytorch, results;
  std::vector<bool> forward;
  std::vector<std::int64_t> required;
  K args = kabi::ktn(kabi::kMixed, n), options = kabi::ktn(kabi::kMixed, n);
  for (long long i = 0; i < n; ++i) {
    const KindHelp& k = kinds[i];
    names.push_back(k.kind);
    pytorch.push_back(k.facts->pytorch);
    forward.push_back(k.facts->forward);
    results.push_back(k.facts->result);
    required.push_back(k.facts->required);
    kabi::Items(args)[i] = ArgTypes(k.facts->args);
    kabi::Items(options)[i] = KFromOptions(k.example);
  }
  return Table({"module", "pytorch", "forward", "result", "n", "args", "options"},
               {Symbols(names), Strings(pytorch), KFromBools(forward), Symbols(results),
                KFromLongs(required), args, options});
}

// help`optimizer: a row per kind, its PyTorch class and its options with the sample values.
K OptimizerTable(const std::vector<KindHelp>& kinds) {
  std::vector<std::string> names, pytorch;
  K options = kabi::ktn(kabi::kMixed, static_cast<long long>(kinds.size()));
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    names.push_back(kinds[i].kind);
    pytorch.push_back(kinds[i].pytorch);
    kabi::Items(options)[i] = KFromOptions(kinds[i].example);
  }
  return Table({"optimizer", "pytorch", "options"}, {Symbols(names), Strings(pytorch), options});
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

// help`name (`help`) or options`name: a topic, or a kind.
K Topic(const char* fn, const std::string& name, bool help) {
  switch (help_topic(name)) {
    case HelpTopic::kBackward: return Backward();
    case HelpTopic::kDevice: return KFromSeeds();
    case HelpTopic::kDtype: return Dtypes(false);
    case HelpTopic::kKtype: return Dtypes(true);
    case HelpTopic::kModule: return KindTable(module_help());
    case HelpTopic::kLoss: return KindTable(loss_help());
    case HelpTopic::kOptimizer: return OptimizerTable(optimizer_help());
    case HelpTopic::kTensor: return TensorOptions();
    case HelpTopic::kKind: break;
  }
  const KindHelp k = kind_help(name, fn);
  if (help && k.facts != nullptr) return KindDictionary(k, KFromOptions(k.example));
  return KFromOptions(k.example);
}

const std::vector<std::string> kOptionKeys = {"device",   "dtype", "layout",
                                              "gradient", "pin",   "memory"};

std::vector<std::string> OptionRow(const TensorOptionsInfo& o) {
  return {o.device, o.dtype, o.layout, o.gradient, o.pin, o.memory};
}

K KFromTensorOptions(const TensorOptionsInfo& o) {
  return kabi::xD(Symbols(kOptionKeys), Symbols(OptionRow(o)));
}

// One row per tensor: a table of symbol columns.
K OptionTable(const std::vector<TensorOptionsInfo>& rows) {
  K columns = kabi::ktn(kabi::kMixed, static_cast<long long>(kOptionKeys.size()));
  for (std::size_t c = 0; c < kOptionKeys.size(); ++c) {
    std::vector<std::string> column;
    for (const TensorOptionsInfo& row : rows) column.push_back(OptionRow(row)[c]);
    kabi::Items(columns)[c] = Symbols(column);
  }
  return kabi::xT(kabi::xD(Symbols(kOptionKeys), columns));
}

K KFromOptionsPerTensor(const PerElement<TensorOptionsInfo>& o) {
  return KFromShaped(o, KFromTensorOptions, OptionTable);
}

// help p / options p: a module's or loss's dictionary (help) or options; any other object's
// options.
K ObjectHelp(const char* fn, Handle h, bool help) {
  const ObjectClass c = class_(h);
  switch (c) {
    case ObjectClass::kModule:
    case ObjectClass::kLoss: {
      const nn::NamedValues options = c == ObjectClass::kModule
                                          ? describe(h, AllOptions()).at(0).options
                                          : describe_loss(h, AllOptions()).options;
      if (!help) return KFromOptions(options);
      const KindHelp k = kind_help(h);  // before any k object is made: it may throw
      return KindDictionary(k, KFromOptions(options));
    }
    case ObjectClass::kOptimizer: return KFromGroupOptions(describe_opt(h, true).options);
    case ObjectClass::kModel: Fail("%s: not implemented for model", fn);  // ktorch's text
    default: return KFromOptionsPerTensor(options(h));
  }
}

// help x (`help`) or options x.
K HelpOrOptions(const char* fn, K x, bool help) {
  return Guard([&] {
    const Args a(fn, x);
    if (a.empty()) return help ? Topics() : KFromTensorOptions(options());
    if (IsPointer(x)) return ObjectHelp(fn, HandleOf(x), help);
    if (a.size() != 1 || !a.IsSymbolAt(0)) {
      Fail("%s: unrecognized arg(s), expecting empty arg, name or object, given %s", fn, KName(x));
    }
    return Topic(fn, a.SymbolAt(0), help);
  });
}

K Help(K x) { return HelpOrOptions("help", x, true); }
K Options(K x) { return HelpOrOptions("options", x, false); }

}  // namespace

std::vector<Export> HelpExports() { return {Unary("help", Help), Unary("options", Options)}; }

}  // namespace kscope::q
