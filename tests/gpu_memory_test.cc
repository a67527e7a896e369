// Device memory on a GPU (issue 45), where libtorch sees a CUDA device (each test skips
// elsewhere, saying why; device_memory_test.cc is the CPU's): the caching allocator's readings
// of a CUDA tensor, cached blocks given back by empty_cache, a scope's footprint on the GPU, and
// a GPU filled until an allocation fails: run then fails naming the device and bytes, leaves no
// handle behind, and trains on once the memory is given back.
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "tests/optimizer_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace gpu_memory_test {

using ::testing::StartsWith;

const c10::Device kCuda(c10::DeviceType::CUDA, 0);
constexpr std::int64_t kMiB = 1 << 20;

class CudaMemoryTest : public testing::LeakCheckTest {
 protected:
  void SetUp() override {
    testing::LeakCheckTest::SetUp();
    if (!at::hasCUDA())
      GTEST_SKIP() << "no CUDA device: this libtorch reports at::hasCUDA() == false";
  }
};

at::Tensor CudaBytes(std::int64_t bytes) {
  return at::empty({bytes / 4}, at::TensorOptions().dtype(at::kFloat).device(kCuda));
}

TEST_F(CudaMemoryTest, TheCachingAllocatorsReadingsOfATensor) {
  CudaBytes(kMiB).reset();  // CUDA in use: its device is listed from now on
  ASSERT_GE(device_memory().size(), 2u);
  EXPECT_EQ(device_memory().at(1).device, kCuda);
  const DeviceMemory before = device_memory(kCuda);
  at::Tensor t = CudaBytes(8 * kMiB);
  const DeviceMemory during = device_memory(kCuda);
  EXPECT_EQ(during.allocated - before.allocated, 8 * kMiB);
  EXPECT_GE(during.reserved, during.allocated);
  EXPECT_EQ(during.allocations - before.allocations, 1);
  EXPECT_GE(during.peak_allocated, during.allocated);
  t.reset();
  EXPECT_EQ(device_memory(kCuda).allocated, before.allocated);
  EXPECT_GE(device_memory(kCuda).reserved, 8 * kMiB) << "the freed block stays cached";
  empty_cache();
  EXPECT_LT(device_memory(kCuda).reserved, during.reserved) << "empty_cache gave it back";
}

TEST_F(CudaMemoryTest, AScopesFootprintOnTheGpu) {
  {
    auto scope = Scope::Open(GradPolicy::kInherit, Footprint::kTracked);
    at::Tensor t = CudaBytes(4 * kMiB);
    std::vector<MemoryFootprint> devices = ScopeFootprint(scope.id());
    ASSERT_GE(devices.size(), 2u);
    EXPECT_GE(devices[1].allocated, 4 * kMiB);
    EXPECT_GE(devices[1].peak - devices[1].start, 4 * kMiB);
  }
  EXPECT_GE(LastClosedFootprint()->devices.at(1).freed, 4 * kMiB);
}

TEST_F(CudaMemoryTest, AFullGpuFailsRunWhichTrainsOnOnceMemoryIsBack) {
  auto scope = Scope::Open();
  const Handle q = testing::Mlp(64, 1024, 4);
  to(q, Options::Parse("to", {"cuda"}));
  const Handle m = model({q, loss("ce"), opt("adam", q)});
  train(m, {{"batchsize", std::int64_t{4096}}});
  model_data(m, nn::DataMode::kTrain, at::randn({16384, 64}).to(kCuda),
             at::randint(4, {16384}).to(kCuda));
  run(m);                          // adam's state made, the step's kernels loaded
  std::vector<at::Tensor> filler;  // the GPU filled, 1 GiB at a time, then 16 MiB at a time
  for (std::int64_t block : {1024 * kMiB, 16 * kMiB}) {
    try {
      for (;;) filler.push_back(CudaBytes(block));
    } catch (const c10::OutOfMemoryError&) {
    }
  }
  const std::size_t handles = live_handles();
  try {
    run(m);
    ADD_FAILURE() << "run found memory on a full GPU";
  } catch (const OutOfMemory& e) {
    EXPECT_THAT(e.what(), StartsWith("run: out of memory on cuda:0: tried to allocate "));
    ASSERT_TRUE(e.record().has_value());
    EXPECT_EQ(e.record()->device, kCuda);
  }
  EXPECT_EQ(live_handles(), handles);
  EXPECT_EQ(model_datasize(m, nn::DataMode::kTrain), 16384);
  filler.clear();
  const double first = run(m).values.at(0).second.item<double>();
  double last = first;
  for (int epoch = 0; epoch < 5; ++epoch) last = run(m).values.at(0).second.item<double>();
  EXPECT_LT(last, first) << "trains on once the memory is back";
}

}  // namespace gpu_memory_test
}  // namespace kscope
