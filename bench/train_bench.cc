// train_bench — model training through kscope against the same training written directly in
// libtorch, two cases (bench/train_bench.py times the same cases in PyTorch from Python, and
// bench/train_bench.sh prints the three side by side):
//
//   epoch:   one epoch of 60000x784 randn inputs and randint 10 targets, batch 1000, a 784->10
//            linear with cross-entropy and sgd (lr .01).
//            kscope:   a model (linear, ce, sgd) with train option batchsize 1000 and its data
//                      set by model_data; `run` (the default `loss` metric: the mean of the
//                      batch losses), read as a double;
//            libtorch: torch::nn::Linear (in a torch::nn::Sequential) and torch::optim::SGD;
//                      per batch of rows (a narrow view, no copy) zero_grad, forward,
//                      cross_entropy, backward, step, the loss kept (detached); the mean of the
//                      batch losses, read as a double.
//   mlp:     the same epoch on 5120 rows, batch 64, a 784-1024-1024-10 MLP with relu (1.86M
//            parameters; bench/distributed_bench.cc's `mlp` case on one process): per step,
//            matrix products large beside the per-call costs, and 7.4 MB of gradients made.
//   spirals: one full-batch training step on 3 classes x 1000 spiral points with a 2-100-3 MLP,
//            cross-entropy and sgd (lr .2, momentum .99): the seed's `\ts` example.
//            kscope:   backstep(m;x;y) on a model, x and y tensor handles, the loss read;
//            libtorch: zero_grad, forward, cross_entropy, backward, step, loss.item().
//
// Both sides start from the same data and, seeded alike, the same parameters, so their first
// losses must agree: the program prints them (a "check" line) and warns when they differ,
// which would mean the two sides do not do the same work. Timing: after that first call and a
// warm-up sample, the two sides run alternately (kscope first, then libtorch first, ...) so
// that changes in the machine's load fall on both; each sample is one epoch, or kSpiralSteps
// steps; the median of --repetitions samples is reported, with the fastest and slowest, and
// the ratio is the median of the ratios of the samples taken back to back. libtorch runs on
// --threads intra-op threads (the driver sets OMP_NUM_THREADS to the same number). The process
// keeps the C heap's freed memory (kscope::keep_freed_memory), for both sides.
//
// Output: a human table, and for bench/train_bench.sh one line per case and side and one with
// the case's ratio (the median of the paired ratios, see Time):
//   result<TAB>case<TAB>side<TAB>median ms<TAB>min ms<TAB>max ms
//   ratio<TAB>case<TAB>kscope/libtorch
//
// Run:  ./build/bench/train_bench [--threads=1] [--repetitions=21]   (or bench/train_bench.sh)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <ATen/Parallel.h>
#include <ATen/TensorOperators.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/cos.h>
#include <ATen/ops/full.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/sin.h>
#include <ATen/ops/stack.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/sgd.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "kscope/kscope.h"

ABSL_FLAG(int, threads, 1, "libtorch intra-op threads (at::set_num_threads)");
ABSL_FLAG(int, repetitions, 21, "timed samples per case and side; the median is reported");

namespace {

constexpr std::int64_t kFeatures = 784, kClasses = 10;
constexpr double kEpochLr = 0.01;
constexpr std::int64_t kSpiralPoints = 1000, kSpiralClasses = 3, kHidden = 100;
constexpr double kSpiralLr = 0.2, kSpiralMomentum = 0.99;
constexpr int kSpiralSteps = 20;                            // steps per timed sample
constexpr std::uint64_t kDataSeed = 0, kParameterSeed = 1;  // train_bench.py uses the same

// Wall-clock milliseconds of `calls` calls of `f`.
double Milliseconds(const std::function<double()>& f, int calls) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

struct Summary {
  double median, min, max;  // milliseconds per call
};

// The median, fastest and slowest of `samples` (each of `per` calls), per call.
Summary Summarize(std::vector<double> samples, int per) {
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  const double median = n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  return {median / per, samples.front() / per, samples.back() / per};
}

// One case: kscope's side and libtorch's, each returning the loss it computed.
struct Sides {
  std::function<double()> kscope, libtorch;
};

struct CaseTiming {
  Summary kscope, libtorch;
  double ratio;  // the median over repetitions of kscope's sample time / libtorch's next to it
};

// Calls each side once and prints the check of their losses, runs one untimed sample of each
// (warm-up), then times them alternately, `repetitions` samples of `per` calls each; the times
// are per call. Each repetition's two samples are taken back to back, so the ratio of the pair
// sees the same load; their median is the case's ratio.
CaseTiming Time(const std::string& name, const Sides& sides, int repetitions, int per) {
  const double kscope_loss = sides.kscope(), libtorch_loss = sides.libtorch();
  const bool same =
      std::abs(kscope_loss - libtorch_loss) <= 1e-5 * std::max(1.0, std::abs(libtorch_loss));
  absl::PrintF("check %-8s first loss: kscope %.6f, libtorch %.6f%s\n", name, kscope_loss,
               libtorch_loss, same ? "" : "  WARNING: the two sides differ");
  Milliseconds(sides.kscope, per);
  Milliseconds(sides.libtorch, per);
  std::vector<double> kscope_ms, libtorch_ms, ratios;
  for (int i = 0; i < repetitions; ++i) {
    if (i % 2 == 0) {
      kscope_ms.push_back(Milliseconds(sides.kscope, per));
      libtorch_ms.push_back(Milliseconds(sides.libtorch, per));
    } else {
      libtorch_ms.push_back(Milliseconds(sides.libtorch, per));
      kscope_ms.push_back(Milliseconds(sides.kscope, per));
    }
    ratios.push_back(kscope_ms.back() / libtorch_ms.back());
  }
  return {Summarize(kscope_ms, per), Summarize(libtorch_ms, per), Summarize(ratios, 1).median};
}

kscope::ModuleDefinition Linear(std::int64_t in, std::int64_t out) {
  return {"linear", "", {in, out}, {}, {}};
}

// An epoch case: `rows` rows, batches of `batch`, an MLP 784 -> hidden... -> 10 with relu after
// each hidden layer (a 784->10 linear without one). Handles live in the caller's scope.
CaseTiming EpochCase(const std::string& name, std::int64_t rows, std::int64_t batch,
                     const std::vector<std::int64_t>& hidden, int repetitions) {
  at::manual_seed(kDataSeed);
  const at::Tensor x = at::randn({rows, kFeatures}), y = at::randint(kClasses, {rows});

  // Both sides make their layers in order, each from the same seed.
  std::vector<kscope::ModuleDefinition> layers;
  std::int64_t width = kFeatures;
  for (std::int64_t h : hidden) {
    layers.push_back(Linear(width, h));
    layers.push_back({"relu", "", {}, {}, {}});
    width = h;
  }
  layers.push_back(Linear(width, kClasses));
  at::manual_seed(kParameterSeed);
  const kscope::Handle q = kscope::module(
      hidden.empty() ? layers.front() : kscope::ModuleDefinition{"sequential", "", {}, {}, layers});
  const kscope::Handle m =
      kscope::model({q, kscope::loss("ce"), kscope::opt("sgd", q, {kEpochLr})});
  kscope::train(m, {{"batchsize", batch}});
  // The model batches its data in place (set_ on the same storage): it gets tensors of its own.
  kscope::model_data(m, kscope::nn::DataMode::kTrain, x.clone(), y.clone());

  at::manual_seed(kParameterSeed);
  torch::nn::Sequential mlp;
  width = kFeatures;
  for (std::int64_t h : hidden) {
    mlp->push_back(torch::nn::Linear(width, h));
    mlp->push_back(torch::nn::ReLU());
    width = h;
  }
  mlp->push_back(torch::nn::Linear(width, kClasses));
  torch::optim::SGD sgd(mlp->parameters(), torch::optim::SGDOptions(kEpochLr));

  const Sides sides{
      [&] { return kscope::run(m).values.front().second.item<double>(); },
      [&] {
        std::vector<at::Tensor> losses;
        for (std::int64_t row = 0; row < rows; row += batch) {
          const std::int64_t n = std::min(batch, rows - row);
          sgd.zero_grad();
          at::Tensor loss = torch::nn::functional::cross_entropy(mlp->forward(x.narrow(0, row, n)),
                                                                 y.narrow(0, row, n));
          loss.backward();
          sgd.step();
          losses.push_back(loss.detach());
        }
        return (at::stack(losses).sum() / static_cast<double>(losses.size())).item<double>();
      }};
  return Time(name, sides, repetitions, 1);
}

// Points along each class's spiral arm with noise in the angle, as examples/spirals.cc.
std::pair<at::Tensor, at::Tensor> Spirals() {
  std::vector<at::Tensor> xs, ys;
  const at::Tensor radius = at::linspace(0, 1, kSpiralPoints);
  for (std::int64_t c = 0; c < kSpiralClasses; ++c) {
    const at::Tensor angle =
        at::linspace(c * 4.0, (c + 1) * 4.0, kSpiralPoints) + at::randn({kSpiralPoints}) * 0.2;
    xs.push_back(at::stack({radius * at::sin(angle), radius * at::cos(angle)}, 1));
    ys.push_back(at::full({kSpiralPoints}, c, at::kLong));
  }
  return {at::cat(xs), at::cat(ys)};
}

// The spirals step case. Handles live in the caller's scope.
CaseTiming SpiralsCase(int repetitions) {
  at::manual_seed(kDataSeed);
  const auto [x, y] = Spirals();

  at::manual_seed(kParameterSeed);
  const kscope::Handle q = kscope::module(
      {"sequential",
       "",
       {},
       {},
       {Linear(2, kHidden), {"relu", "", {}, {}, {}}, Linear(kHidden, kSpiralClasses)}});
  const kscope::Handle m =
      kscope::model({q, kscope::loss("ce"), kscope::opt("sgd", q, {kSpiralLr, kSpiralMomentum})});
  const kscope::Handle xh = kscope::tensor(x), yh = kscope::tensor(y);

  at::manual_seed(kParameterSeed);
  // Layers made in order (the order of evaluation of constructor arguments is unspecified).
  const torch::nn::Linear hidden(2, kHidden);
  const torch::nn::Linear output(kHidden, kSpiralClasses);
  torch::nn::Sequential mlp(hidden, torch::nn::ReLU(), output);
  torch::optim::SGD sgd(mlp->parameters(),
                        torch::optim::SGDOptions(kSpiralLr).momentum(kSpiralMomentum));

  const Sides sides{[&] { return kscope::model_backstep(m, xh, yh).item<double>(); },
                    [&] {
                      sgd.zero_grad();
                      at::Tensor loss = torch::nn::functional::cross_entropy(mlp->forward(x), y);
                      loss.backward();
                      sgd.step();
                      return loss.item<double>();
                    }};
  return Time("spirals", sides, repetitions, kSpiralSteps);
}

void PrintCase(const std::string& name, const CaseTiming& t) {
  absl::PrintF(
      "%-8s kscope %9.3f ms (min %.3f)  libtorch %9.3f ms (min %.3f)  ratio %.3f (target <= "
      "1.03)\n",
      name, t.kscope.median, t.kscope.min, t.libtorch.median, t.libtorch.min, t.ratio);
  absl::PrintF("ratio\t%s\t%.4f\n", name, t.ratio);
  for (const auto& [side, s] : {std::pair{"kscope", t.kscope}, std::pair{"libtorch", t.libtorch}}) {
    absl::PrintF("result\t%s\t%s\t%.4f\t%.4f\t%.4f\n", name, side, s.median, s.min, s.max);
  }
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const int threads = absl::GetFlag(FLAGS_threads), repetitions = absl::GetFlag(FLAGS_repetitions);
  if (threads < 1 || repetitions < 1) {
    absl::FPrintF(stderr, "train_bench: --threads and --repetitions must be at least 1\n");
    return 1;
  }
  at::set_num_threads(threads);
  const bool kept = kscope::keep_freed_memory();
  const char* omp = std::getenv("OMP_NUM_THREADS");
  absl::PrintF(
      "train_bench: libtorch threads %d (OMP_NUM_THREADS=%s), %d repetitions, medians; freed "
      "memory kept: %s\n",
      at::get_num_threads(), omp == nullptr ? "unset" : omp, repetitions, kept ? "yes" : "no");
  {
    const auto scope = kscope::Scope::Open();
    const CaseTiming epoch = EpochCase("epoch", 60000, 1000, {}, repetitions);
    const CaseTiming mlp = EpochCase("mlp", 5120, 64, {1024, 1024}, repetitions);
    const CaseTiming spirals = SpiralsCase(repetitions);
    absl::PrintF(
        "\nkscope / libtorch written directly, median ms (epoch, mlp: per epoch; spirals: per "
        "step):\n");
    PrintCase("epoch", epoch);
    PrintCase("mlp", mlp);
    PrintCase("spirals", spirals);
  }
  if (kscope::live_handles() != 0) {
    absl::FPrintF(stderr, "train_bench: %d handle(s) still live at exit\n", kscope::live_handles());
    return 1;
  }
  return 0;
}
