// Guard — the boundary between C++ and q. Every exported function runs its body through
// Guard, so no C++ exception reaches q: c10::Error (libtorch's message, with its C++ backtrace
// only under setting(`stackframe;1b)), std::exception and anything else become a q error
// signalled with krr. The message is copied into a thread-local buffer, because q reads it
// after the function returns.
#ifndef KSCOPE_Q_GUARD_H_
#define KSCOPE_Q_GUARD_H_

#include <exception>

#include <c10/util/Exception.h>

#include "q/convert/k_abi.h"
#include "q/env/settings.h"

namespace kscope::q {

// Signals `message` as a q error: copies it to this thread's error buffer and returns krr's 0.
kabi::K Signal(const char* message);

template <typename Body>
kabi::K Guard(Body&& body) noexcept {
  try {
    return body();
  } catch (const c10::Error& e) {
    return Signal(Stackframe() ? e.what() : e.what_without_backtrace());
  } catch (const std::exception& e) {
    return Signal(e.what());
  } catch (...) {
    return Signal("unknown C++ exception");
  }
}

}  // namespace kscope::q

#endif  // KSCOPE_Q_GUARD_H_
