// Options of modules, losses and optimizers as ktorch defines them: each kind declares its
// options (name, type, default) in order; a definition gives them positionally (skipping those
// given by name only), then by name;
// a query gives them back under the same names, all of them or only those that differ from
// the default.
//
// Errors (kscope::Error, naming the kind): too many positional values, an unknown or repeated
// name, a value of the wrong type, a required option left out. Parse changes nothing on error.
// OptionSet is a plain value type; thread-compatible.
#ifndef KSCOPE_API_NN_OPTIONS_H_
#define KSCOPE_API_NN_OPTIONS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <ATen/core/Tensor.h>

#include "absl/types/span.h"

namespace kscope::nn {

// Tensors by name (a callback's `parms and `buffers); equal when the names and the values are.
struct NamedTensors {
  std::vector<std::string> names;
  std::vector<at::Tensor> tensors;
};
bool operator==(const NamedTensors& a, const NamedTensors& b);
inline bool operator!=(const NamedTensors& a, const NamedTensors& b) { return !(a == b); }

struct NestedOptions;

// A definition given as an option's value, as ktorch's encoder takes its layer (`encoderlayer,
// `layernorm) and its transformer a custom `encoder: the NestedOptions below. Equal when they are.
struct Nested {
  std::shared_ptr<const NestedOptions> definition;
};
bool operator==(const Nested& a, const Nested& b);
inline bool operator!=(const Nested& a, const Nested& b) { return !(a == b); }

// A null option (ktorch's `::`), a boolean, a long, a double, a symbol (or text), a list of
// longs, a list of doubles (e.g. class weights), a list of symbols, tensors by name, or a nested
// definition.
using OptionValue =
    std::variant<std::monostate, bool, std::int64_t, double, std::string, std::vector<std::int64_t>,
                 std::vector<double>, std::vector<std::string>, NamedTensors, Nested>;

using NamedValues = std::vector<std::pair<std::string, OptionValue>>;

// What a Nested holds: the kind the definition names ("" when it gives only options, as
// (512;8), 512 8 or `in`heads!512 8 do), then its options positionally and by name. After
// OptionSet::Parse: the kind the option makes and all of its options by name.
struct NestedOptions {
  std::string kind;
  std::vector<OptionValue> positional;
  NamedValues named;
};
// A nested definition of `kind` ("" for options only).
OptionValue NestedDefinition(std::string kind, std::vector<OptionValue> positional = {},
                             NamedValues named = {});

enum class OptionType {
  kBool,
  kLong,
  kDouble,  // a long is accepted and widened
  kSymbol,
  kLongs,          // a long list; a single long is accepted as a 1-item list
  kLongOrNull,     // a long, or null (q's 0N too)
  kDoubleOrNull,   // a double (a long is widened), or null (q's 0n too)
  kDoublesOrNull,  // a list of doubles (longs are widened; an atom is a 1-item list), or null
  kSymbolOrNull,
  kLongsOrNull,    // as kLongs, or null
  kLongsOrSymbol,  // as kLongs, or a symbol (e.g. a convolution's pad: `same, `valid)
  kSymbols,        // a symbol list; a single symbol is accepted as a 1-item list
  kNamedTensors,   // tensors by name; null is accepted as none
  // A definition of OptionSpec::nested's kind: a Nested naming that kind or none, or numbers
  // standing for its first options (16 -> (16), 16 4 -> (16;4)); null, or an empty Nested, is
  // none unless the option is required. Values echoes none as an empty Nested (ktorch's empty
  // dictionary).
  kNested,
};

class OptionSet;
struct OptionSpec;

// The kind a kNested option's definition makes and that kind's options (static tables).
struct NestedKind {
  const char* kind;
  absl::Span<const OptionSpec> (*options)();
  // How OptionSet::Values echoes the definition: `module`options!(kind;options), as ktorch's
  // transformer shows a custom encoder, or the options alone, as its encoder shows its layer.
  bool echo_kind = false;
};

struct OptionSpec {
  const char* name;
  OptionType type;
  OptionValue fallback;   // the default; std::monostate for "none"
  bool required = false;  // must be given (no default)
  // A per-dimension option (libtorch's ExpandingArray: a kernel size, stride, padding..): one
  // number stands for every dimension, and OptionSet::Values gives one number when every
  // dimension has the same value, as ktorch echoes it (conv2d `size 3 3 -> 3).
  bool per_dimension = false;
  // When set, what a null value stands for, given the other options (a pool's `stride: its
  // `size; lbfgs's `eval: iter*5/4): OptionSet::Values gives it, and counts it as the default.
  OptionValue (*null_stands_for)(const OptionSet& options) = nullptr;
  // How OptionSet::Values echoes a null that stands for nothing else, as ktorch does for the
  // option: `::`, q's typed null (0N for a long, 0n for a double: embed's `padindex), or not
  // at all (lbfgs's `search).
  enum class NullEcho { kNull, kTypedNull, kOmitted } null_echo = NullEcho::kNull;
  // For a kNested option: the kind its definition makes.
  const NestedKind* nested = nullptr;
  // Given by name only: positional values fill the options around it (ktorch's embedbag reads
  // `padindex at position 7 and `lastoffset only by name, yet shows `lastoffset first).
  bool by_name_only = false;
};

class OptionSet {
 public:
  // Checks positional then named values against `specs` (which outlive the set).
  static OptionSet Parse(const std::string& kind, absl::Span<const OptionSpec> specs,
                         const std::vector<OptionValue>& positional, const NamedValues& named);

  // The kind the options belong to, for messages.
  const std::string& kind() const { return kind_; }
  // The value of option `name`, whatever its type. The typed readers below throw kscope::Error
  // naming the kind and option for a name the kind does not declare or a value of another type.
  const OptionValue& At(const char* name) const;
  bool IsNull(const char* name) const;
  bool Bool(const char* name) const;
  std::int64_t Long(const char* name) const;
  double Double(const char* name) const;
  const std::string& Symbol(const char* name) const;
  const std::vector<std::int64_t>& Longs(const char* name) const;
  const std::vector<double>& Doubles(const char* name) const;
  const std::vector<std::string>& Symbols(const char* name) const;
  const NamedTensors& Tensors(const char* name) const;
  // The options of kNested option `name`'s definition (the option must not be null).
  OptionSet NestedSet(const char* name) const;

  // The options in declaration order, as ktorch echoes them (see OptionSpec): all of them, or
  // only those that differ from the default (within a nested definition too).
  NamedValues Values(bool all) const;

 private:
  OptionSet(std::string kind, absl::Span<const OptionSpec> specs, std::vector<OptionValue> values)
      : kind_(std::move(kind)), specs_(specs), values_(std::move(values)) {}
  template <typename T>
  const T& Typed(const char* name, const char* wanted) const;

  std::string kind_;
  absl::Span<const OptionSpec> specs_;
  std::vector<OptionValue> values_;  // one per spec
};

// The option names of a kind, in declaration order.
std::vector<std::string> OptionNames(absl::Span<const OptionSpec> specs);

// An option value as libtorch's printouts show one: true/false, numbers, names, [a, b], None.
std::string OptionText(const OptionValue& value);
// Options as `name=value, name=value`.
std::string OptionsText(const NamedValues& values);

// ktorch's name for an option type in messages: "boolean", "long", "double", "symbol", ...
const char* TypeName(OptionType type);

}  // namespace kscope::nn

#endif  // KSCOPE_API_NN_OPTIONS_H_
