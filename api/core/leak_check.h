// LeakCheck — a checkpoint for leak-checking harnesses: which handles created since it was
// taken are still alive (with their obj[] rows: class, device, size, the creating call, the
// owning scope), and which scopes this thread opened since are still open.
//
//   kscope::LeakCheck check;              // the checkpoint
//   RunTheCodeUnderTest();
//   if (!check.Clean()) {
//     std::cerr << check.Report();        // what was left behind, one obj row per handle
//     check.Release();                    // close those scopes, free those handles
//   }
//
// A checkpoint is the highest handle id issued when it was taken (ids are never reused), so it
// sees handles created by every thread since; scopes it sees only on the thread that took it.
// kscope::testing (testing/gtest_leak_check.h) runs one around every GoogleTest test; q's
// `leaks` (q/kscope.q's .kscope.leaks) is the same check from q.
//
// Errors: none of its own; Release() skips handles another thread freed meanwhile.
// Thread-safety: Leaks()/Report() may run on any thread, concurrently with other threads'
// calls; ScopesLeftOpen()/Release() act on the calling thread's scope stack and are meant for
// the thread that took the checkpoint.
#ifndef KSCOPE_API_CORE_LEAK_CHECK_H_
#define KSCOPE_API_CORE_LEAK_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "api/core/pointer.h"

namespace kscope {

class LeakCheck {
 public:
  // A checkpoint now: the last handle id issued and this thread's scope depth.
  LeakCheck();
  // A checkpoint after handle id `id` (a checkpoint_id() kept elsewhere, as q keeps it in a
  // long), with no scope depth: ScopesLeftOpen() is 0 and Release() closes no scope.
  static LeakCheck After(std::uint64_t id);

  std::uint64_t checkpoint_id() const { return last_id_; }

  // The handles created since the checkpoint and alive now, in creation order.
  std::vector<ObjectRow> Leaks() const;
  // How many scopes this thread opened since the checkpoint are still open.
  int ScopesLeftOpen() const;
  bool Clean() const { return ScopesLeftOpen() == 0 && Leaks().empty(); }
  // The bytes the leaked handles hold (obj[]'s bytes), per device, devices in the order their
  // first leaked handle was created.
  static std::vector<std::pair<std::string, std::int64_t>> BytesByDevice(
      const std::vector<ObjectRow>& leaks);
  // Empty when clean; else the scopes left open, the leaked handles' obj rows (FormatObjects),
  // each row's owner named (the root, a scope of this thread, or of another), and the bytes
  // they hold per device ("bytes left: cpu 4096, cuda:0 1048576").
  std::string Report() const;
  // Closes this thread's scopes opened since the checkpoint (releasing what they own), then
  // frees the leaked handles left; returns how many leaked handles it found (all gone after).
  std::size_t Release();

 private:
  LeakCheck(std::uint64_t last_id, int depth) : last_id_(last_id), depth_(depth) {}

  std::uint64_t last_id_;
  int depth_;  // this thread's scope depth at the checkpoint; -1: not tracked
};

// "cpu 4096, cuda:0 1048576": LeakCheck::BytesByDevice's result as text.
std::string BytesText(const std::vector<std::pair<std::string, std::int64_t>>& bytes);

}  // namespace kscope

#endif  // KSCOPE_API_CORE_LEAK_CHECK_H_
