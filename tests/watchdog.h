// Watchdog — ends the test program when a stretch of test code has not finished within a
// limit, so that a deadlock fails the run with the stretch's name instead of hanging CI.
//
// It is not a timing assertion: the limit is minutes, far beyond any healthy run, even under
// ThreadSanitizer on a loaded 2-vCPU machine. On expiry it prints what did not finish and calls
// std::abort() (a deadlocked test cannot be failed any other way).
//
// Ownership: the guard owns one thread, joined by its destructor. It uses std::mutex and
// std::condition_variable rather than absl's: ThreadSanitizer understands those natively, and
// absl::Notification's timed wait locks inside Debian's uninstrumented Abseil, which
// tests/tsan/absl_mutex_annotations.cc does not cover.
// Thread-safety: construct and destroy on one thread.
#ifndef KSCOPE_TESTS_WATCHDOG_H_
#define KSCOPE_TESTS_WATCHDOG_H_

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace kscope::testing {

class Watchdog {
 public:
  explicit Watchdog(std::string what, std::chrono::seconds limit = std::chrono::minutes(10))
      : what_(std::move(what)), thread_([this, limit] { Watch(limit); }) {}
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      finished_ = true;
    }
    finished_changed_.notify_all();
    thread_.join();
  }

 private:
  void Watch(std::chrono::seconds limit) {
    std::unique_lock<std::mutex> lock(mu_);
    if (finished_changed_.wait_for(lock, limit, [this] { return finished_; })) return;
    std::fprintf(stderr, "watchdog: %s has not finished after %lld s (a deadlock?); aborting\n",
                 what_.c_str(), static_cast<long long>(limit.count()));
    std::abort();
  }

  const std::string what_;
  std::mutex mu_;
  std::condition_variable finished_changed_;
  bool finished_ = false;  // guarded by mu_
  std::thread thread_;     // last: starts after the members it reads
};

}  // namespace kscope::testing

#endif  // KSCOPE_TESTS_WATCHDOG_H_
