// kscope's own q functions for device memory (api/env/memory.h) and scope footprints
// (scope/scope_footprint.h):
//
//   devicememory[]        table device allocated reserved peakallocated peakreserved allocations
//                         allocatedtotal freedtotal, a row per device in use (bytes; counts)
//   devicememory`cuda:0   that device's dictionary, the same keys
//   resetpeaks[]          peaks start again from the bytes held now, on every device
//   emptycache[]          cached memory given back: CUDA's unused blocks, the C heap's free pages
//   memorylimit`cpu       the device's limit in bytes, 0N if none
//   memorylimit(`cpu;n)   allocations beyond n bytes on the device fail as out of memory;
//                         memorylimit(`cpu;0N) lifts the limit
//   footprint s           table device start allocated freed peak now of s, an open scope that
//                         tracks its footprint (s:scope`footprint, or any scope opened while
//                         setting`footprint is on)
//   footprint[]           the same for the tracked scope this thread closed last; :: if none
#include <cstdint>
#include <string>
#include <vector>

#include "api/env/memory.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"
#include "runtime/names.h"

namespace kscope::q {
namespace {

using kabi::K;

template <typename Row>
struct LongField {
  const char* name;
  std::int64_t Row::*field;
};

constexpr LongField<DeviceMemory> kMemoryFields[] = {
    {"allocated", &DeviceMemory::allocated},
    {"reserved", &DeviceMemory::reserved},
    {"peakallocated", &DeviceMemory::peak_allocated},
    {"peakreserved", &DeviceMemory::peak_reserved},
    {"allocations", &DeviceMemory::allocations},
    {"allocatedtotal", &DeviceMemory::allocated_total},
    {"freedtotal", &DeviceMemory::freed_total},
};
constexpr LongField<MemoryFootprint> kFootprintFields[] = {
    {"start", &MemoryFootprint::start}, {"allocated", &MemoryFootprint::allocated},
    {"freed", &MemoryFootprint::freed}, {"peak", &MemoryFootprint::peak},
    {"now", &MemoryFootprint::now},
};

// A table with a row per device: device, then the fields, as longs.
template <typename Row, std::size_t N>
K DeviceTable(const std::vector<Row>& rows, const LongField<Row> (&fields)[N]) {
  std::vector<std::string> names{"device"}, devices;
  for (const Row& r : rows) devices.push_back(DeviceName(r.device));
  K columns = kabi::knk(1, Symbols(devices));
  for (const LongField<Row>& f : fields) {
    names.push_back(f.name);
    std::vector<std::int64_t> values;
    for (const Row& r : rows) values.push_back(r.*f.field);
    kabi::jk(&columns, KFromLongs(values));
  }
  return kabi::xT(kabi::xD(Symbols(names), columns));
}

c10::Device DeviceAt(const Args& a, std::size_t i) {
  const std::string name = a.SymbolAt(i);
  const std::optional<c10::Device> device = DeviceFromName(name);
  if (!device) Fail("%s: expecting a device, e.g. `cpu or `cuda:0, given `%s", a.fn(), name);
  return *device;
}

K DeviceMemory_(K x) {
  return Guard([&] {
    const Args a("devicememory", x);
    if (a.empty()) return DeviceTable(device_memory(), kMemoryFields);
    if (a.size() != 1) a.Unrecognized();
    const DeviceMemory m = device_memory(DeviceAt(a, 0));
    std::vector<std::string> keys{"device"};
    K values = kabi::knk(1, Symbol(DeviceName(m.device)));
    for (const LongField<DeviceMemory>& f : kMemoryFields) {
      keys.push_back(f.name);
      kabi::jk(&values, kabi::kj(m.*f.field));
    }
    return kabi::xD(Symbols(keys), values);
  });
}

// fn[]: `action`, taking no argument; returns ::.
K NoArgumentCall(const char* fn, K x, void (*action)()) {
  return Guard([&] {
    const Args a(fn, x);
    if (!a.empty()) a.Unrecognized();
    action();
    return K{nullptr};
  });
}

K ResetPeaks(K x) { return NoArgumentCall("resetpeaks", x, reset_peak_memory); }
K EmptyCache(K x) { return NoArgumentCall("emptycache", x, empty_cache); }

K MemoryLimit(K x) {
  return Guard([&] {
    const Args a("memorylimit", x);
    if (a.empty() || a.size() > 2) a.Unrecognized();
    const c10::Device device = DeviceAt(a, 0);
    if (a.size() == 1) {
      const std::optional<std::int64_t> limit = memory_limit(device);
      return kabi::kj(limit ? *limit : kabi::kNullLong);
    }
    const std::int64_t bytes = a.LongAt(1);
    set_memory_limit(device,
                     bytes == kabi::kNullLong ? std::nullopt : std::optional<std::int64_t>(bytes));
    return K{nullptr};
  });
}

K Footprint_(K x) {
  return Guard([&] {
    const Args a("footprint", x);
    if (a.empty()) {
      const std::optional<ClosedFootprint> last = LastClosedFootprint();
      return last ? DeviceTable(last->devices, kFootprintFields) : K{nullptr};
    }
    if (a.size() != 1 || a.IsPointerAt(0)) a.Unrecognized();
    const std::int64_t id = a.LongAt(0);
    if (id <= 0) Fail("footprint: expecting a scope id from scope[], given %d", id);
    return DeviceTable(ScopeFootprint(static_cast<ScopeId>(id)), kFootprintFields);
  });
}

}  // namespace

std::vector<Export> MemoryExports() {
  return {Unary("devicememory", DeviceMemory_), Unary("resetpeaks", ResetPeaks),
          Unary("emptycache", EmptyCache), Unary("memorylimit", MemoryLimit),
          Unary("footprint", Footprint_)};
}

}  // namespace kscope::q
