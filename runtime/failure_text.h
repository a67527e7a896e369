// FailureText — the message of an exception thrown by libtorch (c10d, gloo, the TorchScript
// loader, the archive readers), without the C++ backtrace libtorch 1.13 appends to c10::Error,
// for kscope::Error texts that name the failing function. Any thread.
#ifndef KSCOPE_RUNTIME_FAILURE_TEXT_H_
#define KSCOPE_RUNTIME_FAILURE_TEXT_H_

#include <exception>
#include <string>

#include <c10/util/Exception.h>

namespace kscope {

inline std::string FailureText(const std::exception& e) {
  if (const auto* c = dynamic_cast<const c10::Error*>(&e)) return c->what_without_backtrace();
  return e.what();
}

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_FAILURE_TEXT_H_
