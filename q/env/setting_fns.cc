// setting[] -> dictionary of every setting; setting`name -> its value; setting(`name;value)
// sets a writable one. ktorch's keys in ktorch's order (libtorch's build features and global
// flags, api/env/environment.h; the plugin's own, q/env/settings.h), then kscope's strict,
// foreach (multi-tensor optimizer steps, api/nn/optimizer.h), fused (fused adam/adamw kernels),
// scope and footprint (every scope opened tracks its memory footprint and reports it on stderr
// as it closes: scope/scope_footprint.h). One table row per setting; a setter reads its value (a
// boolean, or a long) before changing anything.
#include <atomic>
#include <functional>
#include <string>

#include <c10/util/Backtrace.h>
#include <c10/util/Logging.h>

#include "api/env/environment.h"
#include "api/nn/optimizer.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/env/settings.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"
#include "scope/scope_footprint.h"
#include "scope/scope_stack.h"

namespace kscope::q {
namespace {

using kabi::K;

std::atomic<bool> all_options{true};
std::atomic<bool> stackframe{false};
std::atomic<bool> complex_first{true};

struct SettingEntry {
  const char* name;
  K (*get)();
  void (*set)(const Args& a);  // null: read-only
  const char* read_only_reason;
};

constexpr const char* kBuilt = "it is a feature of the libtorch build";

constexpr SettingEntry kSettings[] = {
    {"mkl", [] { return kabi::kb(build_features().mkl); }, nullptr, kBuilt},
    {"openmp", [] { return kabi::kb(build_features().openmp); }, nullptr, kBuilt},
    {"threads", [] { return kabi::kj(threads()); }, [](const Args& a) { set_threads(a.LongAt(1)); },
     nullptr},
    {"interopthreads", [] { return kabi::kj(interop_threads()); },
     [](const Args& a) { set_interop_threads(a.LongAt(1)); }, nullptr},
    {"mps", [] { return kabi::kb(build_features().mps); }, nullptr, kBuilt},
    {"cuda", [] { return kabi::kb(build_features().cuda); }, nullptr, kBuilt},
    {"magma", [] { return kabi::kb(build_features().magma); }, nullptr, kBuilt},
    {"cudnn", [] { return kabi::kb(build_features().cudnn); }, nullptr, kBuilt},
    {"cudnnversion", [] { return kabi::kj(build_features().cudnn_version); }, nullptr, kBuilt},
    {"cudadevices", [] { return kabi::kj(cuda_device_count()); }, nullptr,
     "it is the number of CUDA devices"},
    {"benchmark", [] { return kabi::kb(cudnn_benchmark()); },
     [](const Args& a) { set_cudnn_benchmark(a.BoolAt(1)); }, nullptr},
    {"deterministic", [] { return kabi::kj(deterministic()); },
     [](const Args& a) { set_deterministic(a.LongAt(1)); }, nullptr},
    {"cudnndeterministic", [] { return kabi::kb(cudnn_deterministic()); },
     [](const Args& a) { set_cudnn_deterministic(a.BoolAt(1)); }, nullptr},
    {"stackframe", [] { return kabi::kb(Stackframe()); },
     [](const Args& a) { SetStackframe(a.BoolAt(1)); }, nullptr},
    {"alloptions", [] { return kabi::kb(AllOptions()); },
     [](const Args& a) { SetAllOptions(a.BoolAt(1)); }, nullptr},
    {"complexfirst", [] { return kabi::kb(ComplexFirst()); },
     [](const Args& a) { SetComplexFirst(a.BoolAt(1)); }, nullptr},
    {"strict", [] { return kabi::kb(Strict()); }, [](const Args& a) { SetStrict(a.BoolAt(1)); },
     nullptr},
    {"foreach", [] { return kabi::kb(multi_tensor_steps()); },
     [](const Args& a) { set_multi_tensor_steps(a.BoolAt(1)); }, nullptr},
    {"fused", [] { return kabi::kb(fused_steps()); },
     [](const Args& a) { set_fused_steps(a.BoolAt(1)); }, nullptr},
    {"scope", [] { return kabi::kj(ScopeDepth()); }, nullptr, "it is the depth of the open scopes"},
    {"footprint", [] { return kabi::kb(FootprintReports()); },
     [](const Args& a) { SetFootprintReports(a.BoolAt(1)); }, nullptr},
};

const SettingEntry& Find(const std::string& name) {
  for (const SettingEntry& e : kSettings) {
    if (name == e.name) return e;
  }
  Fail("unrecognized configuration setting: %s", name);
}

K Setting(K x) {
  return Guard([&] {
    const Args a("setting", x);
    if (a.empty()) {
      std::vector<std::string> names;
      K values = kabi::ktn(kabi::kMixed, 0);
      for (const SettingEntry& e : kSettings) {
        names.push_back(e.name);
        kabi::jk(&values, e.get());
      }
      return kabi::xD(Symbols(names), values);
    }
    const SettingEntry& e = Find(a.SymbolAt(0));
    if (a.size() == 1) return e.get();
    if (a.size() != 2) a.Unrecognized();
    if (e.set == nullptr) Fail("setting: `%s is read-only, %s", e.name, e.read_only_reason);
    e.set(a);
    return K{nullptr};
  });
}

}  // namespace

bool AllOptions() { return all_options.load(std::memory_order_relaxed); }
void SetAllOptions(bool all) { all_options.store(all, std::memory_order_relaxed); }
bool Stackframe() { return stackframe.load(std::memory_order_relaxed); }
void SetStackframe(bool on) { stackframe.store(on, std::memory_order_relaxed); }
bool ComplexFirst() { return complex_first.load(std::memory_order_relaxed); }
void SetComplexFirst(bool on) { complex_first.store(on, std::memory_order_relaxed); }

void InstallBacktraceFetcher() {
  c10::SetStackTraceFetcher(std::function<std::string()>(
      [] { return Stackframe() ? c10::get_backtrace(/*frames_to_skip=*/1) : std::string(); }));
}

std::vector<Export> SettingExports() { return {Unary("setting", Setting)}; }

}  // namespace kscope::q
