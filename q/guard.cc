#include "q/guard.h"

#include <cstring>

namespace kscope::q {
namespace {

constexpr std::size_t kErrorBufferSize = 4096;

}  // namespace

kabi::K Signal(const char* message) {
  thread_local char buffer[kErrorBufferSize];
  std::strncpy(buffer, message, kErrorBufferSize - 1);
  buffer[kErrorBufferSize - 1] = '\0';
  return kabi::krr(buffer);
}

}  // namespace kscope::q
