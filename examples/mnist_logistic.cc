// mnist_logistic — logistic regression on MNIST-shaped generated data: 784 inputs (a flattened
// 28 x 28 image) -> 10 classes through one linear layer, cross-entropy loss and sgd, trained by
// a kscope model with `run` (batches of 1000, reshuffled every epoch) and scored by `testrun`.
//
// The data (examples/mnist_data.h) is learnable: each class has a mean image and every row is
// its class's mean plus unit noise. The test rows come from the same means with fresh noise and
// labels.
//
// Prints a line per epoch (loss, training rows per second, time since the first epoch), the
// test accuracy, and the obj table after the model's scope closed.
//
// Run:  ./build/examples/mnist_logistic_example          12000 training rows, 2000 test rows
//       ./build/examples/mnist_logistic_example --full   60000 and 10000, as MNIST
//       add --device=cuda (or cuda:N) to train on a GPU
//       (exit status 1 below 90% test accuracy or with a live handle left; ctest runs the
//       default size as the test `mnist_logistic_example`)
#include <cstdint>
#include <string>
#include <vector>

#include <ATen/Parallel.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "examples/mnist_data.h"
#include "kscope/kscope.h"

namespace {

using kscope::examples::Images;
using kscope::examples::kClasses;
using kscope::examples::kInputs;
using kscope::examples::Sample;

constexpr std::int64_t kBatchSize = 1000;
constexpr double kLearningRate = 0.5;
constexpr double kRequiredAccuracy = 90;  // percent; chance is 10

struct Size {
  std::int64_t train_rows;
  std::int64_t test_rows;
  int epochs;
};
constexpr Size kDefaultSize{12000, 2000, 10};
constexpr Size kFullSize{60000, 10000, 10};

}  // namespace

ABSL_FLAG(bool, full, false, "MNIST's sizes: 60000 training and 10000 test rows");
ABSL_FLAG(std::string, device, "cpu", "where the model and data live: cpu, cuda or cuda:N");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const Size size = absl::GetFlag(FLAGS_full) ? kFullSize : kDefaultSize;
  kscope::Options device;
  try {
    device = kscope::Options::Parse("mnist_logistic", {absl::GetFlag(FLAGS_device)});
  } catch (const kscope::Error& e) {
    absl::FPrintF(stderr, "%s\n", e.what());
    return 2;
  }
  at::set_num_threads(1);
  kscope::keep_freed_memory();  // training steps reuse the memory the last one freed
  at::manual_seed(123);
  double accuracy = 0;
  {
    auto scope = kscope::Scope::Open();
    const at::Tensor means = kscope::examples::MeanImages();
    const Sample train = Images(means, size.train_rows), test = Images(means, size.test_rows);
    const kscope::Handle q = kscope::module({"linear", "", {kInputs, kClasses}, {}, {}});
    kscope::to(q, device);  // model_data follows the module
    const kscope::Handle m =
        kscope::model({q, kscope::loss("ce"), kscope::opt("sgd", q, {kLearningRate})});
    kscope::train(m, {{"batchsize", kBatchSize},
                      {"shuffle", true},
                      {"metrics", std::vector<std::string>{"loss"}}});
    kscope::test(m, {{"batchsize", kBatchSize}, {"metrics", std::vector<std::string>{"accuracy"}}});
    const std::int64_t batches =
        kscope::model_data(m, kscope::nn::DataMode::kTrain, train.x, train.y);
    kscope::model_data(m, kscope::nn::DataMode::kTest, test.x, test.y);
    absl::PrintF("%d training rows in %d batches, %d test rows, %d epochs\n", size.train_rows,
                 batches, size.test_rows, size.epochs);
    const absl::Time start = absl::Now();
    for (int epoch = 1; epoch <= size.epochs; ++epoch) {
      const absl::Time epoch_start = absl::Now();
      const kscope::RunMetrics r = kscope::run(m);
      const absl::Time end = absl::Now();
      absl::PrintF("epoch %2d  loss %.4f  %8.0f rows/s  %6.2fs elapsed\n", epoch,
                   r.values.at(0).second.item<double>(),
                   size.train_rows / absl::ToDoubleSeconds(end - epoch_start),
                   absl::ToDoubleSeconds(end - start));
    }
    accuracy = kscope::testrun(m).values.at(0).second.item<double>();
    absl::PrintF("test accuracy %.1f%% (chance 10%%, required %.0f%%)\n", accuracy,
                 kRequiredAccuracy);
  }
  absl::PrintF("\nobj[] after the scope closed (%d live handles):\n%s", kscope::live_handles(),
               kscope::FormatObjects(kscope::obj()));
  // Exit status for the test suite: real learning, and no handle left behind.
  return accuracy > kRequiredAccuracy && kscope::live_handles() == 0 ? 0 : 1;
}
