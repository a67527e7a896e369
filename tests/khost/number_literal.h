// number_literal.h — q's number-like literals (numbers, nulls, infinities, temporal values,
// booleans, bytes) and the strands of them that form vectors; the parser's lexical half.
//
// Thread-safety: pure functions (the result is a new object).
#ifndef KSCOPE_TESTS_KHOST_NUMBER_LITERAL_H_
#define KSCOPE_TESTS_KHOST_NUMBER_LITERAL_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/string_view.h"
#include "q/convert/k_abi.h"

namespace khost::internal {

// One token of a strand.
struct NumberToken {
  enum Kind { kValue, kNull, kPlusInf, kMinusInf };
  int type = kabi::kLong;      // positive type code
  bool explicit_type = false;  // a suffix (or a temporal or float form) fixed the type
  Kind kind = kValue;
  bool is_float = false;
  std::int64_t i = 0;  // integers and temporal values (days, ns, ms, ...)
  double f = 0;        // floats and datetimes
};

// True if `text` starts a number-like token here (a digit, or '-'/'.' followed by one).
bool StartsNumber(absl::string_view text);
// The length of the token at the start of `text` (StartsNumber must hold).
std::size_t TokenLength(absl::string_view text);
// Reads one token; nullopt if it is not a literal this parser knows.
std::optional<NumberToken> ReadNumber(absl::string_view token);
// Booleans (0101b) and bytes (0x0102) are whole vectors in one token: the object, or nullptr
// if `token` is neither.
kabi::K ReadBitsOrBytes(absl::string_view token);
// The atom (one token) or vector (several) of a strand; nullptr if the tokens do not agree.
kabi::K BuildStrand(const std::vector<NumberToken>& tokens);

}  // namespace khost::internal

#endif  // KSCOPE_TESTS_KHOST_NUMBER_LITERAL_H_
