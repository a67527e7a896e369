// Adapters for the environment functions of group I: seed cudadevices cudadevice sync config
// version (api/env/environment.h). `f[]` passes `::` and `f()` the empty list: where ktorch gives
// the two different results (cudadevices, config, version) they are told apart here.
#include <cstdio>

#include "api/env/environment.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/env/seeds.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

bool IsEmptyList(K x) { return x->t == kabi::kMixed && x->n == 0; }

// A seed from k: a long (or int, short) atom; null means nondeterministic.
std::optional<std::uint64_t> SeedAt(const Args& a, std::size_t i) {
  const std::int64_t n = a.LongAt(i);
  if (n == kabi::kNullLong || n == kabi::kNullInt || n == kabi::kNullShort) return std::nullopt;
  return static_cast<std::uint64_t>(n);
}

// seed[] -> device!initial seed; seed n; seed`device -> its seed; seed(`device;n)
K Seed(K x) {
  return Guard([&] {
    const Args a("seed", x);
    if (a.empty()) return KFromSeeds();
    if (a.size() == 1 && a.IsSymbolAt(0))
      return kabi::kj(static_cast<std::int64_t>(initial_seed(a.SymbolAt(0))));
    if (a.size() == 1) {
      seed_all(SeedAt(a, 0));
      return K{nullptr};
    }
    if (a.size() == 2 && a.IsSymbolAt(0)) {
      seed_device(a.SymbolAt(0), SeedAt(a, 1));
      return K{nullptr};
    }
    a.Unrecognized();
  });
}

// cudadevices[] -> count; cudadevices() -> `cuda:0`cuda:1..
K Cudadevices(K x) {
  return Guard([&] {
    if (IsNull(x)) return kabi::kj(cuda_device_count());
    if (IsEmptyList(x)) return Symbols(cuda_device_names());
    Args("cudadevices", x).Unrecognized();
  });
}

// cudadevice() -> the current device; cudadevice`cuda:1 makes it current
K Cudadevice(K x) {
  return Guard([&] {
    const Args a("cudadevice", x);
    if (cuda_device_count() == 0) Fail("no CUDA device available");  // ktorch's check comes first
    if (a.empty()) return Symbol(cuda_device());
    if (a.size() != 1 || !a.IsSymbolAt(0)) a.Unrecognized();
    set_cuda_device(a.SymbolAt(0));
    return K{nullptr};
  });
}

// sync() / sync i / sync`cuda:i / sync p
K Sync(K x) {
  return Guard([&] {
    const Args a("sync", x);
    if (a.empty()) {
      sync();
    } else if (IsPointer(x)) {
      sync(HandleOf(x));
    } else if (a.size() == 1 && a.IsSymbolAt(0)) {
      sync(a.SymbolAt(0));
    } else if (a.size() == 1) {
      sync(a.LongAt(0));
    } else {
      a.Unrecognized();
    }
    return K{nullptr};
  });
}

// config[] prints libtorch's build configuration to stderr; config() returns it as strings
K Config(K x) {
  return Guard([&] {
    if (!IsNull(x) && !IsEmptyList(x)) Args("config", x).Unrecognized();
    const std::vector<std::string> lines = config();
    if (IsNull(x)) {
      for (const std::string& line : lines) std::fprintf(stderr, "%s\n", line.c_str());
      return K{nullptr};
    }
    K out = kabi::ktn(kabi::kMixed, static_cast<long long>(lines.size()));
    for (std::size_t i = 0; i < lines.size(); ++i) {
      kabi::Items(out)[i] =
          kabi::kpn(const_cast<char*>(lines[i].data()), static_cast<long long>(lines[i].size()));
    }
    return out;
  });
}

// version() -> "1.13.0"; version[] -> 1.13
K Version(K x) {
  return Guard([&] {
    if (IsNull(x)) return kabi::kf(version_number());
    if (!IsEmptyList(x))
      Fail("version: unexpected arg(s), use version() for string, version[] for number");
    const std::string v = version();
    return kabi::kpn(const_cast<char*>(v.data()), static_cast<long long>(v.size()));
  });
}

}  // namespace

K KFromSeeds() {
  std::vector<std::string> devices;
  std::vector<std::int64_t> values;
  for (const auto& [device, s] : seeds()) {
    devices.push_back(device);
    values.push_back(static_cast<std::int64_t>(s));
  }
  return kabi::xD(Symbols(devices), KFromLongs(values));
}

std::vector<Export> EnvironmentExports() {
  return {Unary("seed", Seed), Unary("cudadevices", Cudadevices), Unary("cudadevice", Cudadevice),
          Unary("sync", Sync), Unary("config", Config),           Unary("version", Version)};
}

}  // namespace kscope::q
