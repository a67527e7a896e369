// FailureText — the message of an exception thrown by c10d or gloo, without the C++ backtrace
// libtorch 1.13 appends to c10::Error, for kscope::Error texts that name the failing function.
#ifndef KSCOPE_API_DISTRIBUTED_FAILURE_TEXT_H_
#define KSCOPE_API_DISTRIBUTED_FAILURE_TEXT_H_

#include <exception>
#include <string>

#include <c10/util/Exception.h>

namespace kscope::distributed {

inline std::string FailureText(const std::exception& e) {
  if (const auto* c = dynamic_cast<const c10::Error*>(&e)) return c->what_without_backtrace();
  return e.what();
}

}  // namespace kscope::distributed

#endif  // KSCOPE_API_DISTRIBUTED_FAILURE_TEXT_H_
