// The GPU suite: CUDA tensors and their release, pinned host memory, a model trained on a GPU
// (against the same model trained on the CPU), the shuffle generator on the GPU, a model with
// dropout on the GPU resumed from a checkpoint, and an nccl
// process group of one rank training a CUDA model. Each test runs where libtorch sees a CUDA
// device and skips elsewhere, saying why (the nccl tests also need a libtorch with NCCL:
// KSCOPE_ENABLE_CUDA=ON). Two nccl ranks, one GPU each: distributed_test.cc. docs/building.md, GPU,
// has the commands and the results of the last run on a GPU machine.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/env/environment.h"
#include "api/model/model_object.h"
#include "tests/error_text.h"
#include "tests/free_port.h"
#include "tests/optimizer_test_util.h"
#include "tests/temp_directory.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace gpu_test {

using testing::ErrorOf;
using testing::LeakCheckTest;

class CudaTest : public LeakCheckTest {
 protected:
  void SetUp() override {
    LeakCheckTest::SetUp();
    if (!at::hasCUDA())
      GTEST_SKIP() << "no CUDA device: this libtorch reports at::hasCUDA() == false";
  }
};

TEST_F(CudaTest, TensorsOnTheGpuSeed001) {
  // q)x:tensor(1 2 3e; `cuda)  device x -> `cuda:0   y:tensor 4 5  to(y;`cuda)  device y -> `cuda:0
  auto scope = Scope::Open();
  Handle x = tensor(std::vector<float>{1, 2, 3}, {}, Options::Parse("tensor", {"cuda"}));
  EXPECT_EQ(device(x), "cuda:0");
  Handle y = tensor(std::vector<std::int64_t>{4, 5});
  to(y, Options::Parse("to", {"cuda"}));
  EXPECT_EQ(device(y), "cuda:0");
  EXPECT_EQ(values<std::int64_t>(y), (std::vector<std::int64_t>{4, 5}));
  Handle z = mul(x, x);
  EXPECT_EQ(device(z), "cuda:0");
  EXPECT_EQ(obj().back().device, "cuda:0");
  EXPECT_EQ(values<float>(z), (std::vector<float>{1, 4, 9}));
}

TEST_F(CudaTest, ScopeExitReleasesGpuTensors) {
  // The tensor itself expires at scope exit (observed through a weak reference; the caching
  // allocator may keep the memory reserved for reuse).
  std::optional<c10::weak_intrusive_ptr<c10::TensorImpl>> observed;
  {
    auto scope = Scope::Open();
    Handle big = zeros({1 << 20}, Options::Parse("zeros", {"cuda"}));
    EXPECT_EQ(bytes(big), 4 << 20);
    observed.emplace(TensorOf("test", big).getIntrusivePtr());
    EXPECT_FALSE(observed->expired());
  }
  EXPECT_TRUE(observed->expired());
}

TEST_F(CudaTest, PinnedHostMemoryCopiesToTheGpuAndBack) {
  auto scope = Scope::Open();
  const Handle host = tensor(std::vector<float>{1, 2, 3}, {}, Options::Parse("tensor", {"pinned"}));
  EXPECT_TRUE(pinned(host).single());
  const Handle gpu = copyto(host, Options::Parse("copyto", {"cuda"}), /*async=*/true);
  EXPECT_EQ(device(gpu), "cuda:0");
  sync(gpu);
  EXPECT_EQ(values<float>(gpu), (std::vector<float>{1, 2, 3}));
  const Handle back = copyto(gpu, Options::Parse("copyto", {"cpu"}));
  EXPECT_EQ(values<float>(back), (std::vector<float>{1, 2, 3}));
}

// A 2-8-2 classifier on `device` (the same starting values and data whatever the device), with
// 40 rows in batches of 10, training `metrics` and the test accuracy.
Handle Classifier(const std::string& device,
                  const std::vector<std::string>& metrics = {"loss", "accuracy"},
                  const nn::NamedValues& extra = {}) {
  at::manual_seed(11);
  const Handle q = testing::Sequential(2, 8, 2);
  to(q, Options::Parse("to", {device}));
  const Handle m = model({q, loss("ce"), opt("sgd", q, {0.1})});
  nn::NamedValues options = {{"batchsize", std::int64_t{10}}, {"metrics", metrics}};
  options.insert(options.end(), extra.begin(), extra.end());
  train(m, options);
  test(m, {{"batchsize", std::int64_t{10}}, {"metrics", std::vector<std::string>{"accuracy"}}});
  const at::Tensor x = at::randn({40, 2});  // k data on the host: model_data moves it
  model_data(m, nn::DataMode::kTrain, x, (x.select(1, 0) > 0).to(at::kLong));
  model_data(m, nn::DataMode::kTest, x, (x.select(1, 0) > 0).to(at::kLong));
  return m;
}

at::Tensor Parameters(Handle m) {
  std::vector<at::Tensor> parts;
  for (const at::Tensor& t : nn::ModelOf("test", m)->model().module->module().parameters()) {
    parts.push_back(t.detach().flatten().cpu());
  }
  return at::cat(parts);
}

TEST_F(CudaTest, ModelTrainsOnTheGpuAsOnTheCpu) {
  auto scope = Scope::Open();
  const Handle cpu = Classifier("cpu"), gpu = Classifier("cuda");
  EXPECT_EQ(device(gpu), "cuda:0");
  EXPECT_TRUE(at::equal(Parameters(cpu), Parameters(gpu)));
  for (int epoch = 0; epoch < 3; ++epoch) {
    const RunMetrics c = run(cpu), g = run(gpu);
    EXPECT_NEAR(g.values[0].second.item<double>(), c.values[0].second.item<double>(), 1e-5)
        << "loss, epoch " << epoch;
    EXPECT_DOUBLE_EQ(g.values[1].second.item<double>(), c.values[1].second.item<double>())
        << "accuracy";
  }
  EXPECT_TRUE(at::allclose(Parameters(gpu), Parameters(cpu), 1e-4, 1e-5));
  EXPECT_DOUBLE_EQ(testrun(gpu).values[0].second.item<double>(),
                   testrun(cpu).values[0].second.item<double>());
  const at::Tensor x = at::randn({4, 2});
  EXPECT_TRUE(model_backstep(gpu, x, (x.select(1, 0) > 0).to(at::kLong)).is_cuda());
}

// Tasks (tasks > 1) draw their permutations from one generator seeded with shuffleseed: the
// CPU's unless shufflecuda puts it on the GPU, as in ktorch. So a GPU model without shufflecuda
// shuffles as the same model on the CPU does, and two GPU models with it draw the same sequence.
TEST_F(CudaTest, SharedShuffleGeneratorIsSeeded) {
  auto scope = Scope::Open();
  const nn::NamedValues tasks = {
      {"shuffle", true}, {"tasks", std::int64_t{2}}, {"shuffleseed", std::int64_t{5}}};
  nn::NamedValues on_gpu = tasks;
  on_gpu.emplace_back("shufflecuda", true);
  const Handle cpu = Classifier("cpu", {"loss"}, tasks), gpu = Classifier("cuda", {"loss"}, tasks);
  const Handle a = Classifier("cuda", {"loss"}, on_gpu), b = Classifier("cuda", {"loss"}, on_gpu);
  const auto loss = [](Handle m) { return run(m).values[0].second.item<double>(); };
  for (int epoch = 0; epoch < 3; ++epoch) {
    EXPECT_NEAR(loss(gpu), loss(cpu), 1e-5) << "epoch " << epoch;
    EXPECT_NEAR(loss(a), loss(b), 1e-6) << "epoch " << epoch;
  }
  EXPECT_TRUE(at::allclose(Parameters(gpu), Parameters(cpu), 1e-4, 1e-5));
  EXPECT_TRUE(at::allclose(Parameters(a), Parameters(b), 1e-5, 1e-6));
}

// A 2-32-2 classifier with dropout (p .5) on the GPU, the same starting values and data each
// time, 40 rows in batches of 10.
Handle DroppingClassifier() {
  at::manual_seed(11);
  const Handle q = module(ModuleDefinition{
      "sequential",
      "",
      {},
      {},
      {ModuleDefinition{"linear", "", {std::int64_t{2}, std::int64_t{32}}, {}, {}},
       ModuleDefinition{"drop", "", {0.5}, {}, {}},
       ModuleDefinition{"linear", "", {std::int64_t{32}, std::int64_t{2}}, {}, {}}}});
  to(q, Options::Parse("to", {"cuda"}));
  const Handle m = model({q, loss("ce"), opt("sgd", q, {0.1})});
  train(m, {{"batchsize", std::int64_t{10}}});
  const at::Tensor x = at::randn({40, 2});
  model_data(m, nn::DataMode::kTrain, x, (x.select(1, 0) > 0).to(at::kLong));
  return m;
}

// Dropout on a GPU draws from the device's default generator, whose state a checkpoint saves: a
// model resumed on the GPU drops the units the uninterrupted model dropped
// (api/model/checkpoint.h).
TEST_F(CudaTest, ResumedTrainingOnTheGpuDropsOutAsTheUninterruptedRun) {
  auto scope = Scope::Open();
  const testing::TempDirectory dir("gpu_test");
  const std::string path = dir.Join("m.ckpt");
  const Handle a = DroppingClassifier();
  run(a);
  checkpoint(a, path, 1);
  for (int epoch = 0; epoch < 2; ++epoch) run(a);

  const Handle b = DroppingClassifier();
  at::manual_seed(99);  // every device's generator elsewhere: resume must set them back
  EXPECT_EQ(resume(b, path), 1);
  for (int epoch = 0; epoch < 2; ++epoch) run(b);
  EXPECT_TRUE(at::allclose(Parameters(b), Parameters(a), 1e-6, 1e-7))
      << "max difference " << (Parameters(b) - Parameters(a)).abs().max();
}

// An nccl group needs a libtorch with NCCL and a GPU.
class NcclTest : public CudaTest {
 protected:
  void SetUp() override {
    CudaTest::SetUp();
    if (IsSkipped()) return;
#ifndef KSCOPE_WITH_CUDA
    GTEST_SKIP() << "built without KSCOPE_ENABLE_CUDA: no nccl backend";
#endif
  }
};

TEST_F(NcclTest, GroupOfOneTrainsACudaModel) {
  auto scope = Scope::Open();
  GroupOptions o;
  o.backend = "nccl";
  o.rendezvous = testing::TcpRendezvous();
  o.timeout = std::chrono::milliseconds(30000);
  const Handle g = group(o);
  EXPECT_EQ(str(g), absl::StrCat("nccl process group: rank 0 of 1 at ", o.rendezvous));

  // Collectives on host data and on GPU handles (host data travels through the current GPU).
  const Value sum = allreduce(Value(at::tensor({1.0, 2.0})));
  EXPECT_TRUE(at::equal(std::get<at::Tensor>(sum), at::tensor({1.0, 2.0})));
  const Handle t = tensor(std::vector<float>{3, 4}, {}, Options::Parse("tensor", {"cuda"}));
  allreduce(t, Reduction::kMax);
  broadcast(t, 0);
  EXPECT_EQ(values<float>(t), (std::vector<float>{3, 4}));
  const Handle gathered = allgather(t);
  EXPECT_EQ(device(gathered), "cuda:0");

  const Handle cpu = Classifier("cpu");
  EXPECT_EQ(ErrorOf([&] { distribute(cpu, g); }),
            "distribute: an nccl group needs the model on a CUDA device, given cpu");
  const Handle m = Classifier("cuda", {"loss", "grouploss", "groupmatches"});
  distribute(m, g);
  for (int epoch = 0; epoch < 2; ++epoch) {
    const RunMetrics r = run(m), c = run(cpu);
    EXPECT_DOUBLE_EQ(r.values[1].second.item<double>(),
                     r.values[0].second.item<double>());  // grouploss
    EXPECT_NEAR(r.values[0].second.item<double>(), c.values[0].second.item<double>(), 1e-5);
    EXPECT_EQ(r.values[2].second[1].item<std::int64_t>(), 40);  // groupmatches: rows seen
  }
  EXPECT_TRUE(at::allclose(Parameters(m), Parameters(cpu), 1e-4, 1e-5));
}

}  // namespace gpu_test
}  // namespace kscope
