// kref.h — KRef, an RAII owner of one reference to a K.
//
// KRef(x) takes over a reference the caller owns (a new object, a k() result, ...) and calls r0
// on destruction or reset. release() gives the reference back; get()/borrow() lend the object
// without changing its count; share() returns a new reference (r1) for an API that takes one
// over (knk, jk, xD, k). Move-only. Not thread-safe (like the object it holds).
#ifndef KSCOPE_TESTS_KHOST_KREF_H_
#define KSCOPE_TESTS_KHOST_KREF_H_

#include <utility>

#include "q/convert/k_abi.h"

namespace khost {

class KRef {
 public:
  KRef() = default;
  explicit KRef(kabi::K x) noexcept : x_(x) {}
  ~KRef() { reset(); }
  KRef(KRef&& other) noexcept : x_(other.release()) {}
  KRef& operator=(KRef&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  KRef(const KRef&) = delete;
  KRef& operator=(const KRef&) = delete;

  kabi::K get() const { return x_; }
  kabi::K borrow() const { return x_; }
  kabi::K share() const { return kabi::r1(x_); }
  kabi::K release() { return std::exchange(x_, nullptr); }
  void reset(kabi::K x = nullptr) {
    kabi::K old = std::exchange(x_, x);
    if (old != nullptr) kabi::r0(old);
  }
  kabi::K operator->() const { return x_; }
  explicit operator bool() const { return x_ != nullptr; }

 private:
  kabi::K x_ = nullptr;
};

}  // namespace khost

#endif  // KSCOPE_TESTS_KHOST_KREF_H_
