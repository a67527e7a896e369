#include "runtime/cpu_memory.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>
#include <c10/util/Exception.h>

#include "absl/strings/str_format.h"
#include "runtime/errors.h"
#include "runtime/out_of_memory.h"
#include "runtime/torch_compat_allocator.h"

namespace kscope {
namespace {

constexpr std::size_t kSizeHeader = 64;  // c10's alignment: the data after the header keeps it
constexpr std::int64_t kNoLimit = -1;
constexpr std::size_t kLargestCounted = std::numeric_limits<std::int64_t>::max() - kSizeHeader;
constexpr std::uint8_t kCountingPriority = 100;  // above libtorch's default registration (0)
constexpr auto kRelaxed = std::memory_order_relaxed;

std::atomic<std::int64_t> cpu_allocated{0};
std::atomic<std::int64_t> cpu_peak{0};
std::atomic<std::int64_t> cpu_allocations{0};
std::atomic<std::int64_t> cpu_allocated_total{0};
std::atomic<std::int64_t> cpu_limit{kNoLimit};

void RaisePeak(std::int64_t now) {
  std::int64_t seen = cpu_peak.load(kRelaxed);
  while (now > seen && !cpu_peak.compare_exchange_weak(seen, now, kRelaxed)) {
  }
}

void ReleaseCounted(void* data) {
  if (data == nullptr) return;
  char* block = static_cast<char*>(data) - kSizeHeader;
  std::int64_t bytes;
  std::memcpy(&bytes, block, sizeof bytes);
  cpu_allocated.fetch_sub(bytes, kRelaxed);
  cpu_allocations.fetch_sub(1, kRelaxed);
  c10::free_cpu(block);
}

[[noreturn]] void FailAllocation(std::size_t n, const std::string& why) {
  RecordOutOfMemory(c10::Device(c10::DeviceType::CPU), static_cast<std::int64_t>(n));
  C10_THROW_ERROR(OutOfMemoryError,
                  absl::StrFormat("out of memory on cpu: tried to allocate %d bytes (%s)", n, why));
}

c10::DataPtr AllocateCounted(std::size_t n) {
  const c10::Device cpu(c10::DeviceType::CPU);
  if (n == 0) return {nullptr, nullptr, &ReleaseCounted, cpu};
  const std::int64_t cap = cpu_limit.load(kRelaxed);
  const std::int64_t held = cpu_allocated.load(kRelaxed);
  if (cap != kNoLimit && n > static_cast<std::size_t>(std::max<std::int64_t>(0, cap - held))) {
    FailAllocation(n, absl::StrFormat("%d bytes allocated, limit %d", held, cap));
  }
  if (n > kLargestCounted) FailAllocation(n, "more than any allocation can hold");
  void* block;
  try {
    block = c10::alloc_cpu(n + kSizeHeader);
  } catch (const c10::Error& e) {
    FailAllocation(n, e.what_without_backtrace());
  }
  const auto bytes = static_cast<std::int64_t>(n);
  std::memcpy(block, &bytes, sizeof bytes);
  RaisePeak(cpu_allocated.fetch_add(bytes, kRelaxed) + bytes);
  cpu_allocations.fetch_add(1, kRelaxed);
  cpu_allocated_total.fetch_add(bytes, kRelaxed);
  char* data = static_cast<char*>(block) + kSizeHeader;
  return {data, data, &ReleaseCounted, cpu};
}

// libtorch's CPU allocator, counting. Its context is its data pointer, as the default
// allocator's is (libtorch's raw_allocate and copy-on-write expect that).
class CountingCpuAllocator final : public CpuAllocatorBase {
 public:
  c10::DeleterFnPtr raw_deleter() const override { return &ReleaseCounted; }

 private:
  c10::DataPtr Allocate(std::size_t n) const override { return AllocateCounted(n); }
};

}  // namespace

bool InstallCpuMemoryAccounting() {
  static c10::Allocator* const counting = [] {
    auto* allocator = new CountingCpuAllocator();  // never destroyed: memory outlives statics
    c10::SetCPUAllocator(allocator, kCountingPriority);
    return allocator;
  }();
  return c10::GetCPUAllocator() == counting;
}

CpuMemoryCounters CpuMemory() {
  return {cpu_allocated.load(kRelaxed), cpu_peak.load(kRelaxed), cpu_allocations.load(kRelaxed),
          cpu_allocated_total.load(kRelaxed)};
}

void ResetCpuPeak() { cpu_peak.store(cpu_allocated.load(kRelaxed), kRelaxed); }

void SetCpuMemoryLimit(std::optional<std::int64_t> bytes) {
  if (bytes && *bytes < 0) Fail("memory limit: expecting a count of bytes >= 0, given %d", *bytes);
  cpu_limit.store(bytes ? *bytes : kNoLimit, kRelaxed);
}

std::optional<std::int64_t> CpuMemoryLimit() {
  const std::int64_t cap = cpu_limit.load(kRelaxed);
  return cap == kNoLimit ? std::nullopt : std::optional<std::int64_t>(cap);
}

}  // namespace kscope
