// What makes training fast on a GPU, checked where libtorch sees a CUDA device (each test skips
// elsewhere, saying why; their CPU counterparts run everywhere): an epoch of run and testrun
// reads from the GPU once each, whatever its number of batches; bf16 and fp16 training (the
// `amp option) of an MLP and a transformer encoder reach fp32's accuracy; data held on the host
// trains as data on the GPU. The multi-tensor optimizer steps on the GPU:
// optimizer_multi_tensor_test.cc.
#include "tests/epoch_operators.h"
#include "tests/optimizer_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace gpu_training_test {

using testing::LeakCheckTest;
using testing::OpCounter;

class CudaTrainingTest : public LeakCheckTest {
 protected:
  void SetUp() override {
    LeakCheckTest::SetUp();
    if (!at::hasCUDA())
      GTEST_SKIP() << "no CUDA device: this libtorch reports at::hasCUDA() == false";
  }
};

TEST_F(CudaTrainingTest, AnEpochReadsFromTheGpuOnceWhateverItsBatches) {
  // Copies from the GPU to the host and .item() of GPU tensors: one for run's metrics, one for
  // testrun's, with clipping by norm, shuffling and four metrics, the data on the GPU or on the
  // host (its batches copied to the GPU, which reads nothing back).
  for (bool host_data : {false, true}) {
    for (int batches : {4, 12}) {
      EXPECT_EQ(testing::OperatorsPerEpoch("cuda", batches, OpCounter::ReadsFromADevice(),
                                           /*needs_arguments=*/true, host_data),
                2)
          << batches << " batches, host data " << host_data;
    }
  }
}

TEST_F(CudaTrainingTest, HostDataTrainsAsDataOnTheGpu) {
  // Two epochs of run and one of testrun of the same model on the same rows given as k values
  // (moved to the GPU once), as host tensors (each batch copied through pinned memory) and as
  // pinned host tensors (copied from their own pages): the same losses, accuracy and parameters.
  enum Form { kValues, kHost, kPinned };
  std::vector<at::Tensor> results;
  for (Form form : {kValues, kHost, kPinned}) {
    auto scope = Scope::Open();
    at::manual_seed(5);
    const Handle q = testing::Mlp(2, 16, 3);
    to(q, Options::Parse("to", {"cuda"}));
    const Handle m = model({q, loss("ce"), opt("adam", q)});
    const std::vector<std::string> metrics{"batchloss", "accuracy"};
    train(m, {{"batchsize", std::int64_t{32}}, {"shuffle", true}, {"metrics", metrics}});
    test(m, {{"batchsize", std::int64_t{50}}, {"metrics", std::vector<std::string>{"loss"}}});
    const at::Tensor x = at::randn({250, 2});
    const at::Tensor y = (x.select(1, 0) > 0).to(at::kLong) + (x.select(1, 1) > 0).to(at::kLong);
    if (form == kValues) {
      model_data(m, nn::DataMode::kTrain, x, y);
      model_data(m, nn::DataMode::kTest, x, y);
    } else {
      const Handle hx = tensor(form == kPinned ? x.pin_memory() : x);
      const Handle hy = tensor(form == kPinned ? y.pin_memory() : y);
      model_data(m, nn::DataMode::kTrain, hx, hy);
      model_data(m, nn::DataMode::kTest, hx, hy);
      EXPECT_TRUE(TensorOf("test", hx).is_cpu());
    }
    std::vector<at::Tensor> parts;
    {
      OpCounter pins(OpCounter::Named("aten::pin_memory"));
      for (int epoch = 0; epoch < 2; ++epoch) {
        for (const auto& metric : run(m).values) parts.push_back(metric.second.flatten().cpu());
      }
      parts.push_back(testrun(m).values[0].second.flatten().cpu());
      // Unpinned: input and target of 8 training batches twice and of 5 test batches.
      EXPECT_EQ(pins.count(), form == kHost ? 2 * (8 * 2 + 5) : 0) << form;
    }
    for (const at::Tensor& p : nn::ModelOf("test", m)->model().module->module().parameters())
      parts.push_back(p.detach().flatten().cpu());
    results.push_back(at::cat(parts).to(at::kDouble));
  }
  EXPECT_TRUE(at::allclose(results[1], results[0], 0, 1e-6)) << "host tensors";
  EXPECT_TRUE(at::allclose(results[2], results[0], 0, 1e-6)) << "pinned host tensors";
}

// The test accuracy after `epochs` epochs of a classifier on the GPU trained in `amp` (none,
// bf16 or fp16): `transformer` an embedding and one encoder layer over 16 tokens of 20 whose
// class is the first token mod 4, else a 2-64-64-3 MLP
// of the quadrants' classes.
double AccuracyAfterTraining(bool transformer, const std::string& amp, int epochs) {
  auto scope = Scope::Open();
  at::manual_seed(7);
  at::Tensor x, y;
  Handle q;
  if (transformer) {
    x = at::randint(20, {512, 16});
    y = x.select(1, 0).remainder(4);
    q = module(ModuleDefinition{
        "sequential",
        "",
        {},
        {},
        {ModuleDefinition{"embed", "", {std::int64_t{20}, std::int64_t{32}}, {}, {}},
         ModuleDefinition{"transpose", "", {std::int64_t{0}, std::int64_t{1}}, {}, {}},
         ModuleDefinition{"encoder",
                          "",
                          {nn::NestedDefinition("encoderlayer", {std::int64_t{32}, std::int64_t{4}},
                                                {{"dim", std::int64_t{64}}, {"dropout", 0.0}}),
                           std::int64_t{1}},
                          {},
                          {}},
         ModuleDefinition{"select", "", {std::int64_t{0}, std::int64_t{0}}, {}, {}},
         ModuleDefinition{"linear", "", {std::int64_t{32}, std::int64_t{4}}, {}, {}}}});
  } else {
    x = at::randn({512, 2});
    y = (x.select(1, 0) > 0).to(at::kLong) + (x.select(1, 1) > 0).to(at::kLong);
    q = testing::Mlp(2, 64, 3);
  }
  to(q, Options::Parse("to", {"cuda"}));
  const Handle m = model({q, loss("ce"), opt("adam", q, {0.005})});
  train(m, {{"batchsize", std::int64_t{32}}, {"shuffle", true}, {"amp", amp}});
  test(m, {{"amp", amp}, {"metrics", std::vector<std::string>{"accuracy"}}});
  model_data(m, nn::DataMode::kTrain, x, y);
  model_data(m, nn::DataMode::kTest, x, y);
  for (int epoch = 0; epoch < epochs; ++epoch) run(m);
  return testrun(m).values[0].second.item<double>();
}

TEST_F(CudaTrainingTest, MixedPrecisionReachesFullPrecisionsAccuracy) {
  for (bool transformer : {false, true}) {
    const double full = AccuracyAfterTraining(transformer, "none", 30);
    EXPECT_GT(full, 90.0) << (transformer ? "transformer" : "mlp");
    for (const char* amp : {"bf16", "fp16"}) {
      EXPECT_GT(AccuracyAfterTraining(transformer, amp, 30), full - 3.0)
          << (transformer ? "transformer " : "mlp ") << amp;
    }
  }
}

}  // namespace gpu_training_test
}  // namespace kscope
