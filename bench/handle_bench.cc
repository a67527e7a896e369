// kscope_bench — what kscope's handles cost over holding libtorch tensors directly.
//
// Each kscope benchmark has a raw libtorch twin doing the same libtorch work without the
// handle table:
//   - create+free: register a 3-element tensor as a handle and free it, vs pushing one more
//     reference to it onto a std::vector and popping it;
//   - lookup: HandleTable::Get and TensorOf on a live handle, vs copying an at::Tensor;
//   - scope: open a Scope, create N handles in it and let it close (N = 0, 1, 16, 256), vs
//     filling a std::vector with N references and dropping it; items/s is per handle;
//   - scope exit alone: the same with 256 handles, only the exit (the vector's drop) timed;
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
// ratios then use the median of the repetitions).
#include <cstdint>
#include <vector>

#include <ATen/Parallel.h>
#include <ATen/ops/add.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/rand.h>
#include <benchmark/benchmark.h>

#include "absl/strings/str_format.h"
#include "bench/ratio_report.h"
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

// A scope's exit alone: its handles are made with the clock stopped, and the clock's own stop
// and start (a few hundred ns) are spread over 256 handles.
void BM_KscopeScopeExit(benchmark::State& state) {
  const at::Tensor t = at::ones({3});
  const std::int64_t n = state.range(0);
  for (auto _ : state) {
    state.PauseTiming();
    const auto scope = kscope::Scope::Open();
    for (std::int64_t i = 0; i < n; ++i) kscope::tensor(t);
    state.ResumeTiming();
  }  // the scope exits here, timed
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_KscopeScopeExit)->Arg(256);

void BM_RawScopeExit(benchmark::State& state) {
  const at::Tensor t = at::ones({3});
  const std::int64_t n = state.range(0);
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<at::Tensor> held(static_cast<std::size_t>(n), t);
    benchmark::DoNotOptimize(held.data());
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_RawScopeExit)->Arg(256);

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

std::vector<kscope::bench::Comparison> RatioTable() {
  return {
      {"handle create+free", "BM_KscopeCreateFree", "BM_RawCreateFree"},
      {"lookup HandleTable::Get", "BM_KscopeGet", "BM_RawCopy"},
      {"lookup TensorOf", "BM_KscopeTensorOf", "BM_RawCopy"},
      {"scope, 0 handles", "BM_KscopeScope/0", ""},
      {"scope, 1 handle", "BM_KscopeScope/1", "BM_RawScope/1"},
      {"scope, 16 handles, per handle", "BM_KscopeScope/16", "BM_RawScope/16", 16},
      {"scope, 256 handles, per handle", "BM_KscopeScope/256", "BM_RawScope/256", 256},
      {"scope exit alone, 256 handles, per handle", "BM_KscopeScopeExit/256", "BM_RawScopeExit/256",
       256},
      {"add 3-element, free each", "BM_KscopeAdd", "BM_RawAdd", 1, 1.10},
      {"add 3-element, scope per 64", "BM_KscopeAddInScope", "BM_RawAddHeld", 1, 1.10},
  };
}

}  // namespace

int main(int argc, char** argv) {
  at::set_num_threads(1);
  const int rc = kscope::bench::RunWithRatios(
      argc, argv, "kscope / raw libtorch, real time per iteration:", RatioTable());
  if (rc != 0) return rc;

  kscope::free();
  if (kscope::live_handles() != 0) {
    absl::FPrintF(stderr, "warning: %d handle(s) still live at exit\n", kscope::live_handles());
  }
  return 0;
}
