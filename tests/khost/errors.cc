// errors.cc — krr, orr, ee and the thread-local pending error.
#include "tests/khost/errors.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/strings/str_format.h"
#include "tests/khost/heap.h"
#include "tests/khost/report.h"
#include "tests/khost/symbols.h"
#include "tests/khost/validate.h"

namespace khost {
namespace {

thread_local std::optional<internal::PendingMessage> pending;

bool IsReserved(absl::string_view message) {
  return message == "stop" || message == "abort" || message == "stack";
}

}  // namespace

std::optional<std::string> PendingError() {
  if (!pending) return std::nullopt;
  return pending->copy;
}

void ClearError() { pending.reset(); }

namespace internal {

std::optional<PendingMessage> TakePending() { return std::exchange(pending, std::nullopt); }

kabi::K MakeError(absl::string_view message) {
  kabi::K x = Allocate(kabi::kError, 0);
  x->s = Intern(message);
  return x;
}

kabi::K Fail(absl::string_view message) { return kabi::krr(Intern(message)); }

}  // namespace internal
}  // namespace khost

kabi::K kabi::krr(const char* message) {
  if (message == nullptr) {
    khost::Emit(khost::Check::kBadPointer, "krr(NULL)");
    message = "";
  }
  if (khost::IsReserved(message)) {
    khost::Emit(khost::Check::kReservedMessage,
                absl::StrFormat("krr(\"%s\"): q reserves this message", message));
  }
  khost::pending = khost::internal::PendingMessage{message, message};
  return nullptr;
}

kabi::K kabi::orr(const char* message) {
  const int error = errno;
  thread_local char buffer[256];
  std::snprintf(buffer, sizeof buffer, "%s. OS reports: %s", message == nullptr ? "" : message,
                std::strerror(error));
  return krr(buffer);
}

kabi::K kabi::ee(K x) {
  if (x != nullptr) {
    khost::internal::CheckEntry(x, "ee", khost::internal::kAllowError);
    return x;
  }
  std::optional<khost::internal::PendingMessage> message = khost::internal::TakePending();
  if (!message) return nullptr;
  return khost::internal::MakeError(message->copy);
}
