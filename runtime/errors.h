// kscope::Error — the exception kscope throws for bad input and misuse.
//
// Contract: every kscope function that rejects its input throws kscope::Error whose message
// names the function and what it expected (ktorch's texts where ktorch has one). Errors from
// libtorch itself pass through unchanged as c10::Error. A function that throws leaves every
// handle as it was. Thread-safe: the helpers keep no state.
#ifndef KSCOPE_RUNTIME_ERRORS_H_
#define KSCOPE_RUNTIME_ERRORS_H_

#include <stdexcept>
#include <string>

#include "absl/strings/str_format.h"

namespace kscope {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ktorch's text for a handle that was freed, consumed or never existed.
inline constexpr char kStalePointer[] = "stale pointer";

// Throws kscope::Error with the given text.
[[noreturn]] void Fail(std::string message);

// Throws kscope::Error with an absl::StrFormat message.
template <typename... Args>
[[noreturn]] void Fail(const absl::FormatSpec<Args...>& format, const Args&... args) {
  Fail(absl::StrFormat(format, args...));
}

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_ERRORS_H_
