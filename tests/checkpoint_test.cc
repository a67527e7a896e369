// api/model/checkpoint.h: a model's training saved between epochs and resumed by another model
// of the same structure, which then trains exactly as the uninterrupted model does (parameters,
// batchnorm buffers, adam's state, the learning rate set meanwhile, the shuffles and dropout);
// the CUDA generators' states kept (the GPU's dropout resumed: gpu_test.cc); bad checkpoints and
// mismatched models change nothing.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <ATen/CPUGeneratorImpl.h>

#include "api/env/environment.h"
#include "api/model/checkpoint_file.h"
#include "api/model/model_object.h"
#include "tests/error_text.h"
#include "tests/temp_directory.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace {

using nn::DataMode;
using testing::ErrorOf;
using testing::TempDirectory;

// A fresh directory per test, and the checkpoint's path in it.
class CheckpointTest : public testing::LeakCheckTest {
 protected:
  const TempDirectory dir_{"checkpoint_test"};
  const std::string path_ = dir_.Join("m.ckpt");
};

constexpr std::int64_t kRows = 54;

ModuleDefinition Layer(const std::string& kind, std::vector<nn::OptionValue> options = {}) {
  return ModuleDefinition{kind, "", std::move(options), {}, {}};
}

// (`sequential; (`linear;4;hidden); (`batchnorm1d;hidden); `relu; (`drop;.2);
// (`linear;hidden;3)) with cross entropy and adam, its values drawn after seeding with `seed`,
// batches of 8, reshuffled every epoch.
Handle Classifier(std::uint64_t seed, std::int64_t hidden = 16) {
  at::manual_seed(seed);
  const Handle q = module(ModuleDefinition{
      "sequential",
      "",
      {},
      {},
      {Layer("linear", {std::int64_t{4}, hidden}), Layer("batchnorm1d", {hidden}), Layer("relu"),
       Layer("drop", {0.2}), Layer("linear", {hidden, std::int64_t{3}})}});
  const Handle m = model({q, loss("ce"), opt("adam", q, {0.01})});
  train(m, {{"batchsize", std::int64_t{8}}, {"shuffle", true}});
  return m;
}

// Data of its own for each model (a model's shuffles reorder its data in place).
void GiveData(Handle m, std::int64_t rows = kRows) {
  at::Generator g = at::make_generator<at::CPUGeneratorImpl>(42);
  const at::Tensor x = at::randn({rows, 4}, g);
  model_data(m, DataMode::kTrain, x, x.matmul(at::randn({4, 3}, g)).argmax(1));
}

// Every parameter, buffer and optimizer state buffer of model m, flattened into one row.
at::Tensor Flat(Handle m) {
  std::vector<at::Tensor> parts;
  for (const at::Tensor& t : nn::ModelOf("test", m)->tensors())
    parts.push_back(t.detach().flatten().to(at::kDouble));
  return at::cat(parts);
}

TEST_F(CheckpointTest, ResumedTrainingFollowsTheUninterruptedRun) {
  auto scope = Scope::Open();
  const Handle a = Classifier(1);
  GiveData(a);
  at::manual_seed(7);
  for (int epoch = 0; epoch < 2; ++epoch) run(a);
  lr(a, 0.005);
  checkpoint(a, path_, 2);
  for (int epoch = 0; epoch < 2; ++epoch) run(a);
  const at::Tensor want = Flat(a);

  const Handle b = Classifier(2);  // other values, another learning rate
  GiveData(b);
  run(b);  // a state of its own, and its data shuffled
  at::manual_seed(99);
  EXPECT_EQ(resume(b, path_), 2);
  EXPECT_EQ(lr(b), std::vector<double>{0.005});
  for (int epoch = 0; epoch < 2; ++epoch) run(b);
  EXPECT_TRUE(at::equal(Flat(b), want)) << "max difference " << (Flat(b) - want).abs().max();

  // The data goes back to the order it was given in.
  model_unshuffle(a);
  model_unshuffle(b);
  EXPECT_TRUE(at::equal(model_input(a, DataMode::kTrain).tensors[0],
                        model_input(b, DataMode::kTrain).tensors[0]));
}

TEST_F(CheckpointTest, AModelWithoutShufflesResumesWithoutData) {
  auto scope = Scope::Open();
  const Handle a = Classifier(1);
  checkpoint(a, path_, 0);  // no data, no step: a model as made
  const Handle b = Classifier(2);
  EXPECT_EQ(resume(b, path_), 0);
  EXPECT_TRUE(at::equal(Flat(a), Flat(b)));
}

// fp16 training's loss scale (api/model/loss_scale.h) goes with the checkpoint, whatever it is:
// a file saved at the initial scale puts a changed one back to it.
TEST_F(CheckpointTest, TheLossScaleIsSavedAndResumed) {
  auto scope = Scope::Open();
  const Handle a = Classifier(1), b = Classifier(1);
  nn::LossScale& saved = nn::ModelOf("test", a)->model().loss_scale;
  saved.scale = 1024;
  saved.good_steps = 17;
  checkpoint(a, path_, 1);
  EXPECT_EQ(resume(b, path_), 1);
  const nn::LossScale& resumed = nn::ModelOf("test", b)->model().loss_scale;
  EXPECT_EQ(resumed.scale, 1024);
  EXPECT_EQ(resumed.good_steps, 17);
  CheckpointFile s = ReadCheckpoint(path_);
  s.loss_scale = nn::LossScale{};
  WriteCheckpoint(path_, s);
  resume(b, path_);
  EXPECT_EQ(nn::ModelOf("test", b)->model().loss_scale.scale, nn::LossScale::kInitial);
}

// The file holds the state of each CUDA device's generator the saving process saw (none without
// a GPU); a process that sees fewer devices restores those it sees and leaves the others.
TEST_F(CheckpointTest, CudaStatesOfDevicesThisProcessDoesNotSeeAreIgnored) {
  auto scope = Scope::Open();
  const Handle m = Classifier(1);
  checkpoint(m, path_, 3);
  CheckpointFile s = ReadCheckpoint(path_);
  ASSERT_EQ(s.cuda_states.size(), static_cast<std::size_t>(cuda_device_count()));
  // One device more than this process sees, its state no generator would take.
  s.cuda_states.push_back(at::zeros({3}, at::kByte));
  WriteCheckpoint(path_, s);
  const CheckpointFile read = ReadCheckpoint(path_);
  ASSERT_EQ(read.cuda_states.size(), s.cuda_states.size());
  for (std::size_t i = 0; i < s.cuda_states.size(); ++i)
    EXPECT_TRUE(at::equal(read.cuda_states[i], s.cuda_states[i])) << "cuda:" << i;
  EXPECT_EQ(resume(m, path_), 3);
}

TEST_F(CheckpointTest, CheckpointMidEpochIsRefused) {
  auto scope = Scope::Open();
  const Handle m = Classifier(1);
  GiveData(m);
  ASSERT_TRUE(model_batch(m, DataMode::kTrain));
  EXPECT_EQ(ErrorOf([&] { checkpoint(m, path_, 0); }),
            "checkpoint: an epoch is under way (batch 1): save between epochs");
  EXPECT_FALSE(testing::PathExists(path_));
  model_restore(m, DataMode::kTrain);
  checkpoint(m, path_, 0);
  EXPECT_TRUE(testing::PathExists(path_));
  EXPECT_FALSE(testing::PathExists(path_ + ".tmp"));
  EXPECT_EQ(ErrorOf([&] { checkpoint(m, dir_.Join("no/such/dir/m.ckpt"), 0); }),
            "checkpoint: cannot write " + dir_.Join("no/such/dir/m.ckpt.tmp") +
                ": No such file or directory");
}

TEST_F(CheckpointTest, ResumeFromAnotherModelOrAFileThatIsNoCheckpointChangesNothing) {
  auto scope = Scope::Open();
  const Handle a = Classifier(1);
  GiveData(a);
  run(a);
  checkpoint(a, path_, 1);

  const Handle narrow = Classifier(2, 8);
  GiveData(narrow);
  const Handle sgd = Classifier(3);
  GiveData(sgd);
  model(sgd, {opt("sgd", sgd)});
  const Handle fewer_rows = Classifier(4);
  GiveData(fewer_rows, 50);
  const Handle no_data = Classifier(5);
  const std::string garbage = dir_.Join("garbage");
  std::ofstream(garbage) << "not a checkpoint";

  const std::vector<at::Tensor> before = {Flat(narrow), Flat(sgd), Flat(fewer_rows), Flat(no_data)};
  EXPECT_EQ(ErrorOf([&] { resume(narrow, path_); }),
            "resume: the checkpoint has parameter `0.weight of size 16 4, the module 8 4");
  EXPECT_EQ(ErrorOf([&] { resume(sgd, path_); }), "opt: state of adam given, the optimizer is sgd");
  EXPECT_EQ(ErrorOf([&] { resume(fewer_rows, path_); }),
            "resume: the checkpoint's data order is of 54 rows, the model's training data has "
            "50: give the model its data before resume");
  EXPECT_EQ(ErrorOf([&] { resume(no_data, path_); }),
            "resume: the checkpoint's data order is of 54 rows, the model's training data has "
            "0: give the model its data before resume");
  EXPECT_EQ(ErrorOf([&] { resume(no_data, dir_.Join("none")); }),
            "resume: cannot read " + dir_.Join("none") + ": No such file or directory");
  const std::string not_one = "resume: " + garbage + " is not a kscope checkpoint (";
  EXPECT_EQ(ErrorOf([&] { resume(no_data, garbage); }).substr(0, not_one.size()), not_one);
  EXPECT_EQ(ErrorOf([&] { resume(tensor(at::ones({2})), path_); }),
            "resume: expected model, given tensor");
  const std::vector<at::Tensor> after = {Flat(narrow), Flat(sgd), Flat(fewer_rows), Flat(no_data)};
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_TRUE(at::equal(after[i], before[i])) << i;
}

}  // namespace
}  // namespace kscope
