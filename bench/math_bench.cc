// math_bench — the per-call overhead of a pointwise op (add), a reduction (mean) and a matrix
// product (mm), through kscope's C++ API and through the q plugin, against raw libtorch, on tiny
// and on large tensors.
//
// Every operation and size runs the same libtorch work on the same float inputs four ways:
//   - raw:        the at:: call on at::Tensor (at::add, at::mean, at::mm), its result dropped;
//   - api:        kscope's call on handles (api/math/math.h), the new handle freed;
//   - plugin ptr: ktorch.so's exported function, looked up by name in fns and called as q calls
//                 it (bench/plugin_session.h), on tensor pointers: r:add(a;b) / r:mean a /
//                 r:mm(a;b), then free r, every owned k result r0'd, as a q user would;
//   - plugin k:   the same function on k data, add(x;y) / mean x / mm(x;y) with real vectors and
//                 matrices (lists of real rows) in and k data out: it includes converting k to
//                 tensors and the result back to k.
// Sizes: tiny — add and mean on 3 elements, mm on 2x2; large — add and mean on 2^20 elements,
// mm on 512x512. Inputs are randn floats (seed 0), made once per benchmark, outside the timing.
//
// Benchmarks are named "<way>/<op>/<size>" (raw/add/tiny, plugin_k/mm/large), so
// --benchmark_filter=mm/ or =/tiny selects. After Google Benchmark's table the binary prints, per
// operation and size, api/raw, plugin ptr/raw and plugin k/raw from times measured in the same
// run (bench/ratio_report.h). libtorch runs on one thread (at::set_num_threads(1)); set
// OMP_NUM_THREADS=1 as well so that a BLAS reading it at load time agrees.
//
// Run:  ninja -C build math_bench && OMP_NUM_THREADS=1 ./build/bench/math_bench
// Any Google Benchmark flag works (--benchmark_repetitions=5: the ratios use the median).
#include <cstdint>
#include <string>
#include <vector>

#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/add.h>
#include <ATen/ops/mean.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/randn.h>
#include <benchmark/benchmark.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "bench/plugin_session.h"
#include "bench/ratio_report.h"
#include "kscope/kscope.h"
#include "tests/build_paths.h"

namespace {

using kscope::bench::PluginCalls;
using kscope::bench::PluginFn;

// One operation, its inputs' shape at each size (all its inputs share it) and its two C++ forms.
struct MathOp {
  std::string
      name;  // exported by the plugin under this name; api/math/math.h's function of that name
  int arity;
  std::vector<std::int64_t> tiny;
  std::vector<std::int64_t> large;
  at::Tensor (*raw)(absl::Span<const at::Tensor> x);
  kscope::Result (*api)(absl::Span<const kscope::Handle> x);
};

const std::vector<MathOp>& MathOps() {
  static const std::vector<MathOp> ops = {
      {"add",
       2,
       {3},
       {1 << 20},
       [](absl::Span<const at::Tensor> x) { return at::add(x[0], x[1]); },
       [](absl::Span<const kscope::Handle> x) { return kscope::add(x[0], x[1]); }},
      {"mean",
       1,
       {3},
       {1 << 20},
       [](absl::Span<const at::Tensor> x) { return at::mean(x[0]); },
       [](absl::Span<const kscope::Handle> x) { return kscope::mean(x[0]); }},
      {"mm",
       2,
       {2, 2},
       {512, 512},
       [](absl::Span<const at::Tensor> x) { return at::mm(x[0], x[1]); },
       [](absl::Span<const kscope::Handle> x) { return kscope::mm(x[0], x[1]); }},
  };
  return ops;
}

// One benchmarked call: an operation at one size.
struct Case {
  const MathOp* op;
  std::string size;  // "tiny" or "large"
  std::vector<std::int64_t> shape;

  // The benchmark's name for one way of making the call: "<way>/<op>/<size>".
  std::string Name(const std::string& way) const {
    return absl::StrCat(way, "/", op->name, "/", size);
  }

  // The op's inputs: arity randn float tensors of `shape`, the same on every call.
  std::vector<at::Tensor> Inputs() const {
    at::manual_seed(0);
    std::vector<at::Tensor> inputs;
    for (int i = 0; i < op->arity; ++i) inputs.push_back(at::randn(shape, at::kFloat));
    return inputs;
  }
};

void Raw(benchmark::State& state, const Case& c) {
  const std::vector<at::Tensor> x = c.Inputs();
  for (auto _ : state) {
    at::Tensor r = c.op->raw(x);
    benchmark::DoNotOptimize(r);
  }
}

void Api(benchmark::State& state, const Case& c) {
  std::vector<kscope::Handle> handles;
  for (const at::Tensor& t : c.Inputs()) handles.push_back(kscope::tensor(t));
  for (auto _ : state) kscope::free(c.op->api(handles));
  kscope::free(handles);
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (const MathOp& op : MathOps()) {
    cases.push_back({&op, "tiny", op.tiny});
    cases.push_back({&op, "large", op.large});
  }
  return cases;
}

// Registers the four ways of each case (each benchmark keeps a copy of its case) and returns the
// ratios table: each way over raw.
std::vector<kscope::bench::Comparison> Register(const std::vector<Case>& cases,
                                                const kscope::bench::PluginSession& session) {
  std::vector<kscope::bench::Comparison> table;
  for (const Case& c : cases) {
    const PluginFn op = session.Function(c.op->name);
    const PluginCalls plugin = session.Calls();
    const std::vector<at::Tensor> inputs = c.Inputs();
    benchmark::RegisterBenchmark(c.Name("raw").c_str(), Raw, c);
    benchmark::RegisterBenchmark(c.Name("api").c_str(), Api, c);
    benchmark::RegisterBenchmark(c.Name("plugin_ptr").c_str(), kscope::bench::CallOnPointers,
                                 plugin, op, inputs);
    benchmark::RegisterBenchmark(c.Name("plugin_k").c_str(), kscope::bench::CallOnData, op, inputs);
    const std::string what = absl::StrCat(c.op->name, " ", c.size);
    const std::string raw = c.Name("raw");
    table.push_back({what + ", api/raw", c.Name("api"), raw, 1, 0, "api", "raw"});
    table.push_back(
        {what + ", plugin ptr/raw", c.Name("plugin_ptr"), raw, 1, 0, "plugin ptr", "raw"});
    table.push_back(
        {what + ", plugin k/raw", c.Name("plugin_k"), raw, 1, 0, "plugin k+conversion", "raw"});
  }
  return table;
}

}  // namespace

int main(int argc, char** argv) {
  at::set_num_threads(1);
  const kscope::bench::PluginSession session(kscope::testing::kPluginPath);
  kscope::bench::ExitUnlessLoaded(session, "math_bench");
  std::vector<std::string> needed = {"tensor", "free"};
  for (const MathOp& op : MathOps()) needed.push_back(op.name);
  for (const std::string& name : needed) {
    if (session.Function(name) == nullptr) {
      absl::FPrintF(stderr, "math_bench: %s exports no rank-1 %s\n", kscope::testing::kPluginPath,
                    name);
      return 1;
    }
  }

  const int rc = kscope::bench::RunWithRatios(
      argc, argv,
      "api / plugin on pointers / plugin on k data, each over raw libtorch, real time per call:",
      Register(Cases(), session));
  if (rc != 0) return rc;
  session.CheckClean();
  return 0;
}
