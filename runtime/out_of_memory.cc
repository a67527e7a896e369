#include "runtime/out_of_memory.h"

#include <atomic>

#include "absl/base/const_init.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"

#ifdef KSCOPE_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>

#include "absl/base/call_once.h"
#endif

namespace kscope {
namespace {

ABSL_CONST_INIT absl::Mutex record_mu(absl::kConstInit);
std::optional<OutOfMemoryRecord> last_record ABSL_GUARDED_BY(record_mu);  // trivially destroyed
// Failures recorded so far, written under the lock: while none is, LastOutOfMemory (read by
// every NamingOutOfMemory call) takes no lock.
std::atomic<std::uint64_t> records{0};

std::string Describe(const std::string& call, const std::optional<OutOfMemoryRecord>& record,
                     const std::string& detail) {
  if (!record) return absl::StrFormat("%s: out of memory (%s)", call, detail);
  const std::string what = absl::StrFormat("out of memory on %s: tried to allocate %d bytes",
                                           record->device.str(), record->bytes);
  // kscope's CPU allocator says the same first; its reason follows.
  if (absl::StartsWith(detail, what)) return absl::StrFormat("%s: %s", call, detail);
  return absl::StrFormat("%s: %s (%s)", call, what, detail);
}

}  // namespace

void RecordOutOfMemory(c10::Device device, std::int64_t bytes) {
  absl::MutexLock lock(&record_mu);
  last_record = OutOfMemoryRecord{device, bytes, records.load(std::memory_order_relaxed) + 1};
  records.store(last_record->sequence, std::memory_order_release);
}

std::optional<OutOfMemoryRecord> LastOutOfMemory() {
  if (records.load(std::memory_order_acquire) == 0) return std::nullopt;
  absl::MutexLock lock(&record_mu);
  return last_record;
}

void WatchCudaOutOfMemory() {
#ifdef KSCOPE_WITH_CUDA
  static std::atomic<bool> watching{false};
  if (watching.load(std::memory_order_acquire)) return;
  namespace alloc = c10::cuda::CUDACachingAllocator;
  if (alloc::get() == nullptr || !alloc::get()->initialized()) return;
  static absl::once_flag once;
  absl::call_once(once, [] {
    alloc::attachOutOfMemoryObserver([](std::int64_t device, std::size_t bytes, std::size_t,
                                        std::size_t) {
      RecordOutOfMemory(c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(device)),
                        static_cast<std::int64_t>(bytes));
    });
    watching.store(true, std::memory_order_release);
  });
#endif
}

OutOfMemory::OutOfMemory(std::string call, std::optional<OutOfMemoryRecord> record,
                         const std::string& detail)
    : Error(Describe(call, record, detail)), call_(std::move(call)), record_(record) {}

}  // namespace kscope
