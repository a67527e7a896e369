// distributed_bench — data-parallel scaling on this machine: the epoch time of the MNIST-shaped
// model of bench/train_bench.cc (60000x784 randn rows, randint 10 targets, batch 1000 per rank,
// a 784->10 linear, cross-entropy, sgd .01) trained through `run` by one process, and by two
// processes with the model bound to a two-rank group (kscope::distribute: each rank takes every
// other batch, gradients averaged every step), plus the time of one allreduce of the model's
// gradients (a vector of tensors shaped as its parameters, one bucket), all measured in one run.
//
// Reports the medians and, as ratios: speedup (one process's epoch / two processes' epoch, the
// same rows per epoch in all), scaling efficiency (speedup / 2) and the allreduce's share of a
// two-rank step; and, to tell the machine's limit from the cost of data parallelism, the epoch
// of the two processes each training its half alone at the same time (the model unbound: no
// averaging), with the data-parallel epoch over it. Every process runs libtorch on one thread.
//
// The program is its own ranks: run without --rank it times the one-process epoch in process,
// then starts itself twice (--rank=0 and 1, a file rendezvous in a fresh directory) and reads
// rank 0's medians back from a file.
//
// Build: cmake --build build --target distributed_bench
// Run:   OMP_NUM_THREADS=1 build/bench/distributed_bench [--repetitions=11]
#include <spawn.h>
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
ABSL_FLAG(int, rank, -1, "internal: run as this rank of a two-rank group");
ABSL_FLAG(std::string, rendezvous, "", "internal: the group's rendezvous");
ABSL_FLAG(std::string, results, "", "internal: where rank 0 writes its medians");

extern char** environ;

namespace {

constexpr std::int64_t kRows = 60000, kFeatures = 784, kClasses = 10, kBatch = 1000;
constexpr double kLr = 0.01;
constexpr int kWorld = 2, kAllreduceCalls = 200;

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

// The model with the whole data, the same on every process (seeded alike).
kscope::Handle Model() {
  at::manual_seed(0);
  const at::Tensor x = at::randn({kRows, kFeatures}), y = at::randint(kClasses, {kRows}, at::kLong);
  const kscope::Handle q = kscope::module({"linear", "", {kFeatures, kClasses}, {}, {}});
  const kscope::Handle m = kscope::model({q, kscope::loss("ce"), kscope::opt("sgd", q, {kLr})});
  kscope::train(m, {{"batchsize", kBatch}});
  kscope::model_data(m, kscope::nn::DataMode::kTrain, x, y);
  return m;
}

// Median epoch milliseconds of m, after one warm-up epoch.
double EpochMs(kscope::Handle m) {
  kscope::run(m);
  return Median(Samples(absl::GetFlag(FLAGS_repetitions), [&] { kscope::run(m); }));
}

// One rank of the two-rank case: writes "epoch_ms halves_ms allreduce_ms" (rank 0).
int Rank(int rank) {
  const auto scope = kscope::Scope::Open();
  kscope::GroupOptions o;
  o.rank = rank;
  o.world = kWorld;
  o.rendezvous = absl::GetFlag(FLAGS_rendezvous);
  o.timeout = std::chrono::seconds(120);
  const kscope::Handle g = kscope::group(o);
  const kscope::Handle m = Model();
  kscope::distribute(m, g);
  const double epoch = EpochMs(m);
  // The same batches without averaging: two independent halves at once, what the machine gives.
  kscope::undistribute(m);
  kscope::barrier(g);
  const double halves = EpochMs(m);
  const kscope::Handle gradients =
      kscope::vector({at::zeros({kClasses, kFeatures}), at::zeros({kClasses})});
  kscope::barrier(g);
  const double allreduce = Median(
      Samples(kAllreduceCalls, [&] { kscope::allreduce(gradients, kscope::Reduction::kSum, g); }));
  if (rank == 0)
    std::ofstream(absl::GetFlag(FLAGS_results))
        << epoch << " " << halves << " " << allreduce << "\n";
  return 0;
}

// Starts the two ranks and waits; true when both exited 0.
bool RunRanks(const std::string& self, const std::string& rendezvous, const std::string& results) {
  std::vector<pid_t> pids;
  for (int rank = 0; rank < kWorld; ++rank) {
    std::vector<std::string> args = {
        self, absl::StrCat("--rank=", rank), "--rendezvous=" + rendezvous, "--results=" + results,
        absl::StrCat("--repetitions=", absl::GetFlag(FLAGS_repetitions))};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) == 0)
      pids.push_back(pid);
  }
  bool ok = static_cast<int>(pids.size()) == kWorld;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  at::set_num_threads(1);
  if (absl::GetFlag(FLAGS_rank) >= 0) return Rank(absl::GetFlag(FLAGS_rank));

  double one = 0;
  {
    const auto scope = kscope::Scope::Open();
    one = EpochMs(Model());
  }
  char directory[] = "/tmp/kscope_distributed_bench_XXXXXX";
  if (mkdtemp(directory) == nullptr) return 1;
  const std::string rendezvous = absl::StrCat(directory, "/rendezvous"),
                    results = absl::StrCat(directory, "/results");
  const bool ok = RunRanks("/proc/self/exe", rendezvous, results);
  double two = 0, halves = 0, allreduce = 0;
  std::ifstream(results) >> two >> halves >> allreduce;
  std::remove(rendezvous.c_str());
  std::remove(results.c_str());
  rmdir(directory);
  if (!ok || two <= 0) {
    absl::FPrintF(stderr, "distributed_bench: the two-rank run failed\n");
    return 1;
  }
  const double steps = static_cast<double>(kRows / kBatch) / kWorld;  // per rank and epoch
  const double speedup = one / two;
  absl::PrintF(
      "MNIST-shaped epoch (%dx%d, batch %d per rank, linear %d->%d, ce, sgd), 1 thread per "
      "process,\n"
      "medians of %d epochs:\n",
      kRows, kFeatures, kBatch, kFeatures, kClasses, absl::GetFlag(FLAGS_repetitions));
  absl::PrintF("  1 process     epoch %8.2f ms\n", one);
  absl::PrintF("  2 processes   epoch %8.2f ms   (rank 0, %g steps per rank)\n", two, steps);
  absl::PrintF("  2 processes, each its half alone (no averaging)   epoch %8.2f ms\n", halves);
  absl::PrintF(
      "  speedup %.2f, scaling efficiency %.2f; the machine's bound (halves alone): speedup %.2f;\n"
      "  data-parallel epoch / halves alone %.2f\n",
      speedup, speedup / kWorld, one / halves, two / halves);
  absl::PrintF(
      "  allreduce of the gradients (%d floats, one bucket), back to back: %.3f ms, %.1f%% of a "
      "two-rank step\n",
      kClasses * kFeatures + kClasses, allreduce, 100 * allreduce / (two / steps));
  absl::PrintF(
      "  averaging in training ((data-parallel - halves alone) / steps): %.3f ms per step\n",
      (two - halves) / steps);
  return 0;
}
