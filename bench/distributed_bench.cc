// distributed_bench — data-parallel scaling on this machine, beside PyTorch's
// DistributedDataParallel: two cases, each trained through `run` by one process and by two
// processes with the model bound to a two-rank group (kscope::distribute: each rank takes every
// other batch, gradients averaged every step), and the same by PyTorch from Python
// (bench/ddp_bench.py: one process, and DDP over Gloo with two processes), all in one run:
//   linear  the MNIST-shaped model of bench/train_bench.cc: 60000x784 randn rows, randint 10
//           targets, batch 1000 per rank, a 784->10 linear, cross-entropy, sgd .01 (7,850
//           parameters: communication is small beside compute);
//   mlp     784-1024-1024-10 with relu, batch 64 per rank, 5120 rows (1.86M parameters: the
//           gradients' allreduce is comparable with a step's compute).
//
// Reports per case the median epochs and, as ratios: speedup (one process's epoch / two
// processes' epoch, the same rows per epoch in all), scaling efficiency (speedup / 2), kscope's
// two ranks over DDP's two ranks, kscope's two ranks with the gradients averaged during backward
// (distribute's default) over the same averaged after backward, and, to tell the machine's limit
// from the cost of data parallelism, the epoch of the two processes each training its half alone at
// the same time (the model unbound: no averaging), plus one allreduce of the model's gradients (one
// bucket), and the minor page faults per step of each side's timed epochs (rank 0's, for two
// ranks: a process that faults its freed memory in again at every step shows here,
// docs/benchmarks.md). Every process runs libtorch on one thread; kscope's keep the C heap's freed
// memory (kscope::keep_freed_memory, as the q plugin does; KSCOPE_KEEP_FREED_MEMORY=0 to compare
// without), PyTorch's run as shipped.
//
// The program is its own workers: without --rank it starts itself once per case for the
// one-process epochs (--rank=-2: a fresh process, as each of PyTorch's runs is; timed in the
// parent after the `linear` case, the same `mlp` steps once ran twice as slowly on a 16-core
// host, docs/benchmarks.md) and twice per case as the ranks (--rank=0 and 1, a file rendezvous
// in a fresh directory), and reads their medians back from a file; the Python side runs as
// --python (Debian's python3 with python3-torch: the same libtorch 1.13) bench/ddp_bench.py, and
// is left out, saying why, when that python has no torch.
//
// Build: cmake --build build --target distributed_bench
// Run:   OMP_NUM_THREADS=1 build/bench/distributed_bench [--repetitions=11] [--python=python3]
//        [--cases=linear,mlp]
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <ATen/Parallel.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/zeros.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "kscope/kscope.h"

ABSL_FLAG(int, repetitions, 11, "timed epochs per case; the median is reported");
ABSL_FLAG(std::string, python, "/usr/bin/python3",
          "the python whose torch runs bench/ddp_bench.py (the DDP anchor)");
ABSL_FLAG(std::vector<std::string>, cases, std::vector<std::string>({"linear", "mlp"}),
          "the cases to run");
ABSL_FLAG(int, rank, -1,
          "internal: run as this rank of a two-rank group (-2: time the one-process epoch)");
ABSL_FLAG(int, case_index, 0, "internal: the case the rank runs");
ABSL_FLAG(std::string, rendezvous, "", "internal: the group's rendezvous");
ABSL_FLAG(std::string, results, "", "internal: where rank 0 (or the one process) writes");

extern char** environ;

namespace {

constexpr std::int64_t kFeatures = 784, kClasses = 10;
constexpr double kLr = 0.01;
constexpr int kWorld = 2, kAllreduceCalls = 50;
constexpr int kOneProcess = -2;  // --rank of the one-process worker

// One model and its data.
struct Case {
  const char* name;
  std::vector<std::int64_t> hidden;  // hidden layers' widths (relu after each)
  std::int64_t rows;
  std::int64_t batch;  // per rank
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {{"linear", {}, 60000, 1000},
                                          {"mlp", {1024, 1024}, 5120, 64}};
  return cases;
}

std::int64_t Parameters(const Case& c) {
  std::int64_t n = 0, width = kFeatures;
  for (std::int64_t h : c.hidden) {
    n += (width + 1) * h;
    width = h;
  }
  return n + (width + 1) * kClasses;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Milliseconds of each of n calls of f.
std::vector<double> Samples(int n, const std::function<void()>& f) {
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  return ms;
}

std::int64_t MinorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// The case's model with the whole data, the same on every process (seeded alike).
kscope::Handle Model(const Case& c) {
  at::manual_seed(0);
  const at::Tensor x = at::randn({c.rows, kFeatures}),
                   y = at::randint(kClasses, {c.rows}, at::kLong);
  std::vector<kscope::ModuleDefinition> layers;
  std::int64_t width = kFeatures;
  for (std::int64_t h : c.hidden) {
    layers.push_back({"linear", "", {width, h}, {}, {}});
    layers.push_back({"relu", "", {}, {}, {}});
    width = h;
  }
  layers.push_back({"linear", "", {width, kClasses}, {}, {}});
  const kscope::Handle q = kscope::module({"sequential", "", {}, {}, layers});
  const kscope::Handle m = kscope::model({q, kscope::loss("ce"), kscope::opt("sgd", q, {kLr})});
  kscope::train(m, {{"batchsize", c.batch}});
  kscope::model_data(m, kscope::nn::DataMode::kTrain, x, y);
  return m;
}

// An epoch's median milliseconds and the minor page faults per step of the timed epochs.
struct Epochs {
  double ms = 0, faults_per_step = 0;
};

// m's epochs (`steps` steps each), timed after one warm-up epoch.
Epochs TimeEpochs(kscope::Handle m, std::int64_t steps) {
  kscope::run(m);
  const int n = absl::GetFlag(FLAGS_repetitions);
  const std::int64_t faults = MinorFaults();
  const double ms = Median(Samples(n, [&] { kscope::run(m); }));
  return {ms, static_cast<double>(MinorFaults() - faults) / static_cast<double>(n * steps)};
}

// One rank of a case's two-rank run: writes "epoch_ms after_ms halves_ms allreduce_ms
// faults_per_step" (rank 0; `after`: the gradients averaged after backward instead of during it;
// the faults: the data-parallel epochs').
int Rank(int rank, const Case& c) {
  const auto scope = kscope::Scope::Open();
  kscope::GroupOptions o;
  o.rank = rank;
  o.world = kWorld;
  o.rendezvous = absl::GetFlag(FLAGS_rendezvous);
  o.timeout = std::chrono::seconds(120);
  const kscope::Handle g = kscope::group(o);
  const kscope::Handle m = Model(c);
  kscope::distribute(m, g);
  const std::int64_t steps = c.rows / c.batch / kWorld;
  const Epochs epoch = TimeEpochs(m, steps);
  kscope::DistributeOptions after_backward;
  after_backward.overlap = false;
  kscope::distribute(m, g, after_backward);
  const double after = TimeEpochs(m, steps).ms;
  // The same batches without averaging: two independent halves at once, what the machine gives.
  kscope::undistribute(m);
  kscope::barrier(g);
  const double halves = TimeEpochs(m, steps).ms;
  const kscope::Handle gradients = kscope::vector({at::zeros({Parameters(c)})});
  kscope::barrier(g);
  const double allreduce = Median(
      Samples(kAllreduceCalls, [&] { kscope::allreduce(gradients, kscope::Reduction::kSum, g); }));
  if (rank == 0)
    std::ofstream(absl::GetFlag(FLAGS_results))
        << epoch.ms << " " << after << " " << halves << " " << allreduce << " "
        << epoch.faults_per_step << "\n";
  return 0;
}

// The one-process epoch of a case, timed in a process of its own: writes "epoch_ms
// faults_per_step".
int OneProcess(const Case& c) {
  const auto scope = kscope::Scope::Open();
  const Epochs epoch = TimeEpochs(Model(c), c.rows / c.batch);
  std::ofstream(absl::GetFlag(FLAGS_results)) << epoch.ms << " " << epoch.faults_per_step << "\n";
  return 0;
}

// Starts this program as each of `ranks` (see --rank) and waits; true when all exited 0.
bool RunWorkers(const std::vector<int>& ranks, int case_index, const std::string& rendezvous,
                const std::string& results) {
  std::vector<pid_t> pids;
  for (int rank : ranks) {
    std::vector<std::string> args = {
        "/proc/self/exe",
        absl::StrCat("--rank=", rank),
        absl::StrCat("--case_index=", case_index),
        "--rendezvous=" + rendezvous,
        "--results=" + results,
        absl::StrCat("--repetitions=", absl::GetFlag(FLAGS_repetitions))};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) == 0)
      pids.push_back(pid);
  }
  bool ok = pids.size() == ranks.size();
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  return ok;
}

// PyTorch's epochs of the case (bench/ddp_bench.py) with `world` processes (DDP for 2), rank
// 0's; 0 ms with the reason on stderr when it could not run.
Epochs PythonEpochs(const Case& c, int world) {
  std::string hidden;
  for (std::int64_t h : c.hidden) absl::StrAppend(&hidden, hidden.empty() ? "" : ",", h);
  const std::string command = absl::StrFormat(
      "%s %s --world %d --rows %d --batch %d --repetitions %d%s 2>&1", absl::GetFlag(FLAGS_python),
      KSCOPE_DDP_BENCH, world, c.rows, c.batch, absl::GetFlag(FLAGS_repetitions),
      hidden.empty() ? "" : " --hidden " + hidden);
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {};
  std::string output;
  char buffer[4096];
  while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) output += buffer;
  pclose(pipe);
  const std::size_t at = output.find("result\tddp\t");
  Epochs epochs;
  if (at == std::string::npos ||
      std::sscanf(output.c_str() + at, "result\tddp\t%*d\t%lf\t%*f\t%*f\t%lf", &epochs.ms,
                  &epochs.faults_per_step) != 2) {
    absl::FPrintF(stderr, "distributed_bench: PyTorch's side did not run (%s):\n%s\n", command,
                  output.substr(0, 2000));
    return {};
  }
  return epochs;
}

// The `count` numbers that the workers `ranks` of a case write (OneProcess's, or rank 0's of
// Rank), all 0 when a worker failed.
std::vector<double> RunAndRead(const std::vector<int>& ranks, int case_index, int count) {
  std::vector<double> numbers(count, 0.0);
  char directory[] = "/tmp/kscope_distributed_bench_XXXXXX";
  if (mkdtemp(directory) == nullptr) return numbers;
  const std::string rendezvous = absl::StrCat(directory, "/rendezvous"),
                    results = absl::StrCat(directory, "/results");
  if (RunWorkers(ranks, case_index, rendezvous, results)) {
    std::ifstream in(results);
    for (double& n : numbers) in >> n;
  }
  std::remove(rendezvous.c_str());
  std::remove(results.c_str());
  rmdir(directory);
  return numbers;
}

// Rank 0's "epoch after halves allreduce faults_per_step" of the case's two-rank run, all 0
// when it failed.
struct TwoRanks {
  double epoch = 0, after = 0, halves = 0, allreduce = 0, faults_per_step = 0;
};

TwoRanks RunTwoRanks(int case_index) {
  const std::vector<double> n = RunAndRead({0, 1}, case_index, 5);
  return {n[0], n[1], n[2], n[3], n[4]};
}

// The case's measurements and ratios; false when kscope's two-rank run failed.
bool Report(int case_index) {
  const Case& c = Cases()[case_index];
  const std::vector<double> one_process = RunAndRead({kOneProcess}, case_index, 2);
  const double one = one_process[0];
  const TwoRanks two = RunTwoRanks(case_index);
  if (one <= 0 || two.epoch <= 0) {
    absl::FPrintF(stderr, "distributed_bench: the %s case's %s run failed\n", c.name,
                  one <= 0 ? "one-process" : "two-rank");
    return false;
  }
  const Epochs python = PythonEpochs(c, 1), ddp_epochs = PythonEpochs(c, kWorld);
  const double python_one = python.ms, ddp = ddp_epochs.ms;
  const double steps = static_cast<double>(c.rows / c.batch) / kWorld;  // per rank and epoch
  std::string layers = absl::StrCat(kFeatures);
  for (std::int64_t h : c.hidden) absl::StrAppend(&layers, "-", h);
  absl::StrAppend(&layers, "-", kClasses);
  absl::PrintF("%s: %dx%d, %s (%d parameters), batch %d per rank, ce, sgd; medians of %d epochs\n",
               c.name, c.rows, kFeatures, layers, Parameters(c), c.batch,
               absl::GetFlag(FLAGS_repetitions));
  absl::PrintF("  kscope   1 process %9.2f ms   2 ranks %9.2f ms   speedup %.2f, efficiency %.2f\n",
               one, two.epoch, one / two.epoch, one / two.epoch / kWorld);
  absl::PrintF(
      "  kscope 2 ranks averaging after backward (no overlap) %.2f ms: overlapped / after %.2f\n",
      two.after, two.epoch / two.after);
  if (python_one > 0 && ddp > 0) {
    absl::PrintF(
        "  PyTorch  1 process %9.2f ms   DDP 2   %9.2f ms   speedup %.2f, efficiency %.2f\n",
        python_one, ddp, python_one / ddp, python_one / ddp / kWorld);
    absl::PrintF("  kscope 2 ranks / DDP 2 ranks %.2f; kscope 1 process / PyTorch 1 process %.2f\n",
                 two.epoch / ddp, one / python_one);
    absl::PrintF(
        "  minor page faults per step: kscope 1 process %.0f, 2 ranks %.0f; PyTorch 1 process "
        "%.0f, DDP 2 ranks %.0f\n",
        one_process[1], two.faults_per_step, python.faults_per_step, ddp_epochs.faults_per_step);
  } else {
    absl::PrintF("  PyTorch: not measured (%s has no torch with DDP)\n",
                 absl::GetFlag(FLAGS_python));
  }
  absl::PrintF(
      "  2 processes each training its half alone (no averaging) %.2f ms: the machine's bound, "
      "speedup %.2f; data-parallel / halves alone %.2f\n",
      two.halves, one / two.halves, two.epoch / two.halves);
  absl::PrintF(
      "  allreduce of the gradients (one bucket), back to back %.3f ms, %.1f%% of a two-rank "
      "step; averaging in training ((data-parallel - halves alone) / steps) %.3f ms per step\n",
      two.allreduce, 100 * two.allreduce / (two.epoch / steps), (two.epoch - two.halves) / steps);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  at::set_num_threads(1);
  const bool kept = kscope::keep_freed_memory();
  const int case_index = absl::GetFlag(FLAGS_case_index);
  if (case_index < 0 || case_index >= static_cast<int>(Cases().size())) return 2;
  const int rank = absl::GetFlag(FLAGS_rank);
  if (rank == kOneProcess) return OneProcess(Cases()[case_index]);
  if (rank >= 0) return Rank(rank, Cases()[case_index]);
  std::vector<int> chosen;
  for (const std::string& name : absl::GetFlag(FLAGS_cases)) {
    const auto it =
        std::find_if(Cases().begin(), Cases().end(), [&](const Case& c) { return name == c.name; });
    if (it == Cases().end()) {
      absl::FPrintF(stderr, "distributed_bench: no case %s (linear, mlp)\n", name);
      return 2;
    }
    chosen.push_back(static_cast<int>(it - Cases().begin()));
  }
  absl::PrintF("kscope's processes keep the C heap's freed memory: %s\n", kept ? "yes" : "no");
  bool ok = true;
  for (int i : chosen) ok = Report(i) && ok;
  return ok ? 0 : 1;
}
