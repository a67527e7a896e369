// census.h — leak and ownership accounting over the live objects.
//
// After every plugin call (apply.h) the host sweeps the objects allocated during the call: one
// that is still alive, is not the result and is held by no live container has leaked. A call
// allocates on its caller's thread, so the sweep looks at that thread's objects only: calls
// running on several threads at once neither see nor read each other's objects. Objects
// the plugin deliberately keeps (caches) look the same; a test excuses them with an
// AllowRetained guard, which counts them in Stats().retained instead of reporting them. The same
// sweep checks over-ownership: no object may sit in more container slots than r + 1 allows
// (the sign of a reference handed to knk/jk/xD twice without r1); each object is reported once.
//
// LeakScope checks a stretch of test code: every object allocated while it lives must be freed
// by its end.
//
// Thread-safety: safe from any thread; a sweep sees other threads' objects as they are.
#ifndef KSCOPE_TESTS_KHOST_CENSUS_H_
#define KSCOPE_TESTS_KHOST_CENSUS_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "q/convert/k_abi.h"

namespace khost {

// While one lives (on any thread), unreachable objects found by sweeps count as retained.
class AllowRetained {
 public:
  AllowRetained();
  ~AllowRetained();
  AllowRetained(const AllowRetained&) = delete;
  AllowRetained& operator=(const AllowRetained&) = delete;
};

// Reports (check kLeak) every object allocated during its lifetime and still alive at its end
// (the roots only: the items of a leaked list are not reported again).
class LeakScope {
 public:
  LeakScope();
  ~LeakScope();
  LeakScope(const LeakScope&) = delete;
  LeakScope& operator=(const LeakScope&) = delete;

  // Objects allocated since construction and alive now.
  std::int64_t Leaked() const;

 private:
  std::uint64_t since_;
};

namespace internal {
// The sweep run after a plugin call: objects the calling thread allocated after serial `since`,
// `result` excepted.
void SweepAfterCall(std::uint64_t since, kabi::K result, absl::string_view name);
}  // namespace internal

}  // namespace khost

#endif  // KSCOPE_TESTS_KHOST_CENSUS_H_
