// symbols.h — the interning table behind ss, sn and ks.
//
// Interned texts live for the whole process at stable addresses: the pointer for a text is unique,
// so pointer equality is symbol equality, as in q. ss("") is the null symbol. setm(1) is recorded;
// interning on a thread other than the main one before setm(1) is reported (q requires the
// locked symbol table for that).
//
// Thread-safety: safe from any thread (one mutex).
#ifndef KSCOPE_TESTS_KHOST_SYMBOLS_H_
#define KSCOPE_TESTS_KHOST_SYMBOLS_H_

#include "absl/strings/string_view.h"

namespace khost {

// True if p is a pointer ss/sn/ks returned (the only pointers a symbol may hold).
bool IsInterned(const char* p);

namespace internal {
// The unique stable pointer for `text`, without the thread check of ss/sn.
char* Intern(absl::string_view text);
}  // namespace internal

}  // namespace khost

#endif  // KSCOPE_TESTS_KHOST_SYMBOLS_H_
