// Out of memory: kscope::OutOfMemory, the error a kscope call raises when a device allocation
// fails inside it, and the record of the latest failed allocation that names its device and
// size.
//
// libtorch signals a failed allocation with c10::OutOfMemoryError, whose text is the
// allocator's own (CUDA's "CUDA out of memory. Tried to allocate 2.00 GiB ..."). The allocators
// record the device and the exact bytes asked for as they fail: kscope's CPU allocator
// (runtime/cpu_memory.h) always, the CUDA caching allocator through its out-of-memory observer,
// which kscope attaches once the allocator is initialised (WatchCudaOutOfMemory, called by
// kscope's memory readings and by every NamingOutOfMemory call). NamingOutOfMemory(call, f)
// turns the libtorch error escaping f into kscope::OutOfMemory:
//   "forward: out of memory on cuda:0: tried to allocate 2147483648 bytes (CUDA out of ...)"
// The record is process-wide, the latest failure of any thread (the autograd engine allocates
// on its own device threads): where two threads run out of memory at once, the device and size
// may be the other's; the detail is always the error's own.
//
// Thread-safety: all functions may be called from any thread.
#ifndef KSCOPE_RUNTIME_OUT_OF_MEMORY_H_
#define KSCOPE_RUNTIME_OUT_OF_MEMORY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <c10/core/Device.h>
#include <c10/util/Exception.h>

#include "runtime/errors.h"

namespace kscope {

struct OutOfMemoryRecord {
  c10::Device device = c10::Device(c10::DeviceType::CPU);
  std::int64_t bytes = 0;
  std::uint64_t sequence = 0;  // 1, 2, ... in the order the failures were recorded
};

// Records a failed allocation of `bytes` on `device` (the allocators call it).
void RecordOutOfMemory(c10::Device device, std::int64_t bytes);
// The latest record, if any failure was recorded.
std::optional<OutOfMemoryRecord> LastOutOfMemory();
// Attaches the record to the CUDA caching allocator's failures once it is initialised; does
// nothing without CUDA or before then, and after the first success.
void WatchCudaOutOfMemory();

// A failed device allocation inside `call` (what() names the call, the device, the bytes asked
// for and libtorch's own text).
class OutOfMemory : public Error {
 public:
  OutOfMemory(std::string call, std::optional<OutOfMemoryRecord> record, const std::string& detail);
  const std::string& call() const { return call_; }
  // The failed allocation's device and size, when the allocator recorded them.
  const std::optional<OutOfMemoryRecord>& record() const { return record_; }

 private:
  std::string call_;
  std::optional<OutOfMemoryRecord> record_;
};

// Runs f(); a c10::OutOfMemoryError escaping it becomes kscope::OutOfMemory naming `call` and
// the failure recorded since f began (none: the device and size are left to the detail).
template <typename F>
decltype(auto) NamingOutOfMemory(const char* call, F&& f) {
  WatchCudaOutOfMemory();
  const std::optional<OutOfMemoryRecord> before = LastOutOfMemory();
  try {
    return std::forward<F>(f)();
  } catch (const c10::OutOfMemoryError& e) {
    std::optional<OutOfMemoryRecord> record = LastOutOfMemory();
    if (record && before && record->sequence == before->sequence) record.reset();
    throw OutOfMemory(call, record, e.what_without_backtrace());
  }
}

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_OUT_OF_MEMORY_H_
