// Device memory over a span of time: MemoryWindow counts, per device, what was allocated and
// freed since it opened and the most the device held meanwhile; DeviceMemoryNow() gives the
// devices' readings with peaks since the user's last ResetPeakMemory().
//
// The allocators keep one peak each, which only a reset can lower. A window that opens resets
// them so that its own peak starts at the bytes held then; first every open window, and the
// process-wide record behind DeviceMemoryNow(), takes in the peaks reached so far. So any number
// of windows, nested or on different threads, each see the true peak of their own span, and the
// user's peaks are not lost to a window's reset. (libtorch's own peak counters, read directly,
// are reset by each window: read them through here.)
//
// A window's counts are the devices', not the opening thread's: other threads' allocations
// during the span count too. Devices that came into use after the window opened (CUDA
// initialised meanwhile) count from zero.
//
// Thread-safety: all of it may be used from any thread; one lock orders openings, readings and
// resets. A window must not be read after it is destroyed.
#ifndef KSCOPE_RUNTIME_MEMORY_WINDOW_H_
#define KSCOPE_RUNTIME_MEMORY_WINDOW_H_

#include <cstdint>
#include <vector>

#include "runtime/device_memory.h"

namespace kscope {

// One device's memory over a window.
struct MemoryFootprint {
  c10::Device device = c10::Device(c10::DeviceType::CPU);
  std::int64_t start = 0;      // bytes allocated on the device when the window opened
  std::int64_t allocated = 0;  // bytes allocated since
  std::int64_t freed = 0;      // bytes freed since (some perhaps allocated before it opened)
  std::int64_t peak = 0;       // the most bytes allocated on the device meanwhile
  std::int64_t now = 0;        // bytes allocated on the device now (start + allocated - freed)
};

class MemoryWindow {
 public:
  MemoryWindow();
  ~MemoryWindow();
  MemoryWindow(const MemoryWindow&) = delete;
  MemoryWindow& operator=(const MemoryWindow&) = delete;

  // The footprint on every device so far, in ReadDeviceMemory()'s order.
  std::vector<MemoryFootprint> Read() const;

  // Internal: the devices' readings when it opened and its peaks (allocated, reserved) since.
  struct Mark {
    DeviceMemory opening;
    std::int64_t peak_allocated;
    std::int64_t peak_reserved;
  };

 private:
  std::vector<Mark> marks_;  // guarded by the windows' lock
};

// ReadDeviceMemory() with peaks since the last ResetPeakMemory() (or the process's start).
std::vector<DeviceMemory> DeviceMemoryNow();
// Peaks start again from the bytes held now, on every device.
void ResetPeakMemory();

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_MEMORY_WINDOW_H_
