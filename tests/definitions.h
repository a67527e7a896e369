// Module definitions written briefly in tests: J (a long), Js (a long list), Sym (a symbol),
// Nest (a definition as an option's value), Def (a definition) and Sequential (a sequential of
// children). Plain value constructors; thread-compatible.
#ifndef KSCOPE_TESTS_DEFINITIONS_H_
#define KSCOPE_TESTS_DEFINITIONS_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "api/nn/module.h"
#include "api/nn/options.h"

namespace kscope::testing {

inline nn::OptionValue J(std::int64_t v) { return v; }
inline nn::OptionValue Js(std::initializer_list<std::int64_t> v) {
  return std::vector<std::int64_t>(v);
}
inline nn::OptionValue Sym(const char* s) { return std::string(s); }
// A definition as an option's value (an encoder's layer): nn::NestedDefinition.
inline nn::OptionValue Nest(std::string kind, std::vector<nn::OptionValue> positional = {},
                            nn::NamedValues named = {}) {
  return nn::NestedDefinition(std::move(kind), std::move(positional), std::move(named));
}

inline ModuleDefinition Def(std::string kind, std::vector<nn::OptionValue> positional = {},
                            nn::NamedValues named = {}) {
  return ModuleDefinition{std::move(kind), "", std::move(positional), std::move(named), {}};
}

// A sequential container of `children`.
inline ModuleDefinition Sequential(std::vector<ModuleDefinition> children) {
  ModuleDefinition d = Def("sequential");
  d.children = std::move(children);
  return d;
}

}  // namespace kscope::testing

#endif  // KSCOPE_TESTS_DEFINITIONS_H_
