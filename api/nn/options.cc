#include "api/nn/options.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <ATen/ops/equal.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/errors.h"

namespace kscope::nn {
namespace {

const char* ValueName(const OptionValue& v) {
  switch (v.index()) {
    case 0: return "null";
    case 1: return "boolean";
    case 2: return "long";
    case 3: return "double";
    case 4: return "symbol";
    case 5: return "long list";
    case 6: return "double list";
    case 7: return "symbol list";
    case 8: return "tensors by name";
    default: return "definition";
  }
}

// `value` converted to `type`, or nullopt-like monostate plus ok=false when it does not fit.
bool Convert(OptionType type, const OptionValue& value, OptionValue* out) {
  const bool null = std::holds_alternative<std::monostate>(value);
  const auto* j = std::get_if<std::int64_t>(&value);
  switch (type) {
    case OptionType::kBool:
      if (!std::holds_alternative<bool>(value)) return false;
      break;
    case OptionType::kLong:
      if (j == nullptr) return false;
      break;
    case OptionType::kLongOrNull:
      if (j == nullptr && !null) return false;
      if (j != nullptr && *j == std::numeric_limits<std::int64_t>::min()) {  // q's 0N
        *out = std::monostate();
        return true;
      }
      break;
    case OptionType::kDouble:
    case OptionType::kDoubleOrNull:
      if (type == OptionType::kDoubleOrNull && std::holds_alternative<double>(value) &&
          std::isnan(std::get<double>(value))) {  // q's 0n
        *out = std::monostate();
        return true;
      }
      if (j != nullptr) {
        *out = static_cast<double>(*j);
        return true;
      }
      if (!std::holds_alternative<double>(value) && !(null && type == OptionType::kDoubleOrNull))
        return false;
      break;
    case OptionType::kSymbol:
    case OptionType::kSymbolOrNull:
      if (!std::holds_alternative<std::string>(value) &&
          !(null && type == OptionType::kSymbolOrNull))
        return false;
      break;
    case OptionType::kDoublesOrNull:
      if (j != nullptr) {
        *out = std::vector<double>{static_cast<double>(*j)};
        return true;
      }
      if (const auto* d = std::get_if<double>(&value)) {
        *out = std::vector<double>{*d};
        return true;
      }
      if (const auto* longs = std::get_if<std::vector<std::int64_t>>(&value)) {
        *out = std::vector<double>(longs->begin(), longs->end());
        return true;
      }
      if (!null && !std::holds_alternative<std::vector<double>>(value)) return false;
      break;
    case OptionType::kNamedTensors:
      if (null) {
        *out = NamedTensors{};
        return true;
      }
      if (!std::holds_alternative<NamedTensors>(value)) return false;
      break;
    case OptionType::kNested:  // OptionSet::Parse reads the definition (ParseNested)
      if (!null && !std::holds_alternative<Nested>(value)) return false;
      break;
    case OptionType::kSymbols:
      if (const auto* symbol = std::get_if<std::string>(&value)) {
        *out = std::vector<std::string>{*symbol};
        return true;
      }
      if (!std::holds_alternative<std::vector<std::string>>(value)) return false;
      break;
    case OptionType::kLongs:
    case OptionType::kLongsOrNull:
    case OptionType::kLongsOrSymbol:
      if (j != nullptr) {
        *out = std::vector<std::int64_t>{*j};
        return true;
      }
      if (!std::holds_alternative<std::vector<std::int64_t>>(value) &&
          !(null && type == OptionType::kLongsOrNull) &&
          !(std::holds_alternative<std::string>(value) && type == OptionType::kLongsOrSymbol)) {
        return false;
      }
      break;
  }
  *out = value;
  return true;
}

}  // namespace

std::vector<std::string> OptionNames(absl::Span<const OptionSpec> specs) {
  std::vector<std::string> names;
  for (const OptionSpec& s : specs) names.emplace_back(s.name);
  return names;
}

const char* TypeName(OptionType type) {
  switch (type) {
    case OptionType::kBool: return "boolean";
    case OptionType::kLong: return "long";
    case OptionType::kDouble: return "double";
    case OptionType::kSymbol: return "symbol";
    case OptionType::kLongs: return "long(s)";
    case OptionType::kLongOrNull: return "long or null";
    case OptionType::kDoubleOrNull: return "double or null";
    case OptionType::kDoublesOrNull: return "double list or null";
    case OptionType::kLongsOrNull: return "long(s) or null";
    case OptionType::kLongsOrSymbol: return "long(s) or symbol";
    case OptionType::kSymbols: return "symbol(s)";
    case OptionType::kNamedTensors: return "tensors by name";
    case OptionType::kSymbolOrNull: return "symbol or null";
    case OptionType::kNested: return "a definition";
  }
  return "value";
}

OptionValue NestedDefinition(std::string kind, std::vector<OptionValue> positional,
                             NamedValues named) {
  return Nested{std::make_shared<const NestedOptions>(
      NestedOptions{std::move(kind), std::move(positional), std::move(named)})};
}

bool operator==(const Nested& a, const Nested& b) {
  if (a.definition == b.definition) return true;
  if (a.definition == nullptr || b.definition == nullptr) return false;
  return a.definition->kind == b.definition->kind &&
         a.definition->positional == b.definition->positional &&
         a.definition->named == b.definition->named;
}

namespace {

// The definition given for kNested option `spec` of `kind`, read with its kind's options: all
// of them by name (NestedOptions after Parse), or null for none.
OptionValue ParseNested(const std::string& kind, const OptionSpec& spec, const OptionValue& v) {
  const NestedKind& nested = *spec.nested;
  std::vector<OptionValue> positional;
  NamedValues named;
  if (const auto* n = std::get_if<Nested>(&v)) {
    const NestedOptions& d = *n->definition;
    if (!d.kind.empty() && d.kind != nested.kind) {
      Fail("%s: option `%s expects a definition of %s, given %s", kind, spec.name, nested.kind,
           d.kind);
    }
    if (d.kind.empty() && d.positional.empty() && d.named.empty()) return std::monostate();
    positional = d.positional;
    named = d.named;
  } else if (std::holds_alternative<std::monostate>(v)) {
    return std::monostate();
  } else if (std::holds_alternative<std::int64_t>(v) || std::holds_alternative<double>(v)) {
    positional = {v};
  } else if (const auto* longs = std::get_if<std::vector<std::int64_t>>(&v)) {
    positional.assign(longs->begin(), longs->end());
  } else if (const auto* doubles = std::get_if<std::vector<double>>(&v)) {
    positional.assign(doubles->begin(), doubles->end());
  } else {
    Fail("%s: option `%s expects a definition of %s, given %s", kind, spec.name, nested.kind,
         ValueName(v));
  }
  const OptionSet options = OptionSet::Parse(nested.kind, nested.options(), positional, named);
  return NestedDefinition(nested.kind, {}, options.Values(true));
}

}  // namespace

OptionSet OptionSet::Parse(const std::string& kind, absl::Span<const OptionSpec> specs,
                           const std::vector<OptionValue>& positional, const NamedValues& named) {
  std::vector<std::size_t> positions;  // the specs positional values fill, in order
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (!specs[i].by_name_only) positions.push_back(i);
  }
  if (positional.size() > positions.size()) {
    Fail("%s: %d positional option(s) given, expecting at most %d", kind, positional.size(),
         positions.size());
  }
  std::vector<OptionValue> values(specs.size());
  std::vector<bool> given(specs.size(), false);
  auto set = [&](std::size_t i, const OptionValue& v) {
    if (given[i]) Fail("%s: option `%s given more than once", kind, specs[i].name);
    if (specs[i].type == OptionType::kNested) {
      values[i] = ParseNested(kind, specs[i], v);
    } else if (!Convert(specs[i].type, v, &values[i])) {
      Fail("%s: option `%s expects %s, given %s", kind, specs[i].name, TypeName(specs[i].type),
           ValueName(v));
    }
    given[i] = true;
  };
  for (std::size_t i = 0; i < positional.size(); ++i) set(positions[i], positional[i]);
  for (const auto& [name, value] : named) {
    std::size_t i = 0;
    while (i < specs.size() && name != specs[i].name) ++i;
    if (i == specs.size()) Fail("%s: unrecognized option `%s", kind, name);
    set(i, value);
  }
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const bool nested_none =
        specs[i].type == OptionType::kNested && std::holds_alternative<std::monostate>(values[i]);
    if (given[i] && !(specs[i].required && nested_none)) continue;
    if (specs[i].required) Fail("%s: option `%s required", kind, specs[i].name);
    Convert(specs[i].type, specs[i].fallback, &values[i]);  // e.g. a long default of a long list
  }
  return OptionSet(kind, specs, std::move(values));
}

const OptionValue& OptionSet::At(const char* name) const {
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    if (std::string_view(specs_[i].name) == name) return values_[i];
  }
  Fail("%s: no option `%s", kind_, name);
}

bool OptionSet::IsNull(const char* name) const {
  return std::holds_alternative<std::monostate>(At(name));
}

// Option `name` as a T; a value of another type is the caller's mistake reading the option,
// reported as kscope::Error naming the kind and option rather than std::bad_variant_access.
template <typename T>
const T& OptionSet::Typed(const char* name, const char* wanted) const {
  const OptionValue& v = At(name);
  if (const T* typed = std::get_if<T>(&v)) return *typed;
  Fail("%s: option `%s read as %s, holds %s", kind_, name, wanted, ValueName(v));
}

bool OptionSet::Bool(const char* name) const { return Typed<bool>(name, "boolean"); }
std::int64_t OptionSet::Long(const char* name) const { return Typed<std::int64_t>(name, "long"); }
double OptionSet::Double(const char* name) const { return Typed<double>(name, "double"); }
const std::string& OptionSet::Symbol(const char* name) const {
  return Typed<std::string>(name, "symbol");
}
const std::vector<std::int64_t>& OptionSet::Longs(const char* name) const {
  return Typed<std::vector<std::int64_t>>(name, "long list");
}
const std::vector<double>& OptionSet::Doubles(const char* name) const {
  return Typed<std::vector<double>>(name, "double list");
}
const std::vector<std::string>& OptionSet::Symbols(const char* name) const {
  return Typed<std::vector<std::string>>(name, "symbol list");
}
const NamedTensors& OptionSet::Tensors(const char* name) const {
  return Typed<NamedTensors>(name, "tensors by name");
}

OptionSet OptionSet::NestedSet(const char* name) const {
  const NestedOptions& d = *Typed<Nested>(name, "definition").definition;
  for (const OptionSpec& spec : specs_) {
    if (spec.nested != nullptr && std::string_view(spec.name) == name)
      return Parse(spec.nested->kind, spec.nested->options(), d.positional, d.named);
  }
  Fail("%s: option `%s is not a definition", kind_, name);
}

bool operator==(const NamedTensors& a, const NamedTensors& b) {
  if (a.names != b.names || a.tensors.size() != b.tensors.size()) return false;
  for (std::size_t i = 0; i < a.tensors.size(); ++i) {
    const at::Tensor& x = a.tensors[i];
    const at::Tensor& y = b.tensors[i];
    if (x.sizes() != y.sizes() || x.scalar_type() != y.scalar_type() ||
        !at::equal(x.cpu(), y.cpu()))
      return false;
  }
  return true;
}

namespace {

struct TextOf {
  std::string operator()(std::monostate) const { return "None"; }
  std::string operator()(bool b) const { return b ? "true" : "false"; }
  std::string operator()(std::int64_t j) const { return absl::StrCat(j); }
  std::string operator()(double f) const { return absl::StrFormat("%g", f); }
  std::string operator()(const std::string& s) const { return s; }
  std::string operator()(const NamedTensors& t) const {
    return absl::StrCat("[", absl::StrJoin(t.names, ", "), "]");
  }
  std::string operator()(const Nested& n) const {
    return absl::StrCat(n.definition->kind, "(", OptionsText(n.definition->named), ")");
  }
  template <typename T>
  std::string operator()(const std::vector<T>& items) const {
    return absl::StrCat(
        "[",
        absl::StrJoin(items, ", ",
                      [this](std::string* out, const T& item) { out->append((*this)(item)); }),
        "]");
  }
};

}  // namespace

std::string OptionText(const OptionValue& value) { return std::visit(TextOf{}, value); }

std::string OptionsText(const NamedValues& values) {
  return absl::StrJoin(values, ", ",
                       [](std::string* out, const std::pair<std::string, OptionValue>& option) {
                         absl::StrAppend(out, option.first, "=", OptionText(option.second));
                       });
}
namespace {

// One number for a per-dimension value whose dimensions all have it.
OptionValue OneIfAllEqual(OptionValue v) {
  if (auto* longs = std::get_if<std::vector<std::int64_t>>(&v); longs && !longs->empty()) {
    if (std::all_of(longs->begin(), longs->end(),
                    [&](std::int64_t x) { return x == longs->front(); })) {
      return longs->front();
    }
  }
  if (auto* doubles = std::get_if<std::vector<double>>(&v); doubles && !doubles->empty()) {
    if (std::all_of(doubles->begin(), doubles->end(),
                    [&](double x) { return x == doubles->front(); })) {
      return doubles->front();
    }
  }
  return v;
}

// q's null of an option's type: 0N for a long, 0n for a double (`::` for others).
OptionValue TypedNull(OptionType type) {
  if (type == OptionType::kLongOrNull) return std::numeric_limits<std::int64_t>::min();
  if (type == OptionType::kDoubleOrNull) return std::numeric_limits<double>::quiet_NaN();
  return std::monostate();
}

}  // namespace

NamedValues OptionSet::Values(bool all) const {
  NamedValues out;
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    const OptionSpec& spec = specs_[i];
    OptionValue value = values_[i];
    OptionValue fallback;
    Convert(spec.type, spec.fallback, &fallback);
    if (spec.null_stands_for != nullptr) {
      if (std::holds_alternative<std::monostate>(value)) value = spec.null_stands_for(*this);
      if (std::holds_alternative<std::monostate>(fallback)) fallback = spec.null_stands_for(*this);
    }
    if (spec.per_dimension) {
      value = OneIfAllEqual(std::move(value));
      fallback = OneIfAllEqual(std::move(fallback));
    }
    if (!all && value == fallback) continue;
    if (spec.nested != nullptr) {
      const std::string kind = spec.nested->echo_kind ? spec.nested->kind : "";
      out.emplace_back(spec.name,
                       std::holds_alternative<std::monostate>(value)
                           ? NestedDefinition("")
                           : NestedDefinition(kind, {}, NestedSet(spec.name).Values(all)));
      continue;
    }
    if (std::holds_alternative<std::monostate>(value)) {
      if (spec.null_echo == OptionSpec::NullEcho::kOmitted) continue;
      if (spec.null_echo == OptionSpec::NullEcho::kTypedNull) value = TypedNull(spec.type);
    }
    out.emplace_back(spec.name, std::move(value));
  }
  return out;
}

}  // namespace kscope::nn
