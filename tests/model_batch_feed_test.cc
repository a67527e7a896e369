// api/model/batch_feed.h on the CPU: a feed that copies hands out copies equal to the windows a
// feed that does not copy hands out, one batch ahead (the data already windowed at the next batch
// when a batch is handed out), every row once per epoch in the epoch's shuffled order, the target
// rows with their input rows, and the data at full size when the epoch ends; data held on the
// module's device is handed over uncopied. The copies to a GPU (pinned memory, a side stream):
// gpu_training_test.cc.
#include <optional>
#include <vector>

#include <ATen/ATen.h>

#include "api/kscope/kscope.h"
#include "api/model/batch_feed.h"
#include "api/model/model_object.h"
#include "tests/optimizer_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace model_batch_feed_test {

using nn::DataMode;
using testing::LeakCheckTest;

using BatchFeedTest = LeakCheckTest;

// A 1-1 linear model over 7 rows x = 0..6 and y = 10x, in batches of 3.
struct SevenRows {
  explicit SevenRows(bool shuffle = false) {
    m = model({testing::Linear(1, 1), loss("mse"), opt("sgd")});
    train(m, {{"batchsize", std::int64_t{3}}, {"shuffle", shuffle}});
    x = tensor(at::arange(7, at::kFloat).unsqueeze(1));
    y = tensor(at::arange(7, at::kFloat).unsqueeze(1) * 10);
    model_data(m, DataMode::kTrain, x, y);
  }
  ~SevenRows() {
    free(x);
    free(y);
    free(m);
  }
  const nn::Model& Model() const { return nn::ModelOf("test", m)->model(); }

  Handle m, x, y;
};

TEST_F(BatchFeedTest, CopiedBatchesAreTheWindowsOneBatchAhead) {
  SevenRows data;
  std::vector<at::Tensor> windows;
  {
    BatchFeed feed(data.m, data.Model(), DataMode::kTrain);
    EXPECT_FALSE(feed.copies()) << "the data is where the module is";
    while (std::optional<BatchFeed::Batch> batch = feed.Next()) {
      EXPECT_TRUE(batch->input.tensors[0].is_same(TensorOf("test", data.x)));
      windows.push_back(batch->input.tensors[0].clone());
    }
  }
  ASSERT_EQ(windows.size(), 3u);
  BatchFeed feed(data.m, data.Model(), DataMode::kTrain, BatchFeed::Copies::kAlways);
  EXPECT_TRUE(feed.copies());
  // The data's window when batch k is handed out: batch k+1's rows, or all 7 after the last.
  const std::vector<std::int64_t> ahead{3, 1, 7};
  for (std::size_t k = 0; k < windows.size(); ++k) {
    std::optional<BatchFeed::Batch> batch = feed.Next();
    ASSERT_TRUE(batch.has_value()) << k;
    const at::Tensor& input = batch->input.tensors[0];
    EXPECT_TRUE(at::equal(input, windows[k])) << k;
    EXPECT_FALSE(input.is_alias_of(TensorOf("test", data.x))) << k;
    EXPECT_TRUE(at::equal(batch->target.tensors[0], windows[k] * 10)) << k;
    EXPECT_EQ(TensorOf("test", data.x).size(0), ahead[k]) << k;
  }
  EXPECT_FALSE(feed.Next().has_value());
  EXPECT_FALSE(feed.Next().has_value()) << "the epoch stays over";
  EXPECT_EQ(model_datasize(data.m, DataMode::kTrain), 7);
}

TEST_F(BatchFeedTest, ACopiedEpochIsEveryRowOnceInTheShuffledOrder) {
  SevenRows data(/*shuffle=*/true);
  std::vector<at::Tensor> inputs, targets;
  {
    BatchFeed feed(data.m, data.Model(), DataMode::kTrain, BatchFeed::Copies::kAlways);
    while (std::optional<BatchFeed::Batch> batch = feed.Next()) {
      inputs.push_back(batch->input.tensors[0]);
      targets.push_back(batch->target.tensors[0]);
    }
  }
  // The data is shuffled in place and back at full size: the batches, in order, are its rows.
  const at::Tensor shuffled = TensorOf("test", data.x);
  EXPECT_TRUE(at::equal(at::cat(inputs), shuffled));
  EXPECT_TRUE(at::equal(at::cat(targets), shuffled * 10));
  EXPECT_FALSE(at::equal(shuffled, at::arange(7, at::kFloat).unsqueeze(1)))
      << "seed 0's first shuffle of 7 rows moves some";
  EXPECT_TRUE(at::equal(std::get<0>(shuffled.sort(0)), at::arange(7, at::kFloat).unsqueeze(1)));
}

TEST_F(BatchFeedTest, StepsOnCopiedBatchesEqualStepsOnTheData) {
  // The same training with the feed copying each batch and with the data's own windows.
  std::vector<at::Tensor> losses, weights;
  for (BatchFeed::Copies copies :
       {BatchFeed::Copies::kWhereHeldElsewhere, BatchFeed::Copies::kAlways}) {
    at::manual_seed(3);
    SevenRows data(/*shuffle=*/true);
    nn::Model& model = nn::ModelOf("test", data.m)->model();
    std::vector<at::Tensor> epoch;
    model_batchinit(data.m, DataMode::kTrain);
    BatchFeed feed(data.m, model, DataMode::kTrain, copies);
    while (std::optional<BatchFeed::Batch> batch = feed.Next()) {
      epoch.push_back(model_backstep(data.m, batch->input.tensors[0], batch->target.tensors[0]));
    }
    losses.push_back(at::stack(epoch));
    weights.push_back(model.module->module().parameters()[0].detach().clone());
  }
  EXPECT_TRUE(at::equal(losses[0], losses[1]));
  EXPECT_TRUE(at::equal(weights[0], weights[1]));
}

TEST_F(BatchFeedTest, DataOnTheDeviceIsUsedAsItIs) {
  const at::Tensor t = at::ones({2, 3});
  const nn::DataTensors x{nn::DataTensors::Form::kTensor, {t}, {}};
  nn::DataTensors moved;
  EXPECT_EQ(&OnDevice(x, std::nullopt, &moved), &x) << "a module without parameters";
  EXPECT_EQ(&OnDevice(x, c10::Device(c10::kCPU), &moved), &x);
  EXPECT_TRUE(moved.tensors.empty());
}

}  // namespace model_batch_feed_test
}  // namespace kscope
