#include "q/convert/k_definition.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "q/convert/convert.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// A symbol that is a q file handle (`:path): an option value (torchscript's `file), never a
// module's name or kind.
bool IsFileHandle(absl::string_view symbol) { return absl::StartsWith(symbol, ":"); }

// Value j of an options dictionary (keys; values): read by `read` when the values are a general
// list, else an item of the simple list q made of them.
nn::OptionValue OptionAt(const char* fn, K keys, K values, long long j, OptionReader read) {
  if (values->t == kabi::kMixed) return read(kabi::Symbols(keys)[j], kabi::Items(values)[j]);
  return OptionFromListAt(fn, values, j);
}

nn::OptionValue NestedFromK(const std::string& expected, K x);

// Reads the options of module kind `kind`: a nested definition for an option that takes one
// (encoder's `encoderlayer), else as OptionFromK.
struct ModuleOptionReaderOf {
  nn::OptionValue operator()(const std::string& option, K x) const {
    const std::vector<std::string> names = module_options(kind);
    if (!option.empty() && !names.empty() &&
        std::find(names.begin(), names.end(), option) == names.end())
      Fail("%s: unrecognized option `%s", kind, option);  // before its value is read as one
    const std::string nested = nested_kind(kind, option);
    if (nested.empty()) return OptionFromK(kind.c_str(), x);
    if (IsPointer(x)) {
      Fail("%s: option `%s expects a definition of %s, given a pointer (define the %s in place)",
           kind, option, nested, nested);
    }
    const bool definition = x->t == kabi::kMixed || x->t == kabi::kDictionary;
    return definition ? NestedFromK(nested, x) : OptionFromK(kind.c_str(), x);
  }
  std::string kind;
};

// A definition given as an option's value (api/nn/options.h's Nested), as ktorch reads one:
// (`kind;[`name;]options..) (the name is ignored), options alone (512;8), a dictionary of
// options, or a module's description `module`options!(kind;options); () is none. `expected`
// is the kind the option makes, whose options a definition that names none gives.
nn::OptionValue NestedFromK(const std::string& expected, K x) {
  if (x->t == kabi::kDictionary) {
    K keys = kabi::DictKeys(x);
    if (keys->t == kabi::kSymbol && keys->n == 2 &&
        std::string(kabi::Symbols(keys)[0]) == "module" &&
        std::string(kabi::Symbols(keys)[1]) == "options" &&
        kabi::DictValues(x)->t == kabi::kMixed) {
      K kind = kabi::Items(kabi::DictValues(x))[0];
      K options = kabi::Items(kabi::DictValues(x))[1];
      if (!IsSymbol(kind)) Fail("%s: `module expects a symbol, given %s", expected, KName(kind));
      const std::string k = SymbolText(kind);
      return nn::NestedDefinition(k, {}, ModuleOptionsFromDictionary(k, options));
    }
    return nn::NestedDefinition("", {}, ModuleOptionsFromDictionary(expected, x));
  }
  if (x->n == 0) return std::monostate();
  if (x->n == 1 && kabi::Items(x)[0]->t == kabi::kMixed)  // enlist(`kind;..), as in a tree
    return NestedFromK(expected, kabi::Items(x)[0]);
  std::string kind;
  long long next = 0;
  if (IsSymbol(kabi::Items(x)[0])) kind = SymbolText(kabi::Items(x)[next++]);
  const std::string& reading = kind.empty() ? expected : kind;
  const std::vector<std::string> names = module_options(reading);
  if (!kind.empty() && next < x->n && IsSymbol(kabi::Items(x)[next]) &&
      std::find(names.begin(), names.end(), SymbolText(kabi::Items(x)[next])) == names.end())
    ++next;  // the definition's name: a nested module has none of its own
  std::vector<nn::OptionValue> positional;
  nn::NamedValues named;
  OptionsFromK(reading.c_str(), x, next, names, ModuleOptionReaderOf{reading}, &positional, &named);
  return nn::NestedDefinition(kind, std::move(positional), std::move(named));
}

bool IsDepthValuePairs(K x) {
  if (x->t != kabi::kMixed || x->n == 0) return false;
  for (long long i = 0; i < x->n; ++i) {
    K item = kabi::Items(x)[i];
    if (item->t != kabi::kMixed || item->n != 2 || kabi::Items(item)[0]->t != -kabi::kLong)
      return false;
  }
  return true;
}

ModuleDefinition Single(K x);

// Whether x can stand as a subtree: a symbol (a module without options), a symbol list
// (`kind`name) or a general list (a definition, or a module with its children).
bool IsTreeLike(K x) {
  return (IsSymbol(x) && !IsFileHandle(SymbolText(x))) || x->t == kabi::kSymbol ||
         (x->t == kabi::kMixed && !IsPointer(x));
}

// ktorch's nested tree (its knn.cpp, mtree): a general list is its first item's module with
// the other items as its children's trees, so (`sequential; enlist(`linear;128;10); `relu) is a
// sequential of a linear and a relu, and enlist(`linear;128;10) a linear; anything else is one
// module's definition. Beyond ktorch, a definition written without its enlist,
// (`linear;128;10), is one module too: a general list with an item that cannot be a subtree.
ModuleDefinition Tree(K x) {
  if (x->t != kabi::kMixed || x->n == 0 || IsPointer(x)) return Single(x);
  for (long long i = 1; i < x->n; ++i) {
    if (!IsTreeLike(kabi::Items(x)[i])) return Single(x);
  }
  ModuleDefinition d = Single(kabi::Items(x)[0]);
  for (long long i = 1; i < x->n; ++i) d.children.push_back(Tree(kabi::Items(x)[i]));
  return d;
}

ModuleDefinition FromPairs(K x) {
  std::vector<ModuleDefinition*> path;  // the open definition at each depth
  ModuleDefinition root;
  for (long long i = 0; i < x->n; ++i) {
    K pair = kabi::Items(x)[i];
    const long long depth = kabi::Items(pair)[0]->j;
    ModuleDefinition d = Single(kabi::Items(pair)[1]);
    if (i == 0) {
      if (depth != 0) Fail("module: depth-value pairs must start at depth 0, given %d", depth);
      root = std::move(d);
      path = {&root};
      continue;
    }
    if (depth < 1 || depth > static_cast<long long>(path.size())) {
      Fail("module: depth %d of pair[%d] does not follow depth %d", depth, i, path.size() - 1);
    }
    path.resize(depth);
    path.back()->children.push_back(std::move(d));
    path.push_back(&path.back()->children.back());
  }
  return root;
}

ModuleDefinition Single(K x) {
  if (IsSymbol(x)) return ModuleDefinition{SymbolText(x), "", {}, {}, {}};
  if (x->t == kabi::kSymbol && (x->n == 1 || x->n == 2)) {
    ModuleDefinition d{kabi::Symbols(x)[0], "", {}, {}, {}};
    if (x->n == 2 && IsFileHandle(kabi::Symbols(x)[1])) {
      d.positional.emplace_back(std::string(kabi::Symbols(x)[1]));
    } else if (x->n == 2) {
      d.name = kabi::Symbols(x)[1];
    }
    return d;
  }
  if (x->t == kabi::kMixed && x->n == 0) Fail("module: empty list");  // ktorch's text
  if (x->t != kabi::kMixed || !IsSymbol(kabi::Items(x)[0])) {
    Fail("module: expecting a definition (`kind; [`name]; options..), given %s", KName(x));
  }
  ModuleDefinition d{SymbolText(kabi::Items(x)[0]), "", {}, {}, {}};
  const std::vector<std::string> names = module_options(d.kind);
  long long next = 1;
  if (next < x->n && IsSymbol(kabi::Items(x)[next]) &&
      !IsFileHandle(SymbolText(kabi::Items(x)[next])) &&
      std::find(names.begin(), names.end(), SymbolText(kabi::Items(x)[next])) == names.end()) {
    d.name = SymbolText(kabi::Items(x)[next++]);
  }
  OptionsFromK(d.kind.c_str(), x, next, names, ModuleOptionReaderOf{d.kind}, &d.positional,
               &d.named);
  return d;
}

// Tensors by name: (`x;values), (`x`y;(values;values)) or `x`y!(values;values); nullopt-like
// false when x has none of these shapes.
bool NamedTensorsFromK(const char* fn, K x, nn::NamedTensors* out) {
  K names = nullptr;
  K values = nullptr;
  if (x->t == kabi::kDictionary) {
    names = kabi::DictKeys(x);
    values = kabi::DictValues(x);
  } else if (x->t == kabi::kMixed && x->n == 2) {
    names = kabi::Items(x)[0];
    values = kabi::Items(x)[1];
  }
  if (names == nullptr) return false;
  if (names->t == -kabi::kSymbol) {
    out->names = {SymbolText(names)};
    out->tensors = {TensorFromK(fn, values)};
    return true;
  }
  if (names->t != kabi::kSymbol || values->t != kabi::kMixed || values->n != names->n) return false;
  for (long long i = 0; i < names->n; ++i) {
    out->names.emplace_back(kabi::Symbols(names)[i]);
    out->tensors.push_back(TensorFromK(fn, kabi::Items(values)[i]));
  }
  return true;
}

}  // namespace

nn::OptionValue OptionFromK(const char* fn, K x) {
  if (nn::NamedTensors named; NamedTensorsFromK(fn, x, &named)) return named;
  switch (x->t) {
    case -kabi::kBoolean: return x->g != 0;
    case -kabi::kLong: return static_cast<std::int64_t>(x->j);
    case -kabi::kInt: return static_cast<std::int64_t>(x->i);
    case -kabi::kShort: return static_cast<std::int64_t>(x->h);
    case -kabi::kFloat: return x->f;
    case -kabi::kReal: return static_cast<double>(x->e);
    case -kabi::kSymbol: return SymbolText(x);
    case kabi::kLong: return std::vector<std::int64_t>(kabi::Longs(x), kabi::Longs(x) + x->n);
    case kabi::kFloat: return std::vector<double>(kabi::Floats(x), kabi::Floats(x) + x->n);
    case kabi::kChar: return std::string(kabi::Chars(x), kabi::Chars(x) + x->n);
    case kabi::kSymbol: return std::vector<std::string>(kabi::Symbols(x), kabi::Symbols(x) + x->n);
    case kabi::kUnaryPrimitive:
      if (IsNull(x)) return std::monostate();
      [[fallthrough]];
    default: Fail("%s: unable to use %s as an option value", fn, KName(x));
  }
}

K KFromOption(const nn::OptionValue& v) {
  switch (v.index()) {
    case 0: return Null();
    case 1: return kabi::kb(std::get<bool>(v));
    case 2: return kabi::kj(std::get<std::int64_t>(v));
    case 3: return kabi::kf(std::get<double>(v));
    case 4: return Symbol(std::get<std::string>(v));
    case 5: return KFromLongs(std::get<std::vector<std::int64_t>>(v));
    case 7: return Symbols(std::get<std::vector<std::string>>(v));
    case 8: {
      const auto& named = std::get<nn::NamedTensors>(v);
      K values = kabi::ktn(kabi::kMixed, static_cast<long long>(named.tensors.size()));
      for (std::size_t i = 0; i < named.tensors.size(); ++i)
        kabi::Items(values)[i] = KFromTensor(named.tensors[i]);
      return kabi::xD(Symbols(named.names), values);
    }
    case 9: {  // as OptionSet::Values gives one: its options by name, with its kind or without
      const nn::NestedOptions& d = *std::get<nn::Nested>(v).definition;
      return d.kind.empty() ? KFromOptions(d.named) : KFromKindAndOptions(d.kind, d.named);
    }
    default: {
      const auto& d = std::get<std::vector<double>>(v);
      K x = kabi::ktn(kabi::kFloat, static_cast<long long>(d.size()));
      std::copy(d.begin(), d.end(), kabi::Floats(x));
      return x;
    }
  }
}

nn::OptionValue OptionFromListAt(const char* fn, K values, long long j) {
  switch (values->t) {
    case kabi::kMixed: return OptionFromK(fn, kabi::Items(values)[j]);
    case kabi::kBoolean: return kabi::Bytes(values)[j] != 0;
    case kabi::kLong: return static_cast<std::int64_t>(kabi::Longs(values)[j]);
    case kabi::kInt: return static_cast<std::int64_t>(kabi::Ints(values)[j]);
    case kabi::kShort: return static_cast<std::int64_t>(kabi::Shorts(values)[j]);
    case kabi::kFloat: return kabi::Floats(values)[j];
    case kabi::kReal: return static_cast<double>(kabi::Reals(values)[j]);
    case kabi::kSymbol: return std::string(kabi::Symbols(values)[j]);
    default: Fail("%s: unable to use %s as option values", fn, KName(values));
  }
}

// `loss l`'s dictionary `module options, back as a description.
LossDescription LossDescriptionFromK(K d) {
  K keys = kabi::DictKeys(d), values = kabi::DictValues(d);
  if (keys->t != kabi::kSymbol || values->t != kabi::kMixed) {
    Fail("loss: expecting a dictionary of `module`options, given %s", KName(d));
  }
  LossDescription description;
  bool has_kind = false;
  for (long long i = 0; i < keys->n; ++i) {
    const std::string key = kabi::Symbols(keys)[i];
    K value = kabi::Items(values)[i];
    if (key == "module") {
      if (!IsSymbol(value)) Fail("loss: `module expects a symbol, given %s", KName(value));
      description.kind = SymbolText(value);
      has_kind = true;
    } else if (key == "options") {
      description.options = OptionsFromDictionary("loss", value);
    } else {
      Fail("loss: unexpected key `%s in a loss dictionary, expecting `module`options", key);
    }
  }
  if (!has_kind) Fail("loss: no `module in the loss dictionary");
  return description;
}

K KFromKindAndOptions(const std::string& kind, const nn::NamedValues& options) {
  return kabi::xD(Symbols({"module", "options"}),
                  kabi::knk(2, Symbol(kind), KFromOptions(options)));
}

K KFromLossDescription(const LossDescription& d) { return KFromKindAndOptions(d.kind, d.options); }

nn::NamedValues OptionsFromDictionary(const char* fn, K d) {
  return OptionsFromDictionary(fn, d,
                               [fn](const std::string&, K item) { return OptionFromK(fn, item); });
}

nn::NamedValues OptionsFromDictionary(const char* fn, K d, OptionReader read) {
  if (d->t != kabi::kDictionary) Fail("%s: `options expects a dictionary, given %s", fn, KName(d));
  K keys = kabi::DictKeys(d), values = kabi::DictValues(d);
  if (keys->t != kabi::kSymbol && keys->n > 0)
    Fail("%s: `options expects symbol keys, given %s", fn, KName(keys));
  nn::NamedValues named;
  for (long long j = 0; j < keys->n; ++j)
    named.emplace_back(kabi::Symbols(keys)[j], OptionAt(fn, keys, values, j, read));
  return named;
}

nn::NamedValues ModuleOptionsFromDictionary(const std::string& kind, K d) {
  return OptionsFromDictionary(kind.c_str(), d, ModuleOptionReaderOf{kind});
}

K KFromOptions(const nn::NamedValues& options) {
  std::vector<std::string> keys;
  K values = kabi::ktn(kabi::kMixed, static_cast<long long>(options.size()));
  for (std::size_t i = 0; i < options.size(); ++i) {
    keys.push_back(options[i].first);
    kabi::Items(values)[i] = KFromOption(options[i].second);
  }
  return kabi::xD(Symbols(keys), CollapseAtoms(values));
}

void OptionsFromK(const char* fn, K list, long long from, const std::vector<std::string>& names,
                  std::vector<nn::OptionValue>* positional, nn::NamedValues* named) {
  OptionsFromK(
      fn, list, from, names, [fn](const std::string&, K item) { return OptionFromK(fn, item); },
      positional, named);
}

void OptionsFromK(const char* fn, K list, long long from, const std::vector<std::string>& names,
                  OptionReader read, std::vector<nn::OptionValue>* positional,
                  nn::NamedValues* named) {
  auto is_name = [&](K item) {
    return IsSymbol(item) && std::find(names.begin(), names.end(), SymbolText(item)) != names.end();
  };
  auto is_name_text = [&](const char* s) {
    return std::find(names.begin(), names.end(), s) != names.end();
  };
  // A name-value pair given as one item, as `amsgrad,1b makes it: (`amsgrad;1b), or as a
  // symbol pair when the value is a symbol: `reduce`sum.
  auto is_symbol_pair = [&](K item) {
    return item->t == kabi::kSymbol && item->n == 2 && is_name_text(kabi::Symbols(item)[0]);
  };
  auto is_pair = [&](K item) {
    return (item->t == kabi::kMixed && item->n == 2 && is_name(kabi::Items(item)[0])) ||
           is_symbol_pair(item);
  };
  long long i = from;
  for (; i < list->n; ++i) {
    K item = kabi::Items(list)[i];
    if (is_name(item) || is_pair(item) || item->t == kabi::kDictionary) break;
    const std::size_t at = positional->size();
    positional->push_back(read(at < names.size() ? names[at] : std::string(), item));
  }
  for (; i < list->n; ++i) {
    K item = kabi::Items(list)[i];
    if (item->t == kabi::kDictionary) {
      K keys = kabi::DictKeys(item), values = kabi::DictValues(item);
      if (keys->t != kabi::kSymbol || i + 1 != list->n) {
        Fail("%s: options dictionary must be last, with symbol keys", fn);
      }
      for (long long j = 0; j < keys->n; ++j)  // values as q writes them: `lr`momentum!0.1 0.9
        named->emplace_back(kabi::Symbols(keys)[j], OptionAt(fn, keys, values, j, read));
      return;
    }
    if (is_symbol_pair(item)) {
      named->emplace_back(kabi::Symbols(item)[0], std::string(kabi::Symbols(item)[1]));
      continue;
    }
    if (is_pair(item)) {
      const std::string name = SymbolText(kabi::Items(item)[0]);
      named->emplace_back(name, read(name, kabi::Items(item)[1]));
      continue;
    }
    if (!IsSymbol(item) || i + 1 >= list->n)
      Fail("%s: expecting name-value pairs after the positional options", fn);
    const std::string name = SymbolText(item);
    named->emplace_back(name, read(name, kabi::Items(list)[++i]));
  }
}

ModuleDefinition DefinitionFromK(K x) { return IsDepthValuePairs(x) ? FromPairs(x) : Tree(x); }

}  // namespace kscope::q
