// What makes training fast on a GPU, checked where libtorch sees a CUDA device (each test skips
// elsewhere, saying why; their CPU counterparts run everywhere): an epoch of run and testrun
// reads from the GPU once each, whatever its number of batches. The multi-tensor optimizer
// steps on the GPU: optimizer_multi_tensor_test.cc.
#include "tests/epoch_operators.h"
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
  // testrun's, with clipping by norm, shuffling and four metrics.
  for (int batches : {4, 12}) {
    EXPECT_EQ(testing::OperatorsPerEpoch("cuda", batches, OpCounter::ReadsFromADevice(),
                                         /*needs_arguments=*/true),
              2)
        << batches << " batches";
  }
}

}  // namespace gpu_training_test
}  // namespace kscope
