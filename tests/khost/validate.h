// validate.h — the checks the host applies to objects it is given.
//
// CheckEntry is the shallow check at every API entry: NULL, foreign pointers, freed or
// join-moved objects (use after r0; double r0 when the API is r0), the async sentinel, and -128
// error objects where only r0 may take them. ValidateTree is the deep check at plugin
// boundaries (arguments and results): it walks the object graph and reports unfilled slots,
// non-interned symbols, malformed dictionaries and tables, and freed or foreign children.
//
// Thread-safety: safe from any thread; reading an object being mutated concurrently is the
// caller's race, as in q.
#ifndef KSCOPE_TESTS_KHOST_VALIDATE_H_
#define KSCOPE_TESTS_KHOST_VALIDATE_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "q/convert/k_abi.h"

namespace khost::internal {

enum EntryFlags : int {
  kAllowNull = 1,   // NULL is not reported (CheckEntry still returns false)
  kAllowError = 2,  // a -128 object is not misuse here
};

// Reports what is wrong with x as an argument of `api`. Returns true if x is a live block that
// the API may read (a live error object is reported unless allowed, but still usable).
bool CheckEntry(kabi::K x, absl::string_view api, int flags = 0);

// Walks the graph under x and reports every defect found, naming `where` ("argument of tensor").
// Returns true if nothing was reported.
bool ValidateTree(kabi::K x, absl::string_view where);

// The K children of a container: general-list items, a dictionary's keys and values, a table's
// dictionary. Empty for everything else. Slots may hold the unfilled poison.
absl::Span<kabi::K> Children(kabi::K x);

// q's count: items of a vector, rows of a table, keys of a dictionary, 1 for an atom.
std::int64_t Count(kabi::K x);

}  // namespace khost::internal

#endif  // KSCOPE_TESTS_KHOST_VALIDATE_H_
