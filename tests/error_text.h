// ErrorOf(f) — the message of the exception f throws, or "no error": lets tests compare
// kscope's and libtorch's error texts exactly.
#ifndef KSCOPE_TESTS_ERROR_TEXT_H_
#define KSCOPE_TESTS_ERROR_TEXT_H_

#include <exception>
#include <functional>
#include <string>

namespace kscope::testing {

inline std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace kscope::testing

#endif  // KSCOPE_TESTS_ERROR_TEXT_H_
