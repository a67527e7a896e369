// absl_mutex_annotations.cc — makes Debian's (uninstrumented) absl::Mutex visible to
// ThreadSanitizer. Linked into the test programs of a KSCOPE_SANITIZE=thread build only.
//
// Debian's libabsl_synchronization is not built with -fsanitize=thread, so the acquire and
// release inside Mutex::Lock and Mutex::Unlock are invisible to ThreadSanitizer: every access
// guarded by an absl::Mutex from two threads would be reported as a race. This file defines
// the Mutex methods kscope and the k host use in the executable, where they take precedence
// over the shared library's (ELF interposition: the programs export their symbols, so the
// dlopen'd plugin binds to these too); each calls the library's own method, found with
// dlsym(RTLD_NEXT), between ThreadSanitizer's mutex annotations. Locking itself is unchanged.
// Methods not defined here (LockWhen, Await, CondVar) are used by neither; a program that used
// them would see reports naming them.
#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/base/options.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace {

#define KSCOPE_TSAN_STRING(x) #x
#define KSCOPE_TSAN_EXPAND(x) KSCOPE_TSAN_STRING(x)

// The mangled name of absl::Mutex::<method>() in the library's inline namespace.
std::string MangledName(const std::string& method) {
#if ABSL_OPTION_USE_INLINE_NAMESPACE
  const std::string inline_namespace = KSCOPE_TSAN_EXPAND(ABSL_OPTION_INLINE_NAMESPACE_NAME);
  const std::string absl_namespace =
      absl::StrCat("4absl", inline_namespace.size(), inline_namespace);
#else
  const std::string absl_namespace = "4absl";
#endif
  return absl::StrCat("_ZN", absl_namespace, "5Mutex", method.size(), method, "Ev");
}

// The shared library's definition of absl::Mutex::<method>(); aborts if there is none.
template <typename Function>
Function LibraryMethod(const std::string& method) {
  void* address = ::dlsym(RTLD_NEXT, MangledName(method).c_str());
  if (address == nullptr) {
    std::fprintf(stderr, "tsan/absl_mutex_annotations: absl::Mutex::%s not found\n",
                 method.c_str());
    std::abort();
  }
  return reinterpret_cast<Function>(address);
}

using VoidMethod = void (*)(absl::Mutex*);
using BoolMethod = bool (*)(absl::Mutex*);

}  // namespace

void absl::Mutex::Lock() {
  static const VoidMethod library = LibraryMethod<VoidMethod>("Lock");
  __tsan_mutex_pre_lock(this, 0);
  library(this);
  __tsan_mutex_post_lock(this, 0, 0);
}

void absl::Mutex::Unlock() {
  static const VoidMethod library = LibraryMethod<VoidMethod>("Unlock");
  __tsan_mutex_pre_unlock(this, 0);
  library(this);
  __tsan_mutex_post_unlock(this, 0);
}

bool absl::Mutex::TryLock() {
  static const BoolMethod library = LibraryMethod<BoolMethod>("TryLock");
  __tsan_mutex_pre_lock(this, __tsan_mutex_try_lock);
  const bool locked = library(this);
  __tsan_mutex_post_lock(this, __tsan_mutex_try_lock | (locked ? 0 : __tsan_mutex_try_lock_failed),
                         0);
  return locked;
}

void absl::Mutex::ReaderLock() {
  static const VoidMethod library = LibraryMethod<VoidMethod>("ReaderLock");
  __tsan_mutex_pre_lock(this, __tsan_mutex_read_lock);
  library(this);
  __tsan_mutex_post_lock(this, __tsan_mutex_read_lock, 0);
}

void absl::Mutex::ReaderUnlock() {
  static const VoidMethod library = LibraryMethod<VoidMethod>("ReaderUnlock");
  __tsan_mutex_pre_unlock(this, __tsan_mutex_read_lock);
  library(this);
  __tsan_mutex_post_unlock(this, __tsan_mutex_read_lock);
}
