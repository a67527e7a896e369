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
// The plugin is loaded and checked at exit by bench/plugin_session.h. The k host's allocator
// stands in for q's (a pointer is two objects, knk(1, kj id)), so the plugin column includes the
// host's allocation cost, which in q would be q's own (likely cheaper) allocator. The row
// "k host: a pointer's objects" times that part alone.
//
// After the Google Benchmark table the binary prints, per operation, plugin/raw, api/raw and
// plugin/api, from times measured in the same run (bench/ratio_report.h).
//
// Run:  ninja -C build plugin_bench && ./build/bench/plugin_bench --benchmark_min_time=0.2
// Any Google Benchmark flag works (--benchmark_filter=Add, --benchmark_repetitions=5: the ratios
// then use the mean of the repetitions).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <ATen/Parallel.h>
#include <ATen/ops/add.h>
#include <ATen/ops/empty.h>
#include <benchmark/benchmark.h>

#include "absl/strings/str_format.h"
#include "bench/plugin_session.h"
#include "bench/ratio_report.h"
#include "kscope/kscope.h"
#include "tests/build_paths.h"
#include "tests/khost/khost.h"

namespace {

using kabi::K;
using kscope::bench::Drop;
using kscope::bench::PluginFn;
using kscope::bench::SkipIfFailed;

// The plugin's functions, called directly; set by main before any benchmark runs.
struct PluginFunctions {
  PluginFn tensor = nullptr;
  PluginFn add = nullptr;
  PluginFn free = nullptr;
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

// --- tensor + free ---------------------------------------------------------------------------

// Per iteration: p:make arg; free p; each result r0'd. `arg` stays the caller's.
void MakeThenFree(benchmark::State& state, PluginFn make, K arg) {
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

}  // namespace

int main(int argc, char** argv) {
  at::set_num_threads(1);
  const kscope::bench::PluginSession session(kscope::testing::kPluginPath);
  kscope::bench::ExitUnlessLoaded(session, "plugin_bench");
  plugin = {session.Function("tensor"), session.Function("add"), session.Function("free")};
  if (!plugin.tensor || !plugin.add || !plugin.free) {
    absl::FPrintF(stderr, "plugin_bench: %s lacks tensor, add or free\n",
                  kscope::testing::kPluginPath);
    return 1;
  }

  const int rc = kscope::bench::RunWithRatios(
      argc, argv, "plugin (ktorch.so in the k host) / api / raw libtorch, real time per iteration:",
      RatioTable());
  if (rc != 0) return rc;
  session.CheckClean();
  return 0;
}
