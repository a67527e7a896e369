// plugin_bench — the per-call cost of small calls through the q plugin, beside ktorch's own
// plugin, kscope's C++ API and raw libtorch, all measured in one run.
//
// Ways of doing the same libtorch work:
//   - kscope:  kscope's ktorch.so loaded into the k host (tests/khost/) as q loads it, its
//              functions called through their C pointers as q calls them (none of the host's
//              per-call checks), every owned result r0'd as q would;
//   - ktorch:  the real ktorch's ktorch.so, the same way, when its path is given with
//              --ktorch=PATH (build it from github.com/ktorch/ktorch against the same libtorch;
//              never part of this repository);
//   - api:     the kscope call from C++ (kscope/kscope.h);
//   - raw:     libtorch alone.
// The calls, on 3-element float vectors (mm: 2x2 float matrices):
//   - tensor+free        p:tensor 1 2 3e; free p  | kscope::free(kscope::tensor(values)) |
//                        at::detail::empty_cpu + memcpy, dropped (libtorch's CPU allocation
//                        without the dispatcher's trip, as kscope's plugin makes it; ktorch
//                        goes through at::empty);
//   - add handles+free   r:add(a;b); free r, (a;b) built once | free(add(a, b)) | at::add;
//   - add data           add(1 2 3e;4 5 6e): k data in, a k vector out | add(x, y) on
//                        at::Tensors | at::add;
//   - mm handles+free, mm data: the same with mm on 2x2 matrices (k: lists of real rows);
//   - mapped             mapped a on a live pointer (kscope and ktorch only).
// Handles live in the root scope (no scope open), where a q session's pointers live. libtorch
// runs on one thread.
//
// The k host's allocator stands in for q's in both plugin columns (a pointer is two k objects);
// the row "k host: a pointer's objects" times that part alone.
//
// After the Google Benchmark table the binary prints, per call, kscope/raw, ktorch/raw,
// api/raw and — the figure to watch — kscope's overhead over ktorch's: (kscope − raw) /
// (ktorch − raw), from times measured in the same run (bench/ratio_report.h). For the calls
// that return a pointer, the "own" line also takes the host's share out of both overheads:
// (kscope − raw − host) / (ktorch − raw − host), each plugin's own code compared. The host's
// checked allocator costs several times what q's does, so the first line understates how far
// apart the plugins are.
//
// Run:  ninja -C build plugin_bench && OMP_NUM_THREADS=1 ./build/bench/plugin_bench
//         [--ktorch=/path/to/ktorch.so] [--iterations=N] [--benchmark_min_time=0.2]
// Any Google Benchmark flag works (--benchmark_filter=add, --benchmark_repetitions=5: the ratios
// then use the median of the repetitions). --iterations=N runs each row exactly N times, once:
// bench/plugin_instructions.sh counts instructions per call that way, under callgrind.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <ATen/EmptyTensor.h>
#include <ATen/Parallel.h>
#include <ATen/ops/add.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/mm.h>
#include <benchmark/benchmark.h>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/plugin_session.h"
#include "bench/ratio_report.h"
#include "kscope/kscope.h"
#include "tests/build_paths.h"
#include "tests/khost/khost.h"

namespace {

using kscope::bench::Comparison;
using kscope::bench::PluginCalls;
using kscope::bench::PluginFn;
using kscope::bench::PluginSession;

// A float tensor of `shape` holding 1, 2, 3, ... (plus `offset`), made as both plugins and
// kscope::tensor make one from k data: at::empty, then a copy of the values.
at::Tensor Floats(const std::vector<std::int64_t>& shape, float offset) {
  at::Tensor t = at::empty(shape, at::kFloat);
  float* values = t.data_ptr<float>();
  for (std::int64_t i = 0; i < t.numel(); ++i) values[i] = static_cast<float>(i + 1) + offset;
  return t;
}

// A binary call's C++ forms.
struct BinaryOp {
  std::string name;  // exported under this name by both plugins
  std::vector<std::int64_t> shape;
  at::Tensor (*raw)(const at::Tensor& x, const at::Tensor& y);
  kscope::Result (*api)(const kscope::Operand& x, const kscope::Operand& y);
};

const std::vector<BinaryOp>& BinaryOps() {
  static const std::vector<BinaryOp> ops = {
      {"add",
       {3},
       [](const at::Tensor& x, const at::Tensor& y) { return at::add(x, y); },
       [](const kscope::Operand& x, const kscope::Operand& y) { return kscope::add(x, y); }},
      {"mm",
       {2, 2},
       [](const at::Tensor& x, const at::Tensor& y) { return at::mm(x, y); },
       [](const kscope::Operand& x, const kscope::Operand& y) { return kscope::mm(x, y); }},
  };
  return ops;
}

std::vector<at::Tensor> InputsOf(const BinaryOp& op) {
  return {Floats(op.shape, 0), Floats(op.shape, 3)};
}

// --- the C++ sides ---------------------------------------------------------------------------

void RawBinary(benchmark::State& state, const BinaryOp& op) {
  const std::vector<at::Tensor> x = InputsOf(op);
  for (auto _ : state) {
    at::Tensor r = op.raw(x[0], x[1]);
    benchmark::DoNotOptimize(r);
  }
}

void ApiOnHandles(benchmark::State& state, const BinaryOp& op) {
  const std::vector<at::Tensor> x = InputsOf(op);
  const kscope::Handle a = kscope::tensor(x[0]);
  const kscope::Handle b = kscope::tensor(x[1]);
  for (auto _ : state) kscope::free(op.api(a, b));
  kscope::free(a);
  kscope::free(b);
}

void ApiOnData(benchmark::State& state, const BinaryOp& op) {
  const std::vector<at::Tensor> x = InputsOf(op);
  for (auto _ : state) {
    kscope::Result r = op.api(x[0], x[1]);
    benchmark::DoNotOptimize(r);
  }
}

const std::vector<float> kValues = {1, 2, 3};

void RawTensor(benchmark::State& state) {
  static constexpr float kFloats[] = {1, 2, 3};
  for (auto _ : state) {
    at::Tensor t = at::detail::empty_cpu({3}, at::kFloat);
    std::memcpy(t.data_ptr(), kFloats, sizeof kFloats);
    benchmark::DoNotOptimize(t);
  }
}

void ApiTensorFree(benchmark::State& state) {
  for (auto _ : state) kscope::free(kscope::tensor(kValues));
}

// --- the plugin sides ------------------------------------------------------------------------

// Per iteration: p:tensor 1 2 3e; free p.
void PluginTensorFree(benchmark::State& state, PluginCalls plugin) {
  const khost::KRef x(kq::Reals({1, 2, 3}));
  kscope::bench::CallAndFree(state, plugin, plugin.tensor, x.get());
}

// Per iteration: mapped a, on a pointer made once.
void PluginMapped(benchmark::State& state, PluginCalls plugin, PluginFn mapped) {
  khost::ClearError();
  const khost::KRef x(kq::Reals({1, 2, 3}));
  const khost::KRef a(plugin.tensor(x.get()));
  if (!a) {
    kscope::bench::SkipIfFailed(state);
    return;
  }
  for (auto _ : state) {
    kabi::K r = mapped(a.get());
    if (r == nullptr) break;
    kabi::r0(r);
  }
  kscope::bench::SkipIfFailed(state);
  kscope::bench::Drop(plugin.free(a.get()));
}

// The k objects of one pointer, knk(1, kj id), allocated and r0'd by the host.
void HostPointerObjects(benchmark::State& state) {
  for (auto _ : state) kabi::r0(kabi::knk(1, kabi::kj(1)));
}

// --- registration and the ratios -------------------------------------------------------------

// One plugin under its column name ("kscope", "ktorch").
struct Column {
  std::string name;
  const PluginSession* session;
};

// Each row's iterations, when --iterations gives them (0: Google Benchmark chooses).
std::int64_t fixed_iterations = 0;

// Registers `way`'s benchmark for `call` as "<call>/<way>" and returns its name.
template <typename... A>
std::string Register(const std::string& call, const std::string& way, A&&... args) {
  const std::string name = absl::StrCat(call, "/", way);
  benchmark::internal::Benchmark* b =
      benchmark::RegisterBenchmark(name.c_str(), std::forward<A>(args)...);
  if (fixed_iterations > 0) b->Iterations(fixed_iterations);
  return name;
}

constexpr char kHostPointer[] = "k host/pointer objects";

// The rows for one call: each way over raw, and kscope's overhead over ktorch's; for a call
// that returns one pointer, also their own overheads, the host's share (kHostPointer) taken out.
void AddRows(std::vector<Comparison>* table, const std::string& call,
             const std::vector<std::string>& plugins, bool has_api, bool has_raw,
             bool returns_pointer = false) {
  const std::string raw = call + "/raw";
  for (const std::string& plugin : plugins) {
    if (has_raw)
      table->push_back(
          {call + ", " + plugin + "/raw", call + "/" + plugin, raw, 1, 0, plugin, "raw"});
  }
  if (has_api) table->push_back({call + ", api/raw", call + "/api", raw, 1, 0, "api", "raw"});
  if (plugins.size() < 2) {
    if (!has_raw) table->push_back({call, call + "/kscope", "", 1, 0, "kscope", "raw"});
    return;
  }
  Comparison overhead{
      call + ", kscope/ktorch", call + "/kscope", call + "/ktorch", 1, 0, "kscope", "ktorch"};
  if (has_raw) {
    overhead.floor = {raw};
    overhead.target = 2.0 / 3;
  }
  table->push_back(overhead);
  if (has_raw && returns_pointer) {
    Comparison own = overhead;
    own.label = call + ", own, kscope/ktorch";
    own.floor = {raw, kHostPointer};
    own.floor_name = "raw+host";
    table->push_back(own);
  }
}

std::vector<Comparison> RegisterAll(const std::vector<Column>& columns) {
  std::vector<Comparison> table;
  std::vector<std::string> plugins;
  for (const Column& c : columns) plugins.push_back(c.name);

  for (const Column& c : columns)
    Register("tensor+free", c.name, PluginTensorFree, c.session->Calls());
  Register("tensor+free", "api", ApiTensorFree);
  Register("tensor+free", "raw", RawTensor);
  AddRows(&table, "tensor+free", plugins, true, true, /*returns_pointer=*/true);

  for (const BinaryOp& op : BinaryOps()) {
    const std::string handles = op.name + " handles+free";
    const std::string data = op.name + " data";
    for (const Column& c : columns) {
      const PluginFn f = c.session->Function(op.name);
      Register(handles, c.name, kscope::bench::CallOnPointers, c.session->Calls(), f, InputsOf(op));
      Register(data, c.name, kscope::bench::CallOnData, f, InputsOf(op));
    }
    Register(handles, "api", ApiOnHandles, op);
    Register(handles, "raw", RawBinary, op);
    Register(data, "api", ApiOnData, op);
    Register(data, "raw", RawBinary, op);
    AddRows(&table, handles, plugins, true, true, /*returns_pointer=*/true);
    AddRows(&table, data, plugins, true, true);
  }

  for (const Column& c : columns) {
    Register("mapped", c.name, PluginMapped, c.session->Calls(), c.session->Function("mapped"));
  }
  AddRows(&table, "mapped", plugins, false, false);

  Register("k host", "pointer objects", HostPointerObjects);
  table.push_back({"k host: a pointer's objects", kHostPointer, "", 1, 0, "host", "q"});
  return table;
}

// Whether the plugin has every function the benchmarks call (if not, says which, for main to
// exit); if so, calls each once, so that no benchmark's time includes a plugin's first-use
// initialisation (ktorch's first tensor takes tens of milliseconds).
bool CheckAndWarmUp(const PluginSession& session, const std::string& path) {
  for (const char* name : {"tensor", "free", "add", "mm", "mapped"}) {
    if (session.Function(name) == nullptr) {
      absl::FPrintF(stderr, "plugin_bench: %s exports no rank-1 %s\n", path, name);
      return false;
    }
  }
  const PluginCalls plugin = session.Calls();
  const at::Tensor square = Floats({2, 2}, 0);
  const khost::KRef x(kscope::bench::KFromFloats(square));
  const khost::KRef p(plugin.tensor(x.get()));
  const khost::KRef pp(kq::List({kabi::r1(p.get()), kabi::r1(p.get())}));
  const khost::KRef xx(kq::List({kabi::r1(x.get()), kabi::r1(x.get())}));
  for (const char* name : {"add", "mm"}) {
    const khost::KRef r(session.Function(name)(pp.get()));
    if (r) kscope::bench::Drop(plugin.free(r.get()));
    kscope::bench::Drop(session.Function(name)(xx.get()));
  }
  kscope::bench::Drop(session.Function("mapped")(p.get()));
  kscope::bench::Drop(plugin.free(p.get()));
  khost::ClearError();  // only the warm-up mattered; a failing benchmark reports its own error
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  at::set_num_threads(1);
  // --ktorch=PATH and --iterations=N are this program's; every other argument is Google
  // Benchmark's.
  std::string ktorch_path;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (absl::StartsWith(argv[i], "--ktorch=")) {
      ktorch_path = argv[i] + std::strlen("--ktorch=");
    } else if (absl::StartsWith(argv[i], "--iterations=")) {
      if (!absl::SimpleAtoi(argv[i] + std::strlen("--iterations="), &fixed_iterations) ||
          fixed_iterations <= 0) {
        absl::FPrintF(stderr, "plugin_bench: --iterations expects a positive count, given %s\n",
                      argv[i]);
        return 2;
      }
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;

  const PluginSession kscope_plugin(kscope::testing::kPluginPath);
  kscope::bench::ExitUnlessLoaded(kscope_plugin, "plugin_bench");
  if (!CheckAndWarmUp(kscope_plugin, kscope::testing::kPluginPath)) return 1;
  std::vector<Column> columns = {{"kscope", &kscope_plugin}};
  std::unique_ptr<PluginSession> ktorch_plugin;
  if (!ktorch_path.empty()) {
    ktorch_plugin = std::make_unique<PluginSession>(ktorch_path);
    kscope::bench::ExitUnlessLoaded(*ktorch_plugin, "plugin_bench (--ktorch)");
    if (!CheckAndWarmUp(*ktorch_plugin, ktorch_path)) return 1;
    columns.push_back({"ktorch", ktorch_plugin.get()});
  }

  // The C++ side's first calls too (the catalogue is built on first use).
  kscope::free(kscope::tensor(kValues));
  for (const BinaryOp& op : BinaryOps()) {
    const std::vector<at::Tensor> x = InputsOf(op);
    op.api(x[0], x[1]);
  }

  const int rc = kscope::bench::RunWithRatios(
      argc, argv,
      ktorch_plugin ? "kscope's ktorch.so / the real ktorch.so / kscope's C++ api / raw libtorch, "
                      "real time per call:"
                    : "kscope's ktorch.so / kscope's C++ api / raw libtorch, real time per call "
                      "(give --ktorch=PATH for ktorch's column):",
      RegisterAll(columns));
  if (rc != 0) return rc;
  kscope_plugin.CheckClean();
  if (ktorch_plugin) ktorch_plugin->CheckClean();
  return 0;
}
