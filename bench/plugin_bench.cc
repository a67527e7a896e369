// plugin_bench — the per-call cost of tensor, add and free through the q plugin (ktorch.so), next
// to the same api/ call from C++ and to raw libtorch.
//
// Three ways of doing the same libtorch work on 3-element float tensors:
//   - plugin: ktorch.so loaded into the k host (tests/khost/) as q loads it, its functions
//     called through their C pointers as q calls them (khost::NativeFunction: none of the
//     host's per-call checks), every owned result r0'd as q would;
//   - api: the kscope call from C++ (kscope/kscope.h);
//   - raw: libtorch alone.
// The operations:
//   - tensor+free: p:tensor 1 2 3e; free p | kscope::free(kscope::tensor(values)) | a tensor
//     made with at::empty + memcpy (as both of the others make it) and dropped;
//   - add handles+free: r:add(a;b); free r, with (a;b) a general list of two pointers built
//     once | kscope::free(kscope::add(a, b)) | at::add(x, y);
//   - add data: add(1 2 3e;4 5 6e), k data in and a k vector out, the q user's no-pointer path
//     | kscope::add(at::Tensor, at::Tensor) | at::add(x, y).
// free is timed only as part of the first two. Handles live in the root scope (no scope open),
// where a q session's pointers live. libtorch runs on one thread.
//
// The k host's allocator stands in for q's: every k object the plugin builds or r0s (a pointer
// is two objects, knk(1, kj id)) goes through the host's registry, so the plugin column includes
// the host's allocation cost, which in q would be q's own (likely cheaper) allocator. The row
// "k host: a pointer's objects" times that part alone. The host runs with the release free
// policy (no quarantine) and counts its reports without failing; any report is printed at exit.
//
// After the Google Benchmark table the binary prints, per operation, plugin/raw, api/raw and
// plugin/api, from times measured in the same run (bench/ratio_report.h).
//
// Run:  ninja -C build plugin_bench && ./build/bench/plugin_bench --benchmark_min_time=0.2
// Any Google Benchmark flag works (--benchmark_filter=Add, --benchmark_repetitions=5: the ratios
// then use the mean of the repetitions).
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <ATen/Parallel.h>
#include <ATen/ops/add.h>
#include <ATen/ops/empty.h>
#include <benchmark/benchmark.h>

#include "absl/strings/str_format.h"
#include "bench/ratio_report.h"
#include "kscope/kscope.h"
#include "tests/khost/khost.h"

namespace {

using kabi::K;
using Fn = K (*)(K);

// The plugin's functions, called directly; set by main before any benchmark runs.
struct PluginFunctions {
  Fn tensor = nullptr;
  Fn add = nullptr;
  Fn free = nullptr;
  Fn obj = nullptr;
};
PluginFunctions plugin;

const std::vector<float> kX = {1, 2, 3};
const std::vector<float> kY = {4, 5, 6};

// A float tensor holding `values`, built the way kscope::tensor and the plugin's conversion
// build theirs.
at::Tensor FloatTensor(const std::vector<float>& values) {
  at::Tensor t = at::empty({static_cast<std::int64_t>(values.size())}, at::kFloat);
  std::memcpy(t.data_ptr(), values.data(), values.size() * sizeof(float));
  return t;
}

// r0 of a result the caller owns; the plugin returns 0 (`::`) from free.
void Drop(K x) {
  if (x != nullptr) kabi::r0(x);
}

// Ends the benchmark as failed if the plugin signalled an error (a pending krr, which q would
// raise).
void SkipIfFailed(benchmark::State& state) {
  const std::optional<std::string> error = khost::PendingError();
  if (!error) return;
  khost::ClearError();
  state.SkipWithError(("plugin: " + *error).c_str());
}

// --- tensor + free ---------------------------------------------------------------------------

// Per iteration: p:make arg; free p; each result r0'd. `arg` stays the caller's.
void MakeThenFree(benchmark::State& state, Fn make, K arg) {
  khost::ClearError();
  for (auto _ : state) {
    K p = make(arg);
    if (p == nullptr) break;
    Drop(plugin.free(p));
    kabi::r0(p);
  }
  SkipIfFailed(state);
}

void BM_PluginTensorFree(benchmark::State& state) {
  const khost::KRef x(kq::Reals({1, 2, 3}));
  MakeThenFree(state, plugin.tensor, x.get());
}
BENCHMARK(BM_PluginTensorFree);

void BM_ApiTensorFree(benchmark::State& state) {
  for (auto _ : state) kscope::free(kscope::tensor(kX));
}
BENCHMARK(BM_ApiTensorFree);

void BM_RawTensor(benchmark::State& state) {
  for (auto _ : state) {
    at::Tensor t = FloatTensor(kX);
    benchmark::DoNotOptimize(t);
  }
}
BENCHMARK(BM_RawTensor);

// --- add on two handles, freeing the result --------------------------------------------------

void BM_PluginAddFree(benchmark::State& state) {
  khost::ClearError();
  const khost::KRef x(kq::Reals({1, 2, 3}));
  const khost::KRef y(kq::Reals({4, 5, 6}));
  K a = plugin.tensor(x.get());
  K b = plugin.tensor(y.get());
  if (a == nullptr || b == nullptr) {
    Drop(a);
    Drop(b);
    SkipIfFailed(state);
    return;
  }
  const khost::KRef ab(kq::List({a, b}));  // (a;b), built once
  MakeThenFree(state, plugin.add, ab.get());
  Drop(plugin.free(ab.get()));  // free(a;b)
}
BENCHMARK(BM_PluginAddFree);

void BM_ApiAddFree(benchmark::State& state) {
  const kscope::Handle a = kscope::tensor(kX);
  const kscope::Handle b = kscope::tensor(kY);
  for (auto _ : state) kscope::free(kscope::add(a, b));
  kscope::free(a);
  kscope::free(b);
}
BENCHMARK(BM_ApiAddFree);

// add(x, y) on 1 2 3 and 4 5 6 as float tensors, its result dropped at once.
template <auto add>
void AddOnData(benchmark::State& state) {
  const at::Tensor x = FloatTensor(kX);
  const at::Tensor y = FloatTensor(kY);
  for (auto _ : state) {
    auto sum = add(x, y);
    benchmark::DoNotOptimize(sum);
  }
}

at::Tensor RawAdd(const at::Tensor& x, const at::Tensor& y) { return at::add(x, y); }
kscope::Result ApiAdd(const at::Tensor& x, const at::Tensor& y) { return kscope::add(x, y); }

void BM_RawAdd(benchmark::State& state) { AddOnData<RawAdd>(state); }
BENCHMARK(BM_RawAdd);

// --- add on data: k vectors in, a k vector out -----------------------------------------------

void BM_PluginAddData(benchmark::State& state) {
  const khost::KRef xy(kq::List({kq::Reals({1, 2, 3}), kq::Reals({4, 5, 6})}));
  khost::ClearError();
  for (auto _ : state) {
    K sum = plugin.add(xy.get());
    if (sum == nullptr) break;
    kabi::r0(sum);
  }
  SkipIfFailed(state);
}
BENCHMARK(BM_PluginAddData);

void BM_ApiAddData(benchmark::State& state) { AddOnData<ApiAdd>(state); }
BENCHMARK(BM_ApiAddData);

// --- the host's share of the plugin column ---------------------------------------------------

// The k objects of one pointer, knk(1, kj id), allocated and r0'd by the host.
void BM_HostPointerObjects(benchmark::State& state) {
  for (auto _ : state) kabi::r0(kabi::knk(1, kabi::kj(1)));
}
BENCHMARK(BM_HostPointerObjects);

// --- the ratios table ------------------------------------------------------------------------

// plugin/raw, api/raw and plugin/api for one operation.
void AddRatios(std::vector<kscope::bench::Comparison>* table, const std::string& op,
               const std::string& plugin_bm, const std::string& api_bm, const std::string& raw_bm) {
  table->push_back({op + ", plugin/raw", plugin_bm, raw_bm, 1, 0, "plugin", "raw"});
  table->push_back({op + ", api/raw", api_bm, raw_bm, 1, 0, "api", "raw"});
  table->push_back({op + ", plugin/api", plugin_bm, api_bm, 1, 0, "plugin", "api"});
}

std::vector<kscope::bench::Comparison> RatioTable() {
  std::vector<kscope::bench::Comparison> table;
  AddRatios(&table, "tensor+free", "BM_PluginTensorFree", "BM_ApiTensorFree", "BM_RawTensor");
  AddRatios(&table, "add handles+free", "BM_PluginAddFree", "BM_ApiAddFree", "BM_RawAdd");
  AddRatios(&table, "add data", "BM_PluginAddData", "BM_ApiAddData", "BM_RawAdd");
  table.push_back({"k host: a pointer's objects", "BM_HostPointerObjects", "", 1, 0, "host", "q"});
  return table;
}

// The number of rows obj[] lists in the plugin, or -1 if obj[] failed.
std::int64_t PluginObjects() {
  const khost::KRef null(kq::Null());
  const khost::KRef table(plugin.obj(null.get()));
  if (!table || table->t != kabi::kTable) return -1;
  return kabi::Items(kabi::DictValues(kabi::TableDict(table.get())))[0]->n;
}

Fn Native(const khost::Library& lib, const char* name) {
  return reinterpret_cast<Fn>(khost::NativeFunction(lib.Function(name)));
}

}  // namespace

int main(int argc, char** argv) {
  at::set_num_threads(1);
  khost::SetFreePolicy(khost::FreePolicy::kRelease);
  khost::SetReportMode(khost::ReportMode::kCountOnly);

  const khost::Library lib(KSCOPE_PLUGIN);
  if (!lib.ok()) {
    absl::FPrintF(stderr, "plugin_bench: cannot load %s: %s\n", KSCOPE_PLUGIN, lib.error());
    return 1;
  }
  plugin = {Native(lib, "tensor"), Native(lib, "add"), Native(lib, "free"), Native(lib, "obj")};
  if (!plugin.tensor || !plugin.add || !plugin.free || !plugin.obj) {
    absl::FPrintF(stderr, "plugin_bench: %s lacks tensor, add, free or obj\n", KSCOPE_PLUGIN);
    return 1;
  }

  const int rc = kscope::bench::RunWithRatios(
      argc, argv, "plugin (ktorch.so in the k host) / api / raw libtorch, real time per iteration:",
      RatioTable());
  if (rc != 0) return rc;

  {
    const khost::KRef null(kq::Null());
    Drop(plugin.free(null.get()));  // free[]
  }
  kscope::free();
  if (const std::optional<std::string> error = khost::PendingError()) {
    absl::FPrintF(stderr, "warning: the plugin signalled '%s'\n", *error);
  }
  const std::int64_t plugin_objects = PluginObjects();
  if (plugin_objects != 0) {
    absl::FPrintF(stderr, "warning: the plugin's obj[] lists %d object(s) at exit (-1: obj[] failed)\n",
                  plugin_objects);
  }
  if (kscope::live_handles() != 0) {
    absl::FPrintF(stderr, "warning: %d handle(s) still live at exit\n", kscope::live_handles());
  }
  const std::vector<khost::Report> reports = khost::Stats().reports;
  if (!reports.empty()) {
    absl::FPrintF(stderr, "warning: the k host reported %d defect(s), the first: %s\n", reports.size(),
                  reports.front().message);
  }
  return 0;
}
