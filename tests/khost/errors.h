// errors.h — the pending-error state behind krr, orr and ee.
//
// krr(s) records, for the calling thread, both the pointer s (all q keeps) and a copy of its text,
// then returns 0. After a plugin call the host compares the two: a mismatch means the message
// was not in stable storage. ee(0) turns the pending error into a -128 object (its text interned,
// so it stays valid) and clears it. krr("stop"), krr("abort") and krr("stack") are reported:
// q reserves them.
//
// Thread-safety: the state is thread-local.
#ifndef KSCOPE_TESTS_KHOST_ERRORS_H_
#define KSCOPE_TESTS_KHOST_ERRORS_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "q/convert/k_abi.h"

namespace khost {

// The calling thread's pending error text (from krr/orr), if any.
std::optional<std::string> PendingError();
void ClearError();

namespace internal {

struct PendingMessage {
  const char* pointer;  // what the plugin passed to krr
  std::string copy;     // its text when krr was called
};
// Takes (and clears) the calling thread's pending error.
std::optional<PendingMessage> TakePending();
// A new -128 object with the (interned) message.
kabi::K MakeError(absl::string_view message);
// Sets the pending error to an interned copy of `message` and returns 0, like krr.
kabi::K Fail(absl::string_view message);

}  // namespace internal
}  // namespace khost

#endif  // KSCOPE_TESTS_KHOST_ERRORS_H_
