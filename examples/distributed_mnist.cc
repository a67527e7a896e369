// distributed_mnist — mnist_logistic trained data-parallel: one process per rank of a process
// group, every rank holding the same generated data and model, the model bound to the group
// (kscope::distribute), so that each rank takes every world-th batch of one shuffle and the
// gradients are averaged over the ranks in every step.
//
// Rank, world and rendezvous come from the launcher that started the process: torchrun, srun,
// mpirun or examples/launch.sh (kscope::placed_by_launcher, api/distributed/group.h); started by
// none, it runs as a world of one. Prints per epoch this task's
// loss and, on rank 0, the group's loss and accuracy; then the group's test accuracy.
//
// --backend=nccl --device=cuda trains on GPUs (each rank on cuda:<local rank> modulo the devices
// it sees). --checkpoint=FILE saves the training after every epoch (rank 0) and, when FILE
// exists, resumes from it first (every rank), so a job stopped mid-way and started again
// trains on from its last epoch (kscope::checkpoint and kscope::resume, api/model/checkpoint.h).
//
// Run:  examples/launch.sh -n 2 -- build/examples/distributed_mnist_example
//       python3 -m torch.distributed.run --standalone --nproc_per_node=2 --no_python \
//         build/examples/distributed_mnist_example
//       (exit status 1 below 90% group test accuracy, if the ranks' parameters differ at the
//       end, or with a live handle left; ctest runs two ranks as `distributed_mnist_example`)
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include <ATen/Parallel.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "examples/mnist_data.h"
#include "kscope/kscope.h"

ABSL_FLAG(std::string, backend, "gloo", "the process group's backend: gloo or nccl");
ABSL_FLAG(std::string, checkpoint, "",
          "a checkpoint file: resumed from when it exists, saved after every epoch");
ABSL_FLAG(
    std::string, device, "cpu",
    "where the model lives: cpu, or cuda (each rank on cuda:<local rank> modulo the devices)");

namespace {

using kscope::examples::Images;
using kscope::examples::kClasses;
using kscope::examples::kInputs;

constexpr std::int64_t kTrainRows = 12000, kTestRows = 2000, kBatchSize = 500;
constexpr int kEpochs = 5;
constexpr double kLearningRate = 0.5;
constexpr double kRequiredAccuracy = 90;  // percent; chance is 10

// The group's options: where the launcher placed this rank, or a world of one.
kscope::GroupOptions Placement() {
  kscope::GroupOptions o;
  if (!kscope::launched()) {
    o.rendezvous = absl::StrFormat("/tmp/kscope_distributed_mnist_%d", getpid());
    return o;
  }
  return kscope::placed_by_launcher(o, "distributed_mnist");
}

double Metric(const kscope::RunMetrics& r, std::size_t i) {
  return r.values.at(i).second.item<double>();
}

// The rank's device: cpu, cuda:N as given, or for cuda its local rank's share of this machine's
// CUDA devices (the rank's, when the launcher gave no local rank).
std::string RankDevice(const std::string& device, const kscope::GroupOptions& o) {
  if (device != "cuda") return device;
  const int local = o.local_rank >= 0 ? o.local_rank : o.rank;
  return absl::StrFormat("cuda:%d", local % std::max<std::int64_t>(1, kscope::cuda_device_count()));
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  kscope::GroupOptions options;
  try {
    options = Placement();
  } catch (const std::exception& e) {
    absl::FPrintF(stderr, "%s\n", e.what());
    return 2;
  }
  options.timeout = std::chrono::seconds(60);
  options.backend = absl::GetFlag(FLAGS_backend);
  at::set_num_threads(1);
  kscope::keep_freed_memory();  // training steps reuse the memory the last one freed
  at::manual_seed(123);         // the same data on every rank
  double accuracy = 0;
  bool same = false;
  try {
    auto scope = kscope::Scope::Open();
    const at::Tensor means = kscope::examples::MeanImages();
    const auto train = Images(means, kTrainRows), test = Images(means, kTestRows);
    const std::string device = RankDevice(absl::GetFlag(FLAGS_device), options);
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
    const std::string checkpoint_file = absl::GetFlag(FLAGS_checkpoint);
    int done = 0;  // epochs
    if (!checkpoint_file.empty() && access(checkpoint_file.c_str(), F_OK) == 0) {
      done = static_cast<int>(kscope::resume(m, checkpoint_file));
      absl::PrintF("rank %d resumes after epoch %d\n", options.rank, done);
    }
    kscope::distribute(m, g);  // rank 0's parameters on every rank
    for (int epoch = done + 1; epoch <= kEpochs; ++epoch) {
      const kscope::RunMetrics r = kscope::run(m);
      absl::PrintF("epoch %d  task %d loss %.4f\n", epoch, options.rank, Metric(r, 0));
      if (options.rank == 0)
        absl::PrintF("epoch %d  group loss %.4f  accuracy %.1f%%\n", epoch, Metric(r, 1),
                     Metric(r, 2));
      if (!checkpoint_file.empty() && options.rank == 0)
        kscope::checkpoint(m, checkpoint_file, epoch);
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
