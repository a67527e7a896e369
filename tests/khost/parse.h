// parse.h — kq::Parse, a literal-only q parser, so q text (seed transcripts) can be pasted into
// tests.
//
// Accepted: atoms and vectors of the basic types with their suffixes (1 2 3, 1 2 3f, 1 2 3e, 1h,
// 1i, 0101b, 0x0102, `a`b, "str", "c", 0N 0n 0w -0w 0W 0Ni 0Nh ..., 2000.01.01, 2000.01m,
// 2000.01.01D12:00:00.000000001, 2000.01.01T12:00:00.000, 0D00:00:01.5, 12:30, 12:30:15,
// 12:30:15.250), (a;b;...) (a list of same-typed atoms becomes a vector, as in q), (), ::,
// ,x and enlist x, k!v, flip x and +x of a dictionary, table literals ([] a:1 2; b:`x`y) and
// ([k:1 2] v:3 4), and `s# `u# `p# `g# attribute prefixes. Nothing is evaluated: no verbs, names
// or functions.
//
// Thread-safety: as the C API.
#ifndef KSCOPE_TESTS_KHOST_PARSE_H_
#define KSCOPE_TESTS_KHOST_PARSE_H_

#include "absl/strings/string_view.h"
#include "q/convert/k_abi.h"

namespace kq {

// A new object (owned by the caller) for the literal `text`. Throws std::invalid_argument,
// naming the offset, on anything else.
kabi::K Parse(absl::string_view text);

}  // namespace kq

#endif  // KSCOPE_TESTS_KHOST_PARSE_H_
