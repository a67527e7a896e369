// api/model/model_data.h: a model's training and testing data — batch counts, the size mismatch
// error, batching as windows onto the stored tensors (seed 004's sessions), epochs that start
// with a shuffle, unshuffle, and tasks taking interleaved batches. api/model/model_run.h: loss,
// backward, backstep (lbfgs through the closure) and run/testrun metrics; spirals trained by run.
#include <ATen/ATen.h>

#include "absl/cleanup/cleanup.h"
#include "api/kscope/kscope.h"
#include "tests/epoch_operators.h"
#include "tests/error_text.h"
#include "tests/optimizer_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace model_run_test {

using nn::DataMode;
using testing::ErrorOf;
using testing::LeakCheckTest;
using testing::Linear;
using testing::OpCounter;
using testing::Sequential;

using ModelRunTest = LeakCheckTest;

Handle Module(const char* kind) {
  ModuleDefinition d;
  d.kind = kind;
  return module(d);
}

Handle IdentityModel() { return model({Module("identity"), loss("mse"), opt("sgd")}); }

// The model's single input or target tensor.
at::Tensor Input(Handle m, DataMode mode = DataMode::kTrain) {
  return model_input(m, mode).tensors.at(0);
}
at::Tensor Target(Handle m, DataMode mode = DataMode::kTrain) {
  return model_target(m, mode).tensors.at(0);
}

// The input of each batch of an epoch, as long vectors.
std::vector<std::vector<std::int64_t>> Batches(Handle m, DataMode mode) {
  std::vector<std::vector<std::int64_t>> batches;
  while (model_batch(m, mode)) {
    const at::Tensor x = Input(m, mode).contiguous();
    batches.emplace_back(x.data_ptr<std::int64_t>(), x.data_ptr<std::int64_t>() + x.numel());
  }
  return batches;
}

TEST_F(ModelRunTest, DataGivesBatchCountsSeed004) {
  auto scope = Scope::Open();
  const Handle m = IdentityModel();
  train(m, {{"batchsize", std::int64_t{3}}});
  EXPECT_EQ(model_data(m, DataMode::kTrain, at::arange(1, 11), at::arange(100, 110)), 4);
  EXPECT_EQ(model_datasize(m, DataMode::kTrain), 10);
  using V = std::vector<std::int64_t>;
  EXPECT_EQ(Batches(m, DataMode::kTrain), (std::vector<V>{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10}}));
  EXPECT_EQ(model_datasize(m, DataMode::kTrain), 10);  // full size restored at the end
  EXPECT_TRUE(model_batch(m, DataMode::kTrain));
  EXPECT_EQ(Target(m)[0].item<std::int64_t>(), 100);
  EXPECT_EQ(model_restore(m, DataMode::kTrain), 10);
  test(m, {{"batchsize", std::int64_t{5}}});
  EXPECT_EQ(model_data(m, DataMode::kTest, at::arange(100), at::arange(100)), 20);
  train(m, {{"droplast", true}});
  EXPECT_EQ(model_batchinit(m, DataMode::kTrain), 3);
}

TEST_F(ModelRunTest, SizeMismatchChangesNothing) {
  auto scope = Scope::Open();
  const Handle m = IdentityModel();
  model_data(m, DataMode::kTrain, at::arange(7), at::arange(7));
  EXPECT_EQ(ErrorOf([&] { model_data(m, DataMode::kTrain, at::zeros(100), at::ones(10)); }),
            "tensor size mismatch, 100 vs 10");
  EXPECT_EQ(ErrorOf([&] { model_target(m, DataMode::kTrain, at::ones(10)); }),
            "tensor size mismatch, 7 vs 10");
  EXPECT_EQ(model_datasize(m, DataMode::kTrain), 7);
  EXPECT_EQ(ErrorOf([&] { model_batch(Module("relu"), DataMode::kTrain); }),
            "batch: expected model, given module");
}

TEST_F(ModelRunTest, InputAloneAndSharedHandles) {
  auto scope = Scope::Open();
  const Handle m = IdentityModel();
  train(m, {{"batchsize", std::int64_t{16}}});
  const Handle x = tensor(at::arange(101, 165));
  EXPECT_EQ(model_input(m, DataMode::kTrain, x), 4);
  EXPECT_FALSE(model_target(m, DataMode::kTrain).defined());
  EXPECT_TRUE(model_batch(m, DataMode::kTrain));
  EXPECT_EQ(size(x).single(),
            std::vector<std::int64_t>{16});  // the window shows through the handle
  EXPECT_EQ(restore(m), 64);
  EXPECT_EQ(size(x).single(), std::vector<std::int64_t>{64});
}

TEST_F(ModelRunTest, ShuffledEpochsUnshuffle) {
  auto scope = Scope::Open();
  const Handle m = IdentityModel();
  train(m, {{"batchsize", std::int64_t{4}}, {"shuffle", true}});
  const at::Tensor x = at::arange(20);
  model_data(m, DataMode::kTrain, x, x * 10);
  for (int epoch = 0; epoch < 3; ++epoch) {
    std::vector<std::int64_t> seen;
    for (const auto& b : Batches(m, DataMode::kTrain)) seen.insert(seen.end(), b.begin(), b.end());
    EXPECT_EQ(seen.size(), 20u);
    EXPECT_TRUE(at::equal(Target(m), Input(m) * 10));
  }
  shuffle(m);  // api/data/batch.h's shuffle on a model
  EXPECT_FALSE(at::equal(x, at::arange(20)));
  model_unshuffle(m);
  EXPECT_TRUE(at::equal(x, at::arange(20)));
}

TEST_F(ModelRunTest, TasksTakeInterleavedBatches) {
  auto scope = Scope::Open();
  const Handle m = IdentityModel();
  train(m, {{"batchsize", std::int64_t{2}}, {"tasks", std::int64_t{2}}, {"task", std::int64_t{1}}});
  EXPECT_EQ(model_data(m, DataMode::kTrain, at::arange(9), at::arange(9)), 2);
  using V = std::vector<std::int64_t>;
  EXPECT_EQ(Batches(m, DataMode::kTrain), (std::vector<V>{{2, 3}, {6, 7}}));
}

TEST_F(ModelRunTest, LossOfBatchesSeed004) {
  auto scope = Scope::Open();
  const Handle m = IdentityModel();
  train(m, {{"batchsize", std::int64_t{3}}});
  const at::Tensor x = at::tensor({.1f, 2.7f, 3.f, 4.f, 5.f, 6.f, 7.f}),
                   y = at::arange(1, 8).to(at::kFloat);
  model_data(m, DataMode::kTrain, x, y);
  EXPECT_NEAR(model_loss(m, x, y).tensor().item<double>(), 0.1857143, 1e-6);
  std::vector<double> losses;
  while (model_batch(m, DataMode::kTrain)) {
    losses.push_back(model_loss(m, Input(m), Target(m)).tensor().item<double>());
  }
  EXPECT_NEAR(losses.at(0), 0.4333333, 1e-6);
  EXPECT_EQ(losses.at(1), 0);
  EXPECT_EQ(losses.at(2), 0);
}

TEST_F(ModelRunTest, BackwardAndBackstepLbfgs) {
  auto scope = Scope::Open();
  const Handle q = Linear(1, 1);
  const Handle m = model({q, loss("mse"), opt("lbfgs", q, {1.0})});
  const at::Tensor x = at::linspace(-1, 1, 20).unsqueeze(1), y = 3 * x + 1;
  model_data(m, DataMode::kTrain, x, y);
  const at::Tensor before = model_backward(m);
  EXPECT_EQ(before.dim(), 0);
  EXPECT_EQ(before.scalar_type(), at::kFloat);  // the loss's own dtype
  EXPECT_GT(before.item<double>(), 0);
  zerograd(m);
  for (int i = 0; i < 5; ++i) model_backstep(m);
  EXPECT_LT(model_backward(m, x, y).item<double>(), 1e-6);
  EXPECT_EQ(ErrorOf([&] { model_backward(Module("relu")); }),
            "backward: expected model, given module");
}

// n points of each of 3 interleaved spiral arms, the class of each point.
std::pair<at::Tensor, at::Tensor> Spirals(std::int64_t n) {
  std::vector<at::Tensor> xs, ys;
  for (std::int64_t c = 0; c < 3; ++c) {
    const at::Tensor r = at::linspace(0, 1, n);
    const at::Tensor t = at::linspace(c * 4.0, (c + 1) * 4.0, n) + at::randn({n}) * 0.2;
    xs.push_back(at::stack({r * t.sin(), r * t.cos()}, 1));
    ys.push_back(at::full({n}, c, at::kLong));
  }
  return {at::cat(xs), at::cat(ys)};
}

TEST_F(ModelRunTest, SpiralsReachNinetyFivePercent) {
  auto scope = Scope::Open();
  at::manual_seed(1);
  const Handle q = Sequential(2, 100, 3);
  const Handle m = model({q, loss("ce"), opt("sgd", q, {0.2, 0.99})});
  const auto [x, y] = Spirals(100);
  train(m, {{"batchsize", std::int64_t{300}},
            {"shuffle", true},
            {"metrics", std::vector<std::string>{"loss", "batchloss", "accuracy", "predict"}}});
  model_data(m, DataMode::kTrain, x, y);
  RunMetrics r;
  for (int epoch = 0; epoch < 1000; ++epoch) r = run(m);
  ASSERT_EQ(r.values.size(), 4u);
  EXPECT_EQ(r.values[0].first, "loss");
  EXPECT_EQ(r.values[1].second.sizes(), at::IntArrayRef({1}));
  EXPECT_EQ(r.values[3].second.sizes(), at::IntArrayRef({300}));
  test(m, {{"metrics", std::vector<std::string>{"accuracy", "matches"}}});
  model_unshuffle(m);
  model_data(m, DataMode::kTest, x, y);
  const RunMetrics t = testrun(m);
  EXPECT_GT(t.values[0].second.item<double>(), 95.0);
  EXPECT_GT(r.values[2].second.item<double>(), 90.0);  // measured before the epoch's step
  // matches: (matched; total), ktorch's pair.
  EXPECT_EQ(t.values[1].second[1].item<std::int64_t>(), 300);
  EXPECT_EQ(t.values[1].second[0].item<std::int64_t>(),
            std::llround(t.values[0].second.item<double>() * 3));
}

TEST_F(ModelRunTest, AnEpochNeverAsksForAValueWhateverItsBatches) {
  // `.item()` (libtorch's _local_scalar_dense, which waits for a GPU) is never called in an
  // epoch of run or testrun, clipping by norm included: the epoch's sums come back in one copy
  // when its metrics are made (counted on a GPU by gpu_training_test.cc). Fused adam steps are
  // off here: libtorch's CPU kernel reads each parameter's step count with `.item()` inside the
  // kernel, a read of host memory (its CUDA kernel reads the count on the device).
  absl::Cleanup restore = [] { set_fused_steps(true); };
  set_fused_steps(false);
  for (int batches : {4, 12}) {
    EXPECT_EQ(
        testing::OperatorsPerEpoch("cpu", batches, OpCounter::Named("aten::_local_scalar_dense")),
        0)
        << batches << " batches";
  }
}

}  // namespace model_run_test
}  // namespace kscope
