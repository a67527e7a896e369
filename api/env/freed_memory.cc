#include "api/env/freed_memory.h"

#include <cstdlib>
#include <cstring>

#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

namespace kscope {
namespace {

constexpr int kMib = 1 << 20;
constexpr int kLargestHeapBlock = 32 * kMib;  // glibc's largest mmap threshold on 64 bits
constexpr int kKeptHeapTop = 128 * kMib;

bool TurnedOffByEnvironment() {
  const char* setting = std::getenv("KSCOPE_KEEP_FREED_MEMORY");
  return setting != nullptr && std::strcmp(setting, "0") == 0;
}

bool SetThresholds() {
  if (TurnedOffByEnvironment()) return false;
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
  return mallopt(M_MMAP_THRESHOLD, kLargestHeapBlock) == 1 &&
         mallopt(M_TRIM_THRESHOLD, kKeptHeapTop) == 1;
#else
  return false;
#endif
}

}  // namespace

bool keep_freed_memory() {
  static const bool kept = SetThresholds();
  return kept;
}

}  // namespace kscope
