// distributed_mnist — mnist_logistic trained data-parallel: one process per rank of a process
// group, every rank holding the same generated data and model, the model bound to the group
// (kscope::distribute), so that each rank takes every world-th batch of one shuffle and the
// gradients are averaged over the ranks in every step.
//
// Rank, world and rendezvous come from the environment, as examples/launch.sh sets them
// (KSCOPE_RANK, KSCOPE_WORLD, KSCOPE_RENDEZVOUS: tcp://host:port or a file path); with none of
// them set it runs as a world of one. Prints per epoch this task's loss and, on rank 0, the
// group's loss and accuracy; then the group's test accuracy.
//
// --backend=nccl --device=cuda trains on GPUs (rank r on cuda:r modulo the devices it sees).
//
// Run:  examples/launch.sh -n 2 -- build/examples/distributed_mnist_example
//       (exit status 1 below 90% group test accuracy, if the ranks' parameters differ at the
//       end, or with a live handle left; ctest runs two ranks as `distributed_mnist_example`)
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include <ATen/Parallel.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "examples/mnist_data.h"
#include "kscope/kscope.h"

ABSL_FLAG(std::string, backend, "gloo", "the process group's backend: gloo or nccl");
ABSL_FLAG(std::string, device, "cpu",
          "where the model lives: cpu, or cuda (rank r on cuda:r modulo the devices)");

namespace {

using kscope::examples::Images;
using kscope::examples::kClasses;
using kscope::examples::kInputs;

constexpr std::int64_t kTrainRows = 12000, kTestRows = 2000, kBatchSize = 500;
constexpr int kEpochs = 5;
constexpr double kLearningRate = 0.5;
constexpr double kRequiredAccuracy = 90;  // percent; chance is 10

// The group's options from the environment; false (with the reason on stderr) when malformed.
bool GroupFromEnvironment(kscope::GroupOptions* o) {
  const char* rank = std::getenv("KSCOPE_RANK");
  const char* world = std::getenv("KSCOPE_WORLD");
  const char* rendezvous = std::getenv("KSCOPE_RENDEZVOUS");
  if (rank == nullptr && world == nullptr && rendezvous == nullptr) {
    o->rendezvous = absl::StrFormat("/tmp/kscope_distributed_mnist_%d", getpid());
    return true;
  }
  if (rank == nullptr || world == nullptr || rendezvous == nullptr ||
      !absl::SimpleAtoi(rank, &o->rank) || !absl::SimpleAtoi(world, &o->world)) {
    absl::FPrintF(stderr,
                  "distributed_mnist: set KSCOPE_RANK, KSCOPE_WORLD and KSCOPE_RENDEZVOUS "
                  "(examples/launch.sh)\n");
    return false;
  }
  o->rendezvous = rendezvous;
  return true;
}

double Metric(const kscope::RunMetrics& r, std::size_t i) {
  return r.values.at(i).second.item<double>();
}

// The rank's device: cpu, cuda:N as given, or for cuda rank r's share of the CUDA devices.
std::string RankDevice(const std::string& device, int rank) {
  if (device != "cuda") return device;
  return absl::StrFormat("cuda:%d", rank % std::max<std::int64_t>(1, kscope::cuda_device_count()));
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  kscope::GroupOptions options;
  options.timeout = std::chrono::seconds(60);
  options.backend = absl::GetFlag(FLAGS_backend);
  if (!GroupFromEnvironment(&options)) return 2;
  at::set_num_threads(1);
  at::manual_seed(123);  // the same data on every rank
  double accuracy = 0;
  bool same = false;
  try {
    auto scope = kscope::Scope::Open();
    const at::Tensor means = kscope::examples::MeanImages();
    const auto train = Images(means, kTrainRows), test = Images(means, kTestRows);
    const std::string device = RankDevice(absl::GetFlag(FLAGS_device), options.rank);
    if (device != "cpu") kscope::set_cuda_device(device);
    const kscope::Handle g = kscope::group(options);
    const kscope::Handle q = kscope::module({"linear", "", {kInputs, kClasses}, {}, {}});
    kscope::to(q, kscope::Options::Parse("to", {device}));  // model_data follows the module
    const kscope::Handle m =
        kscope::model({q, kscope::loss("ce"), kscope::opt("sgd", q, {kLearningRate})});
    kscope::train(m, {{"batchsize", kBatchSize},
                      {"shuffle", true},
                      {"shuffleseed", std::int64_t{7}},
                      {"metrics", std::vector<std::string>{"loss", "grouploss", "groupaccuracy"}}});
    kscope::test(
        m, {{"batchsize", kBatchSize}, {"metrics", std::vector<std::string>{"groupaccuracy"}}});
    kscope::model_data(m, kscope::nn::DataMode::kTrain, train.x, train.y);
    kscope::model_data(m, kscope::nn::DataMode::kTest, test.x, test.y);
    kscope::distribute(m, g);  // rank 0's parameters on every rank
    for (int epoch = 1; epoch <= kEpochs; ++epoch) {
      const kscope::RunMetrics r = kscope::run(m);
      absl::PrintF("epoch %d  task %d loss %.4f\n", epoch, options.rank, Metric(r, 0));
      if (options.rank == 0)
        absl::PrintF("epoch %d  group loss %.4f  accuracy %.1f%%\n", epoch, Metric(r, 1),
                     Metric(r, 2));
    }
    accuracy = Metric(kscope::testrun(m), 0);
    if (options.rank == 0)
      absl::PrintF("group test accuracy %.1f%% (required %.0f%%)\n", accuracy, kRequiredAccuracy);
    // The same parameters on every rank: their max over the ranks is every rank's own.
    const at::Tensor w = kscope::tensor(kscope::parm(m, "weight")).clone();
    const kscope::Value hi = kscope::allreduce(kscope::Value(w), kscope::Reduction::kMax);
    same = at::equal(std::get<at::Tensor>(hi), w);
    if (!same)
      absl::FPrintF(stderr, "distributed_mnist: rank %d's parameters differ from another rank's\n",
                    options.rank);
  } catch (const std::exception& e) {
    absl::FPrintF(stderr, "distributed_mnist: rank %d: %s\n", options.rank, e.what());
    return 1;
  }
  if (kscope::live_handles() != 0)
    absl::FPrintF(stderr, "%s", kscope::FormatObjects(kscope::obj()));
  return accuracy > kRequiredAccuracy && same && kscope::live_handles() == 0 ? 0 : 1;
}
