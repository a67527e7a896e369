// abi_extras.h — C API functions q exports that q/k_abi.h does not declare.
//
// The host implements them too, so a plugin that uses them still binds: guid atoms, the
// va_list forms of k and knk, the build date and heap coalescing. Declared in namespace kabi with
// C linkage, exactly like q/k_abi.h's functions.
#ifndef KSCOPE_TESTS_KHOST_ABI_EXTRAS_H_
#define KSCOPE_TESTS_KHOST_ABI_EXTRAS_H_

#include <cstdarg>

#include "q/k_abi.h"

namespace kabi {

// A guid, passed by value (16 bytes).
struct GuidValue {
  unsigned char g[16];
};

extern "C" {
K ku(GuidValue);                                     // guid atom (type -2)
K vak(int handle, const char* expression, va_list);  // k with a va_list of K args
K vaknk(int n, va_list);                             // knk with a va_list
int ver();                                           // build date, yyyymmdd
long long gc(long long);                             // heap coalesce: returns bytes released
}

}  // namespace kabi

#endif  // KSCOPE_TESTS_KHOST_ABI_EXTRAS_H_
