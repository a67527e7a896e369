// builtins.h — the q primitives the host implements natively, for k(0, ...) and the parser:
// enlist, match (~), cast ($) and write-bytes (1:), plus item access.
//
// All take borrowed arguments and return an owned object; Cast and WriteBytes return 0 with the
// error pending (krr) on bad input, like a plugin function.
//
// Thread-safety: safe from any thread.
#ifndef KSCOPE_TESTS_KHOST_BUILTINS_H_
#define KSCOPE_TESTS_KHOST_BUILTINS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "q/convert/k_abi.h"
#include "tests/khost/kref.h"

namespace khost {

// Deep match, q's `~`: same types, counts and items (nulls match nulls; symbols by pointer).
bool Match(kabi::K a, kabi::K b);

// Where `1:` writes the q path `q_path` (e.g. ":file.pt"): the same relative path under a
// temporary directory the host creates on first use and removes at exit.
std::string TempPath(absl::string_view q_path);

namespace internal {

// Item i of a vector as an atom (a general list's item with r1).
kabi::K ItemAtom(kabi::K x, std::int64_t i);
// q's `enlist`: an atom becomes a 1-item vector of its type, a dictionary with symbol keys a
// 1-row table, anything else a 1-item general list.
kabi::K Enlist(kabi::K x);
// A list of the items, taken over; same-typed atoms become a vector of that type, as q's
// (1;2;3) is 1 2 3.
kabi::K Collapse(std::vector<KRef> items);
// q's `t$x` for basic types: t is a type number (short/int/long), a type letter (char) or a type
// name (symbol); x a number, boolean, char or symbol atom or list.
kabi::K Cast(kabi::K type, kabi::K x);
// q's `path 1: data`: writes the raw items of a simple vector to TempPath(path); returns the path.
kabi::K WriteBytes(kabi::K path, kabi::K data);

}  // namespace internal
}  // namespace khost

#endif  // KSCOPE_TESTS_KHOST_BUILTINS_H_
