// Module definitions and options between k and C++, as ktorch writes them.
//
// A definition: `relu, `relu`name, (`linear;64;10), (`linear;`name;64;10;`bias;0b), options as a
// trailing dictionary, enlist(defn); a tree: (head; enlist child1; enlist child2; ..) as seq()
// builds it; or depth-value pairs ((0;`sequential);(1;(`linear;64;10));(1;`relu)). Options come
// back as a symbol -> value dictionary. A file handle (`:path) after the kind is an option value
// (`torchscript`:m.pt, (`torchscript;`:m.pt)), never a name. Errors: kscope::Error naming `fn`.
// Arguments borrowed.
#ifndef KSCOPE_Q_CONVERT_K_DEFINITION_H_
#define KSCOPE_Q_CONVERT_K_DEFINITION_H_

#include <string>
#include <vector>

#include "absl/functional/function_ref.h"

#include "api/nn/loss.h"
#include "api/nn/module.h"
#include "api/nn/options.h"
#include "q/convert/k_abi.h"

namespace kscope::q {

// An option value from k: a long/int/short atom, boolean, real/float, symbol, long list,
// float list, symbol list, string (text, e.g. a callback's function), `::`, or tensors by name:
// (`x;values), (`x`y;(values;values)) or `x`y!(values;values).
nn::OptionValue OptionFromK(const char* fn, kabi::K x);
kabi::K KFromOption(const nn::OptionValue& v);
kabi::K KFromOptions(const nn::NamedValues& options);
// Item j of a list of option values: a general list, or the simple list q (or CollapseAtoms)
// made of it when every value is an atom of one type.
nn::OptionValue OptionFromListAt(const char* fn, kabi::K values, long long j);
// A kind and its options as ktorch shows a loss or a nested module: `module`options!(kind;options).
kabi::K KFromKindAndOptions(const std::string& kind, const nn::NamedValues& options);
// `loss l`'s dictionary `module`options.
kabi::K KFromLossDescription(const LossDescription& d);
// The same dictionary read back (error "loss: no `module in the loss dictionary", ...).
LossDescription LossDescriptionFromK(kabi::K d);
// How an option's value is read from k: given the option's name ("" for a positional value
// past the kind's options) and the item.
using OptionReader = absl::FunctionRef<nn::OptionValue(const std::string& option, kabi::K item)>;

// An options dictionary (name -> value, as KFromOptions makes it) back as named values, each
// read by OptionFromK, or by `read`.
nn::NamedValues OptionsFromDictionary(const char* fn, kabi::K d);
nn::NamedValues OptionsFromDictionary(const char* fn, kabi::K d, OptionReader read);
// A module kind's options dictionary: the options that take a definition (encoder's
// `encoderlayer, api/nn/options.h's Nested) read as one — (`kind;options..), options alone,
// a dictionary of options or `module`options!(kind;options) — the others by OptionFromK.
nn::NamedValues ModuleOptionsFromDictionary(const std::string& kind, kabi::K d);

// Positional options then name-value pairs (a symbol naming one of `names` starts the pairs;
// a pair may also be one item, (`name;value) as `name,value makes it, or `name`value for a
// symbol value, as ktorch reads `reduce`sum) or a trailing
// dictionary, from items [from, n) of a general list; each value read by OptionFromK, or by
// `read` (a module's definition reads its nested definitions so).
void OptionsFromK(const char* fn, kabi::K list, long long from,
                  const std::vector<std::string>& names, std::vector<nn::OptionValue>* positional,
                  nn::NamedValues* named);
void OptionsFromK(const char* fn, kabi::K list, long long from,
                  const std::vector<std::string>& names, OptionReader read,
                  std::vector<nn::OptionValue>* positional, nn::NamedValues* named);

ModuleDefinition DefinitionFromK(kabi::K x);

}  // namespace kscope::q

#endif  // KSCOPE_Q_CONVERT_K_DEFINITION_H_
