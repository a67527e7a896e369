// The target of a q call that changes tensors in place (q/nn/init_fns.cc's zeros ones fill ...,
// q/tensor/random_fns.cc's normal uniform ...): f(x;[sel;]options..).
//
// x is a tensor, vector, dictionary, module or model pointer, or k data (then a copy is
// changed and returned as k data). sel selects the tensors changed: vector indices (integers)
// or dictionary keys / module parameter and buffer names (symbols). Item 1 is read as sel when
// x is a pointer of a class that takes it, the item is of the right type (a symbol atom only
// when it is not one of the function's option symbols), and at least `required` items still
// follow it; otherwise item 1 is the first option. Errors name the function (Args' messages).
#ifndef KSCOPE_Q_CONVERT_FILL_TARGET_H_
#define KSCOPE_Q_CONVERT_FILL_TARGET_H_

#include <cstddef>
#include <string>

#include "api/nn/init.h"
#include "q/convert/args.h"

namespace kscope::q {

struct FillTarget {
  init::Target target;
  std::size_t options;  // the index of the first option
  bool data;            // k data given: the result is the changed copy
};

// `required`: how many option items must follow a selection; `is_option`: whether a symbol
// atom at item 1 is one of the function's options rather than a name.
FillTarget FillTargetOf(const Args& a, std::size_t required, bool (*is_option)(const std::string&));

// The is_option of a function that takes no option symbols: every symbol atom is a name.
bool NoOptionSymbols(const std::string& symbol);

}  // namespace kscope::q

#endif  // KSCOPE_Q_CONVERT_FILL_TARGET_H_
