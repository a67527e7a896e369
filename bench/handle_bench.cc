// kscope_bench — what kscope's handles cost over holding libtorch tensors directly.
//
// Each kscope benchmark has a raw libtorch twin doing the same libtorch work without the
// handle table:
//   - create+free: register a 3-element tensor as a handle and free it, vs pushing one more
//     reference to it onto a std::vector and popping it;
//   - lookup: HandleTable::Get and TensorOf on a live handle, vs copying an at::Tensor;
//   - scope: open a Scope, create N handles in it and let it close (N = 0, 1, 16, 256), vs
//     filling a std::vector with N references and dropping it; items/s is per handle;
//   - add: kscope::add on two 3-element float handles, freeing each result, and with the
//     results released by a scope exit every 64 adds, vs at::add (results dropped at once, or
//     held 64 at a time).
// libtorch runs on one thread. After the usual Google Benchmark table the binary prints, for
// each pair, kscope time / raw time measured in the same run. The add target (kscope within
// 10% of raw libtorch) is printed, not enforced.
//
// Run:  ./build/bench/kscope_bench
//       ./build/bench/kscope_bench --benchmark_min_time=0.2
// Any Google Benchmark flag works (--benchmark_filter=add, --benchmark_repetitions=5: the
// ratios then use the mean of the repetitions).
#include <unistd.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <ATen/Parallel.h>
#include <ATen/ops/add.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/rand.h>
#include <benchmark/benchmark.h>

#include "absl/strings/str_format.h"
#include "kscope/kscope.h"

namespace {

// --- create + free ---------------------------------------------------------------------------

void BM_KscopeCreateFree(benchmark::State& state) {
  const auto scope = kscope::Scope::Open();
  const at::Tensor t = at::ones({3});
  for (auto _ : state) kscope::free(kscope::tensor(t));
}
BENCHMARK(BM_KscopeCreateFree);

void BM_RawCreateFree(benchmark::State& state) {
  const at::Tensor t = at::ones({3});
  std::vector<at::Tensor> held;
  held.reserve(1);
  for (auto _ : state) {
    held.push_back(t);
    benchmark::DoNotOptimize(held.data());
    held.pop_back();
  }
}
BENCHMARK(BM_RawCreateFree);

// --- lookup ----------------------------------------------------------------------------------

void BM_KscopeGet(benchmark::State& state) {
  const auto scope = kscope::Scope::Open();
  const kscope::Handle h = kscope::tensor(at::ones({3}));
  for (auto _ : state) benchmark::DoNotOptimize(kscope::HandleTable::Global().Get(h));
}
BENCHMARK(BM_KscopeGet);

void BM_KscopeTensorOf(benchmark::State& state) {
  const auto scope = kscope::Scope::Open();
  const kscope::Handle h = kscope::tensor(at::ones({3}));
  for (auto _ : state) benchmark::DoNotOptimize(kscope::TensorOf("bench", h));
}
BENCHMARK(BM_KscopeTensorOf);

void BM_RawCopy(benchmark::State& state) {
  const at::Tensor t = at::ones({3});
  for (auto _ : state) {
    at::Tensor copy = t;
    benchmark::DoNotOptimize(copy);
  }
}
BENCHMARK(BM_RawCopy);

// --- scope enter/exit with N handles ---------------------------------------------------------

void BM_KscopeScope(benchmark::State& state) {
  const at::Tensor t = at::ones({3});
  const std::int64_t n = state.range(0);
  for (auto _ : state) {
    const auto scope = kscope::Scope::Open();
    for (std::int64_t i = 0; i < n; ++i) kscope::tensor(t);  // owned by `scope`
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_KscopeScope)->Arg(0)->Arg(1)->Arg(16)->Arg(256);

void BM_RawScope(benchmark::State& state) {
  const at::Tensor t = at::ones({3});
  const std::int64_t n = state.range(0);
  for (auto _ : state) {
    std::vector<at::Tensor> held;
    for (std::int64_t i = 0; i < n; ++i) held.push_back(t);
    benchmark::DoNotOptimize(held.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_RawScope)->Arg(1)->Arg(16)->Arg(256);

// --- add on 3-element float tensors ----------------------------------------------------------

void BM_KscopeAdd(benchmark::State& state) {
  const auto scope = kscope::Scope::Open();
  const kscope::Handle a = kscope::tensor(at::rand({3}));
  const kscope::Handle b = kscope::tensor(at::rand({3}));
  for (auto _ : state) kscope::free(kscope::add(a, b));
}
BENCHMARK(BM_KscopeAdd);

// The way scoped code uses kscope: results are not freed one by one but released together
// when their scope exits, here every 64 adds (one lock for the whole batch).
void BM_KscopeAddInScope(benchmark::State& state) {
  constexpr int kBatch = 64;
  const auto scope = kscope::Scope::Open();
  const kscope::Handle a = kscope::tensor(at::rand({3}));
  const kscope::Handle b = kscope::tensor(at::rand({3}));
  while (state.KeepRunningBatch(kBatch)) {
    auto batch = kscope::Scope::Open();
    for (int i = 0; i < kBatch; ++i) benchmark::DoNotOptimize(kscope::add(a, b).handle());
  }
}
BENCHMARK(BM_KscopeAddInScope);

void BM_RawAdd(benchmark::State& state) {
  const at::Tensor x = at::rand({3});
  const at::Tensor y = at::rand({3});
  for (auto _ : state) {
    at::Tensor sum = at::add(x, y);
    benchmark::DoNotOptimize(sum);
  }
}
BENCHMARK(BM_RawAdd);

// The raw twin of BM_KscopeAddInScope: 64 results held, then dropped together.
void BM_RawAddHeld(benchmark::State& state) {
  constexpr int kBatch = 64;
  const at::Tensor x = at::rand({3});
  const at::Tensor y = at::rand({3});
  std::vector<at::Tensor> held;
  held.reserve(kBatch);
  while (state.KeepRunningBatch(kBatch)) {
    for (int i = 0; i < kBatch; ++i) held.push_back(at::add(x, y));
    held.clear();
  }
}
BENCHMARK(BM_RawAddHeld);

// --- the ratios table ------------------------------------------------------------------------

// The console reporter, also recording each benchmark's real time per iteration: the mean over
// its repetitions (Google Benchmark's own mean aggregate when it reports one).
class RecordingReporter : public benchmark::ConsoleReporter {
 public:
  using ConsoleReporter::ConsoleReporter;

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred || run.iterations == 0) continue;
      const double seconds =
          run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit);
      if (run.run_type == Run::RT_Iteration) {
        Timing& timing = timings_[NameOf(run)];
        timing.total_seconds += seconds;
        ++timing.runs;
      } else if (run.aggregate_name == "mean") {
        // The same mean; the only record left under --benchmark_report_aggregates_only.
        timings_[NameOf(run)] = Timing{seconds, 1};
      }
    }
  }

  // Mean seconds per iteration of `name` (e.g. "BM_KscopeScope/16"); nullopt if it did not run.
  std::optional<double> Seconds(const std::string& name) const {
    auto it = timings_.find(name);
    if (it == timings_.end()) return std::nullopt;
    return it->second.total_seconds / it->second.runs;
  }

 private:
  struct Timing {
    double total_seconds = 0;
    int runs = 0;
  };

  static std::string NameOf(const Run& run) {
    const benchmark::BenchmarkName& name = run.run_name;
    return name.args.empty() ? name.function_name : name.function_name + "/" + name.args;
  }

  std::map<std::string, Timing> timings_;
};

// One line of the table: kscope's benchmark against its raw twin.
struct Comparison {
  std::string label;
  std::string kscope;
  std::string raw;          // empty: no raw equivalent, only kscope's time is printed
  double per = 1;           // both times are divided by this (per-handle cost)
  double target = 0;        // ratio target to print; 0: none
};

std::string FormatTime(double seconds) {
  const double ns = seconds * 1e9;
  return ns >= 1000 ? absl::StrFormat("%.2f us", ns / 1000) : absl::StrFormat("%.1f ns", ns);
}

void PrintComparison(const RecordingReporter& reporter, const Comparison& c) {
  const std::optional<double> kscope = reporter.Seconds(c.kscope);
  if (!kscope) return;  // filtered out
  const double kscope_time = *kscope / c.per;
  if (c.raw.empty()) {
    absl::PrintF("%-32s kscope %s (no raw equivalent)\n", c.label + ":", FormatTime(kscope_time));
    return;
  }
  const std::optional<double> raw = reporter.Seconds(c.raw);
  if (!raw) return;
  const double raw_time = *raw / c.per;
  absl::PrintF("%-32s kscope %s, raw %s, ratio %.2f", c.label + ":", FormatTime(kscope_time),
               FormatTime(raw_time), kscope_time / raw_time);
  if (c.target > 0) absl::PrintF(" (target <= %.2f)", c.target);
  absl::PrintF("\n");
}

void PrintRatios(const RecordingReporter& reporter) {
  const std::vector<Comparison> table = {
      {"handle create+free", "BM_KscopeCreateFree", "BM_RawCreateFree"},
      {"lookup HandleTable::Get", "BM_KscopeGet", "BM_RawCopy"},
      {"lookup TensorOf", "BM_KscopeTensorOf", "BM_RawCopy"},
      {"scope, 0 handles", "BM_KscopeScope/0", ""},
      {"scope, 1 handle", "BM_KscopeScope/1", "BM_RawScope/1"},
      {"scope, 16 handles, per handle", "BM_KscopeScope/16", "BM_RawScope/16", 16},
      {"scope, 256 handles, per handle", "BM_KscopeScope/256", "BM_RawScope/256", 256},
      {"add 3-element, free each", "BM_KscopeAdd", "BM_RawAdd", 1, 1.10},
      {"add 3-element, scope per 64", "BM_KscopeAddInScope", "BM_RawAddHeld", 1, 1.10},
  };
  absl::PrintF("\nkscope / raw libtorch, real time per iteration:\n");
  for (const Comparison& c : table) PrintComparison(reporter, c);
}

}  // namespace

int main(int argc, char** argv) {
  at::set_num_threads(1);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  RecordingReporter reporter(isatty(STDOUT_FILENO) ? benchmark::ConsoleReporter::OO_ColorTabular
                                                   : benchmark::ConsoleReporter::OO_Tabular);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  PrintRatios(reporter);

  kscope::free();
  if (kscope::live_handles() != 0) {
    absl::FPrintF(stderr, "warning: %d handle(s) still live at exit\n", kscope::live_handles());
  }
  return 0;
}
