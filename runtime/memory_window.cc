#include "runtime/memory_window.h"

#include <algorithm>

#include "absl/base/const_init.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"

namespace kscope {
namespace {

using Mark = MemoryWindow::Mark;

ABSL_CONST_INIT absl::Mutex windows_mu(absl::kConstInit);

// The open windows' marks, and the process-wide peaks behind DeviceMemoryNow().
struct Windows {
  absl::flat_hash_set<std::vector<Mark>*> open;
  std::vector<Mark> process;
};
Windows& OpenWindows() ABSL_EXCLUSIVE_LOCKS_REQUIRED(windows_mu) {
  static Windows* const windows = new Windows();  // never destroyed: read at any exit
  return *windows;
}

template <typename Marks>  // std::vector<Mark>, const or not
auto* MarkOf(Marks& marks, c10::Device device) {
  decltype(&marks.front()) found = nullptr;
  for (auto& m : marks) {
    if (m.opening.device == device) found = &m;
  }
  return found;
}

// The mark of a device with no opening reading: in use since the window opened.
Mark FreshMark(c10::Device device) {
  DeviceMemory zero;
  zero.device = device;
  return Mark{zero, 0, 0};
}

// Marks every device of `readings` raised to the peaks the readings show.
void TakeInPeaks(const std::vector<DeviceMemory>& readings, std::vector<Mark>& marks) {
  for (const DeviceMemory& r : readings) {
    Mark* m = MarkOf(marks, r.device);
    if (m == nullptr) m = &marks.emplace_back(FreshMark(r.device));
    m->peak_allocated = std::max(m->peak_allocated, r.peak_allocated);
    m->peak_reserved = std::max(m->peak_reserved, r.peak_reserved);
  }
}

// Every window and the process record take in the peaks so far, then the allocators' peaks are
// reset; returns the readings taken before the reset.
std::vector<DeviceMemory> ResetRawPeaksKeepingThem(std::vector<Mark>* except)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(windows_mu) {
  std::vector<DeviceMemory> readings = ReadDeviceMemory();
  Windows& w = OpenWindows();
  for (std::vector<Mark>* marks : w.open) TakeInPeaks(readings, *marks);
  if (except != &w.process) TakeInPeaks(readings, w.process);
  ResetRawPeaks();
  return readings;
}

// Marks starting at the readings: peaks at the bytes held.
std::vector<Mark> MarksAt(const std::vector<DeviceMemory>& readings) {
  std::vector<Mark> marks;
  for (const DeviceMemory& r : readings) marks.push_back(Mark{r, r.allocated, r.reserved});
  return marks;
}

}  // namespace

MemoryWindow::MemoryWindow() {
  absl::MutexLock lock(&windows_mu);
  marks_ = MarksAt(ResetRawPeaksKeepingThem(nullptr));
  OpenWindows().open.insert(&marks_);
}

MemoryWindow::~MemoryWindow() {
  absl::MutexLock lock(&windows_mu);
  OpenWindows().open.erase(&marks_);
}

std::vector<MemoryFootprint> MemoryWindow::Read() const {
  absl::MutexLock lock(&windows_mu);
  std::vector<MemoryFootprint> footprints;
  for (const DeviceMemory& r : ReadDeviceMemory()) {
    const Mark* m = MarkOf(marks_, r.device);
    const Mark mark = m != nullptr ? *m : FreshMark(r.device);
    footprints.push_back(MemoryFootprint{
        r.device, mark.opening.allocated, r.allocated_total - mark.opening.allocated_total,
        r.freed_total - mark.opening.freed_total, std::max(mark.peak_allocated, r.peak_allocated),
        r.allocated});
  }
  return footprints;
}

std::vector<DeviceMemory> DeviceMemoryNow() {
  absl::MutexLock lock(&windows_mu);
  std::vector<DeviceMemory> readings = ReadDeviceMemory();
  for (DeviceMemory& r : readings) {
    if (const Mark* m = MarkOf(OpenWindows().process, r.device)) {
      r.peak_allocated = std::max(r.peak_allocated, m->peak_allocated);
      r.peak_reserved = std::max(r.peak_reserved, m->peak_reserved);
    }
  }
  return readings;
}

void ResetPeakMemory() {
  absl::MutexLock lock(&windows_mu);
  Windows& w = OpenWindows();
  w.process = MarksAt(ResetRawPeaksKeepingThem(&w.process));
}

}  // namespace kscope
