// train_bench — model training through kscope against the same training written directly in
// libtorch, on the CPU or a GPU (--device), the cases chosen with --cases (bench/train_cases.h;
// bench/train_bench.py times the same cases in PyTorch from Python, eager and compiled, and
// bench/train_bench.sh prints them side by side):
//
//   epoch mlp convnet lstm transformer: one epoch of the case's data in batches.
//            kscope:   a model (the case's module, ce, its optimizer) with train option
//                      batchsize and its data (on the device) set by model_data; `run` (the
//                      default `loss` metric: the mean of the batch losses), read as a double;
//            libtorch: the same network of libtorch modules and torch::optim's SGD or Adam
//                      (parameter by parameter); per batch of rows (a narrow view, no copy)
//                      zero_grad, forward, cross_entropy, backward, step, the loss kept
//                      (detached); the mean of the batch losses, read as a double.
//            plugin:   the same model made through the q plugin in the k host, its data given
//                      as tensor pointers on the device, `run m` called as q calls it, the
//                      loss back as a k float (bench/train_plugin.h); --plugin= leaves it out.
//            Each side reads from the device once per epoch, at its end.
//            --amp=bf16: kscope's train option amp, the libtorch side's forward and loss under
//            autocast in bf16 (as torch.autocast); --graph: kscope's train option graph (run's
//            full-size steps captured as a CUDA graph and replayed; cuda only).
//   spirals: one full-batch training step on 3 classes x 1000 spiral points with a 2-100-3 MLP,
//            cross-entropy and sgd (lr .2, momentum .99): the seed's `\ts` example.
//            kscope:   backstep(m;x;y) on a model, x and y tensor handles, the loss read;
//            libtorch: zero_grad, forward, cross_entropy, backward, step, loss.item().
//
// All sides start from the same data and the same parameters (seeded alike; the hand-written
// side copies kscope's values where a kind initializes otherwise), so their first
// losses must agree: the program prints them (a "check" line) and warns when they differ,
// which would mean the sides do not do the same work. Timing: after that first call and a
// warm-up sample, the sides run in turn, each repetition starting at the next side, so that
// changes in the machine's load fall on all; each sample is one epoch, or kSpiralSteps
// steps; the median of --repetitions samples is reported, with the fastest and slowest, and
// the ratios are the medians of the ratios of the samples taken back to back. libtorch runs on
// --threads intra-op threads (the driver sets OMP_NUM_THREADS to the same number). The process
// keeps the C heap's freed memory (kscope::keep_freed_memory), for every side.
//
// Output: a human table, and for bench/train_bench.sh one line per case and side and the case's
// ratios (the medians of the paired ratios, see Time):
//   result<TAB>case<TAB>side<TAB>median ms<TAB>min ms<TAB>max ms
//   ratio<TAB>case<TAB>kscope/libtorch
//   plugin_ratio<TAB>case<TAB>plugin/kscope
//
// Run:  ./build/bench/train_bench [--threads=1] [--repetitions=21] [--device=cpu]
//                                 [--multi_tensor_steps=true] [--amp=none] [--graph=false]
//                                 [--cases=epoch,mlp,spirals] [--plugin=<ktorch.so>]
//                                                                   (or bench/train_bench.sh)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
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
#include <torch/optim/adam.h>
#include <torch/optim/sgd.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "api/model/model_object.h"
#include "bench/side_timing.h"
#include "bench/train_cases.h"
#include "bench/train_plugin.h"
#include "kscope/kscope.h"
#include "runtime/autocast_guard.h"
#include "tests/build_paths.h"

ABSL_FLAG(int, threads, 1, "libtorch intra-op threads (at::set_num_threads)");
ABSL_FLAG(int, repetitions, 21, "timed samples per case and side; the median is reported");
ABSL_FLAG(std::string, device, "cpu", "where both sides train: cpu or cuda (cuda:N)");
ABSL_FLAG(bool, multi_tensor_steps, true,
          "kscope's optimizers step with multi-tensor operations (kscope::set_multi_tensor_steps)");
ABSL_FLAG(std::string, amp, "none", "mixed precision of the epoch cases: none or bf16");
ABSL_FLAG(bool, graph, false, "kscope's epochs replay CUDA graphs (train option graph)");
ABSL_FLAG(std::string, plugin, kscope::testing::kPluginPath,
          "the q plugin whose run is timed beside kscope's C++ run (empty: none)");
ABSL_FLAG(std::vector<std::string>, cases, (std::vector<std::string>{"epoch", "mlp", "spirals"}),
          "the cases to time, comma-separated: epoch mlp spirals convnet lstm transformer");

namespace {

constexpr std::int64_t kSpiralPoints = 1000, kSpiralClasses = 3, kHidden = 100;
constexpr double kSpiralLr = 0.2, kSpiralMomentum = 0.99;
constexpr int kSpiralSteps = 20;  // steps per timed sample
using kscope::bench::CaseTiming;
using kscope::bench::kDataSeed;
using kscope::bench::kParameterSeed;
using kscope::bench::Side;
using kscope::bench::Summary;
using kscope::bench::Time;

kscope::ModuleDefinition Linear(std::int64_t in, std::int64_t out) {
  return {"linear", "", {in, out}, {}, {}};
}

// An epoch case of bench/train_cases.h on `device`, with the plugin's side when `plugin` is
// given. Handles live in the caller's scope.
CaseTiming EpochCase(const std::string& name, const c10::Device& device, int repetitions,
                     const kscope::bench::PluginSession* plugin) {
  kscope::bench::TrainCase c = kscope::bench::MakeCase(name, device);
  const std::string where = device.str();
  const kscope::Options on_device = kscope::Options::Parse("to", {where});

  // Both sides make their parameters from the same seed, in the same order, then move them.
  at::manual_seed(kParameterSeed);
  const kscope::Handle q = kscope::module(c.definition);
  kscope::to(q, on_device);
  const kscope::Handle m =
      kscope::model({q, kscope::loss("ce"), kscope::opt(c.optimizer, q, {c.lr})});
  const bool bf16 = absl::GetFlag(FLAGS_amp) == "bf16";
  kscope::train(m, {{"batchsize", c.batch},
                    {"amp", absl::GetFlag(FLAGS_amp)},
                    {"graph", absl::GetFlag(FLAGS_graph)}});
  // The model batches its data in place (set_ on the same storage): it gets tensors of its own.
  kscope::model_data(m, kscope::nn::DataMode::kTrain, c.x.clone(), c.y.clone());

  at::manual_seed(kParameterSeed);
  kscope::bench::LibtorchNet net = c.make_libtorch();
  net.module->to(device);
  // Some kinds initialize otherwise than libtorch's module (ktorch's conv2d): the hand-written
  // side starts from kscope's values, parameter for parameter (both list them in the same order).
  {
    c10::NoGradGuard no_grad;
    const std::vector<at::Tensor> from =
        kscope::nn::ModelOf("train_bench", m)->model().module->module().parameters();
    const std::vector<at::Tensor> to = net.module->parameters();
    if (from.size() != to.size())
      throw std::logic_error(name + ": the two sides' parameters differ");
    for (std::size_t i = 0; i < to.size(); ++i) to[i].copy_(from[i]);
  }
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  if (c.optimizer == "sgd") {
    optimizer = std::make_unique<torch::optim::SGD>(net.module->parameters(),
                                                    torch::optim::SGDOptions(c.lr));
  } else {
    optimizer = std::make_unique<torch::optim::Adam>(net.module->parameters(),
                                                     torch::optim::AdamOptions(c.lr));
  }
  const std::int64_t rows = c.x.size(0);
  std::optional<kscope::bench::PluginTraining> through_plugin;
  if (plugin != nullptr) {
    at::manual_seed(kParameterSeed);
    through_plugin.emplace(
        *plugin, c, device,
        kscope::bench::PluginCaseOptions{absl::GetFlag(FLAGS_amp), absl::GetFlag(FLAGS_graph),
                                         kscope::multi_tensor_steps()});
  }

  // Each side reads its epoch's loss once, at the end: the only wait for the device.
  std::vector<Side> sides{
      {"kscope", [&] { return kscope::run(m).values.front().second.item<double>(); }},
      {"libtorch", [&] {
         std::vector<at::Tensor> losses;
         for (std::int64_t row = 0; row < rows; row += c.batch) {
           const std::int64_t n = std::min(c.batch, rows - row);
           optimizer->zero_grad();
           at::Tensor loss;
           {
             std::optional<kscope::AutocastGuard> autocast;
             if (bf16) autocast.emplace(device.type(), at::kBFloat16);
             loss = torch::nn::functional::cross_entropy(net.forward(c.x.narrow(0, row, n)),
                                                         c.y.narrow(0, row, n));
           }
           loss.backward();
           optimizer->step();
           losses.push_back(loss.detach());
         }
         return (at::stack(losses).sum() / static_cast<double>(losses.size())).item<double>();
       }}};
  if (through_plugin) sides.push_back({"plugin", [&] { return through_plugin->Epoch(); }});
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
CaseTiming SpiralsCase(const c10::Device& device, int repetitions) {
  at::manual_seed(kDataSeed);
  auto [x, y] = Spirals();
  x = x.to(device);
  y = y.to(device);
  const kscope::Options on_device = kscope::Options::Parse("to", {device.str()});

  at::manual_seed(kParameterSeed);
  const kscope::Handle q = kscope::module(
      {"sequential",
       "",
       {},
       {},
       {Linear(2, kHidden), {"relu", "", {}, {}, {}}, Linear(kHidden, kSpiralClasses)}});
  kscope::to(q, on_device);
  const kscope::Handle m =
      kscope::model({q, kscope::loss("ce"), kscope::opt("sgd", q, {kSpiralLr, kSpiralMomentum})});
  const kscope::Handle xh = kscope::tensor(x), yh = kscope::tensor(y);

  at::manual_seed(kParameterSeed);
  // Layers made in order (the order of evaluation of constructor arguments is unspecified).
  const torch::nn::Linear hidden(2, kHidden);
  const torch::nn::Linear output(kHidden, kSpiralClasses);
  torch::nn::Sequential mlp(hidden, torch::nn::ReLU(), output);
  mlp->to(device);
  torch::optim::SGD sgd(mlp->parameters(),
                        torch::optim::SGDOptions(kSpiralLr).momentum(kSpiralMomentum));

  const std::vector<Side> sides{
      {"kscope", [&] { return kscope::model_backstep(m, xh, yh).item<double>(); }},
      {"libtorch", [&] {
         sgd.zero_grad();
         at::Tensor loss = torch::nn::functional::cross_entropy(mlp->forward(x), y);
         loss.backward();
         sgd.step();
         return loss.item<double>();
       }}};
  return Time("spirals", sides, repetitions, kSpiralSteps);
}

void PrintCase(const std::string& name, const CaseTiming& t) {
  const Summary& kscope = t.sides[0].second;
  const Summary& libtorch = t.sides[1].second;
  absl::PrintF(
      "%-8s kscope %9.3f ms (min %.3f)  libtorch %9.3f ms (min %.3f)  ratio %.3f (target <= "
      "1.03)",
      name, kscope.median, kscope.min, libtorch.median, libtorch.min, t.ratio);
  if (t.plugin_ratio) {
    absl::PrintF("  plugin %9.3f ms  plugin/kscope %.3f (target <= 1.03)", t.sides[2].second.median,
                 *t.plugin_ratio);
  }
  absl::PrintF("\nratio\t%s\t%.4f\n", name, t.ratio);
  if (t.plugin_ratio) absl::PrintF("plugin_ratio\t%s\t%.4f\n", name, *t.plugin_ratio);
  for (const auto& [side, s] : t.sides) {
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
  const std::vector<std::string> cases = absl::GetFlag(FLAGS_cases);
  for (const std::string& name : cases) {
    const auto& known = kscope::bench::CaseNames();
    if (name != "spirals" && std::find(known.begin(), known.end(), name) == known.end()) {
      absl::FPrintF(stderr, "train_bench: unknown case %s (known: %s spirals)\n", name,
                    absl::StrJoin(known, " "));
      return 1;
    }
  }
  const std::string device_name = absl::GetFlag(FLAGS_device);
  if (device_name != "cpu" && !(device_name.rfind("cuda", 0) == 0 && at::hasCUDA())) {
    absl::FPrintF(stderr, "train_bench: --device=%s: expected cpu, or cuda with a CUDA device\n",
                  device_name);
    return 1;
  }
  const std::string amp = absl::GetFlag(FLAGS_amp);
  if (amp != "none" && amp != "bf16") {
    absl::FPrintF(stderr, "train_bench: --amp=%s: expected none or bf16\n", amp);
    return 1;
  }
  const c10::Device device(device_name);
  at::set_num_threads(threads);
  kscope::set_multi_tensor_steps(absl::GetFlag(FLAGS_multi_tensor_steps));
  const bool kept = kscope::keep_freed_memory();
  const char* omp = std::getenv("OMP_NUM_THREADS");
  absl::PrintF(
      "train_bench: device %s, libtorch threads %d (OMP_NUM_THREADS=%s), %d repetitions, "
      "medians; freed memory kept: %s; multi-tensor optimizer steps: %s; amp %s; graph: %s\n",
      device.str(), at::get_num_threads(), omp == nullptr ? "unset" : omp, repetitions,
      kept ? "yes" : "no", kscope::multi_tensor_steps() ? "yes" : "no", amp,
      absl::GetFlag(FLAGS_graph) ? "yes" : "no");
  std::optional<kscope::bench::PluginSession> plugin;
  if (!absl::GetFlag(FLAGS_plugin).empty()) {
    plugin.emplace(absl::GetFlag(FLAGS_plugin));
    kscope::bench::ExitUnlessLoaded(*plugin, "train_bench");
  }
  {
    const auto scope = kscope::Scope::Open();
    std::vector<std::pair<std::string, CaseTiming>> timings;
    for (const std::string& name : cases) {
      timings.emplace_back(name, name == "spirals" ? SpiralsCase(device, repetitions)
                                                   : EpochCase(name, device, repetitions,
                                                               plugin ? &*plugin : nullptr));
    }
    absl::PrintF(
        "\nkscope / libtorch written directly, median ms (spirals: per step; the others: per "
        "epoch):\n");
    for (const auto& [name, timing] : timings) PrintCase(name, timing);
  }
  if (plugin) plugin->CheckClean();
  if (kscope::live_handles() != 0) {
    absl::FPrintF(stderr, "train_bench: %d handle(s) still live at exit\n", kscope::live_handles());
    return 1;
  }
  return 0;
}
