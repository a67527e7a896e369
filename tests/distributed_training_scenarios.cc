// The training scenarios of tests/distributed_worker (see tests/distributed_worker.h).
#include <signal.h>

#include <cstdio>
#include <cstdlib>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <ATen/CPUGeneratorImpl.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "api/env/environment.h"
#include "api/model/model_object.h"
#include "tests/distributed_worker.h"
#include "tests/optimizer_test_util.h"

namespace kscope::worker {
namespace {

using nn::DataMode;

// n rows of 4 features and their class (0..2) by a fixed linear rule, from a generator seeded
// with `seed`: the same on every rank for the same seed.
std::pair<at::Tensor, at::Tensor> Data(std::int64_t n, std::uint64_t seed) {
  at::Generator g = at::make_generator<at::CPUGeneratorImpl>(seed);
  const at::Tensor x = at::randn({n, 4}, g);
  const at::Tensor w =
      at::tensor({1.0f, -1.0f, 0.5f, 0.0f, 2.0f, -0.5f, -1.0f, 0.5f, 1.0f, 0.5f, 0.0f, -2.0f})
          .view({4, 3});
  return {x, x.matmul(w).argmax(1)};
}

// A 4-16-3 classifier with cross entropy and adam, its parameters drawn after seeding with
// `seed`, on `device`, and one local training step on rows of its own (so that adam has state
// to share).
Handle Classifier(std::uint64_t seed, const std::string& device = "cpu") {
  at::manual_seed(seed);
  const Handle q = testing::Sequential(4, 16, 3);
  to(q, Options::Parse("to", {device}));
  const Handle m = model({q, loss("ce"), opt("adam", q, {0.01})});
  const auto [x, y] = Data(8, 1000 + seed);
  model_backstep(m, x, y);
  return m;
}

// Every parameter, buffer and optimizer state buffer of model m, flattened into one double row.
at::Tensor Flat(Handle m) {
  std::vector<at::Tensor> parts;
  for (const at::Tensor& t : nn::ModelOf("worker", m)->tensors())
    parts.push_back(t.detach().flatten().to(at::kDouble).cpu());
  return at::cat(parts);
}

double Metric(const RunMetrics& r, const std::string& name) {
  for (const auto& [key, value] : r.values) {
    if (key == name && value.numel() == 1) return value.item<double>();
  }
  throw std::runtime_error("no metric " + name);
}

at::Tensor MetricTensor(const RunMetrics& r, const std::string& name) {
  for (const auto& [key, value] : r.values) {
    if (key == name) return value;
  }
  throw std::runtime_error("no metric " + name);
}

constexpr int kEpochs = 3;
constexpr std::int64_t kBatch = 4, kRows = 54, kTestRows = 30, kTestBatch = 7, kShuffleSeed = 5;

void SetOptions(Handle m, std::int64_t batchsize) {
  train(m, {{"batchsize", batchsize},
            {"shuffle", true},
            {"shuffleseed", kShuffleSeed},
            {"metrics", std::vector<std::string>{"loss", "grouploss", "groupmatches"}}});
  test(m, {{"batchsize", kTestBatch},
           {"metrics", std::vector<std::string>{"accuracy", "groupaccuracy", "groupmatches"}}});
}

// One process training on the whole data with batches as large as the ranks' together, from
// rank 0's starting values, with the shared shuffle's seed in the default generator: the
// reference the ranks must match. Returns (flattened values, test accuracy).
std::pair<at::Tensor, double> SingleProcess(int world) {
  const Scope scope = Scope::Open();
  const Handle m = Classifier(0);
  SetOptions(m, kBatch * world);
  const auto [x, y] = Data(kRows, 1);
  model_data(m, DataMode::kTrain, x, y);
  seed_device("cpu", kShuffleSeed);
  for (int epoch = 0; epoch < kEpochs; ++epoch) run(m);
  const auto [xt, yt] = Data(kTestRows, 2);
  model_data(m, DataMode::kTest, xt, yt);
  return {Flat(m), Metric(testrun(m), "accuracy")};
}

// Every rank's row, checked equal to rank 0's.
void CheckSameOnEveryRank(const at::Tensor& mine, const std::string& what) {
  const auto all = std::get<TensorVector>(allgather(Operand(mine)).value());
  for (std::size_t r = 1; r < all.size(); ++r)
    CheckEqual(all[r], all[0], absl::StrCat(what, ": rank ", r, " vs rank 0"));
}

// got within `tolerance` of want, relative (absolute below 1).
void CheckClose(double got, double want, const std::string& what, double tolerance = 1e-9) {
  Check(std::abs(got - want) <= tolerance * std::max(1.0, std::abs(want)),
        absl::StrFormat("%s: %.17g vs %.17g", what, got, want));
}

}  // namespace

void Train(const Setup& s) {
  const int rank = s.group.rank, world = s.group.world;
  const auto [want, want_accuracy] = SingleProcess(world);

  const Scope scope = Scope::Open();
  if (s.device != "cpu") set_cuda_device(s.device);  // the current device of the rank's collectives
  const Handle g = JoinGroup(s);
  Check(group_options(g).local_rank == s.group.local_rank, "the launcher's local rank");
  const Handle m = Classifier(rank, s.device);  // every rank starts elsewhere
  SetOptions(m, kBatch);
  const auto [x, y] = Data(kRows, 1);
  model_data(m, DataMode::kTrain, x, y);
  distribute(m, g);
  Check(is_distributed(m), "bound");
  Check(std::get<std::int64_t>(train_option(m, "task")) == rank, "train task is the rank");
  Check(std::get<std::int64_t>(test_option(m, "tasks")) == world, "test tasks is the world");
  CheckSameOnEveryRank(Flat(m), "after distribute");

  for (int epoch = 0; epoch < kEpochs; ++epoch) {
    const RunMetrics r = run(m);
    // The tasks' losses add up to the group's; the group saw every row once.
    const at::Tensor losses =
        std::get<at::Tensor>(allreduce(Value(at::tensor({Metric(r, "loss")}))));
    // (within a real's rounding: the 2.x line's loss metrics are reals, as ktorch 2.3's)
    CheckClose(losses.item<double>(), Metric(r, "grouploss"), "sum of task losses vs grouploss",
               1e-6);
    Check(MetricTensor(r, "groupmatches")[1].item<std::int64_t>() == kRows, "groupmatches total");
  }
  const at::Tensor got = Flat(m);
  CheckSameOnEveryRank(got, "after training");
  Check(at::allclose(got, want, 1e-4, 1e-5),
        absl::StrCat("parameters vs one process: max difference ",
                     (got - want).abs().max().item<double>()));

  const auto [xt, yt] = Data(kTestRows, 2);
  model_data(m, DataMode::kTest, xt, yt);
  const RunMetrics t = testrun(m);
  Check(MetricTensor(t, "groupmatches")[1].item<std::int64_t>() == kTestRows,
        "testrun groupmatches total");
  CheckClose(Metric(t, "groupaccuracy"), want_accuracy, "testrun groupaccuracy vs one process");
  undistribute(m);
  Check(!is_distributed(m), "unbound");
}

void Mismatch(const Setup& s) {
  const int rank = s.group.rank;
  const Scope scope = Scope::Open();
  const Handle g = group(s.group);
  // Rank 1's module is wider: every rank fails alike, nothing changed.
  const Handle wide =
      model({testing::Sequential(4, rank == 1 ? 32 : 16, 3), loss("ce"), opt("sgd")});
  const at::Tensor before = Flat(wide);
  Check(ErrorOf([&] { distribute(wide, g); }) ==
            "distribute: rank 1's module differs from rank 0's (parameter and buffer sizes and "
            "types)",
        "module mismatch error");
  CheckEqual(Flat(wide), before, "unchanged after a failed distribute");
  Check(!is_distributed(wide), "not bound after a failed distribute");

  // Only rank 0 took a step: its adam state has no match on rank 1.
  const Handle stepped =
      rank == 0 ? Classifier(0) : model({testing::Sequential(4, 16, 3), loss("ce"), opt("adam")});
  Check(absl::StartsWith(ErrorOf([&] { distribute(stepped, g); }),
                         "distribute: rank 1's optimizer state differs from rank 0's"),
        "optimizer state mismatch error");

  // Bound alike, but rank 1 has more rows: run fails on every rank before any step.
  const Handle m = model({testing::Sequential(4, 16, 3), loss("ce"), opt("sgd")});
  train(m, {{"batchsize", std::int64_t{4}}});
  const auto [x, y] = Data(rank == 1 ? 20 : 16, 1);
  model_data(m, DataMode::kTrain, x, y);
  distribute(m, g);
  const at::Tensor bound = Flat(m);
  Check(ErrorOf([&] { run(m); }) ==
            "run: rank 1 has 5 batches in all, rank 0 has 4: give every rank the same data and "
            "batchsize",
        "batch count mismatch error");
  CheckEqual(Flat(m), bound, "no step taken");
  // A task option changed after binding (rank 1 now task 0 too): refused on every rank.
  train(m, {{"task", std::int64_t{0}}});
  const auto [same_x, same_y] = Data(16, 1);
  model_data(m, DataMode::kTrain, same_x, same_y);
  const std::string error = ErrorOf([&] { run(m); });
  Check(
      error == "run: rank 1 is task 0 of 2, but a model bound to a group of 2 must be task 1 of 2",
      error);
}

void Killed(const Setup& s, int victim) {
  const Scope scope = Scope::Open();
  const Handle g = group(s.group);
  const Handle m = Classifier(0);
  train(m, {{"batchsize", std::int64_t{8}}});
  const auto [x, y] = Data(3000, 1);
  model_data(m, DataMode::kTrain, x, y);
  distribute(m, g);
  run(m);
  barrier(g);
  if (s.group.rank == victim) {
    std::thread([] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      raise(SIGKILL);
    }).detach();
  }
  std::string error = "no error";
  for (int epoch = 0; epoch < 100000 && error == "no error"; ++epoch)
    error = ErrorOf([&] { run(m); });
  Check(absl::StartsWith(
            error, absl::StrFormat("run: rank %d of %d failed: ", s.group.rank, s.group.world)),
        error);
  Check(absl::EndsWith(error, DeadRankNamed(s, victim)), error);
  Check(model_datasize(m, DataMode::kTrain) == 3000, "data restored after the failed run");
}

void KilledBeforePhase(const Setup& s, const std::string& phase) {
  const Scope scope = Scope::Open();
  const Handle g = group(s.group);
  const Handle m = Classifier(s.group.rank);
  train(m, {{"batchsize", std::int64_t{4}}});
  test(m, {{"batchsize", std::int64_t{4}},
           {"metrics", std::vector<std::string>{"loss", "groupmatches"}}});
  const auto [x, y] = Data(24, 1);
  model_data(m, DataMode::kTrain, x, y);
  model_data(m, DataMode::kTest, x, y);
  const bool dies = s.group.rank == s.group.world - 1;
  const auto die_if_last = [&](const std::string& here) {
    if (dies && here == phase) raise(SIGKILL);
  };
  const auto expect_failure = [&](const std::string& fn, const std::function<void()>& call) {
    const std::string error = ErrorOf(call);
    Check(absl::StartsWith(
              error, absl::StrFormat("%s: rank %d of %d failed", fn, s.group.rank, s.group.world)),
          error);
    Check(absl::EndsWith(error, DeadRankNamed(s)), error);
  };
  barrier(g);  // every rank has joined: what fails next is the phase's collective
  die_if_last("distribute");
  if (phase == "distribute") return expect_failure("distribute", [&] { distribute(m, g); });
  distribute(m, g);
  run(m);
  barrier(g);
  die_if_last("testrun");
  expect_failure("testrun", [&] { testrun(m); });
}

void Slow(const Setup& s) {
  const Scope scope = Scope::Open();
  const Handle g = group(s.group);
  const Handle m = Classifier(s.group.rank);
  train(m, {{"batchsize", std::int64_t{4}}});
  const auto [x, y] = Data(24, 1);
  model_data(m, DataMode::kTrain, x, y);
  distribute(m, g);
  for (int epoch = 0; epoch < 2; ++epoch) {
    // The last rank comes late to each epoch: the others wait in its first step's averaging.
    if (s.group.rank == s.group.world - 1) std::this_thread::sleep_for(std::chrono::seconds(3));
    run(m);
  }
  CheckSameOnEveryRank(Flat(m), "after two epochs with a late rank");
}

void RankError(const Setup& s) {
  const int rank = s.group.rank, world = s.group.world;
  const Scope scope = Scope::Open();
  const Handle g = group(s.group);
  const Handle m = Classifier(0);
  train(m, {{"batchsize", std::int64_t{4}},
            {"metrics", std::vector<std::string>{"loss", "grouploss"}}});
  test(m, {{"batchsize", std::int64_t{4}},
           {"metrics", std::vector<std::string>{"loss", "groupmatches"}}});
  distribute(m, g);
  const at::Tensor before = Flat(m);
  // The last rank's first batch (rows 4(world-1)..) holds a class out of range: its loss fails
  // there, and it alone knows why.
  const auto [x, y] = Data(8 * world, 1);
  const at::Tensor bad = y.clone();
  if (rank == world - 1) bad[4 * (world - 1)].fill_(7);
  const std::string peer = absl::StrFormat(
      "rank %d of %d failed in this epoch (its own error says why)", world - 1, world);
  const auto check_error = [&](const std::string& error, const std::string& fn) {
    if (rank == world - 1) {
      Check(absl::StrContains(error, "out of bounds"), "the failing rank's own error: " + error);
    } else {
      Check(error == absl::StrCat(fn, ": ", peer), "its peers' error: " + error);
    }
  };
  model_data(m, DataMode::kTrain, x, bad);
  check_error(ErrorOf([&] { run(m); }), "run");
  CheckEqual(Flat(m), before, "no step taken");
  Check(model_datasize(m, DataMode::kTrain) == 8 * world,
        "training data restored after the failed run");

  // The ranks are still in step: with the class fixed, the next epochs train alike.
  model_data(m, DataMode::kTrain, x, y);
  for (int epoch = 0; epoch < 2; ++epoch) run(m);
  CheckSameOnEveryRank(Flat(m), "after the failed epoch and two more");

  // testrun: the failing rank's error ends its batches; the group metrics' collective carries it.
  model_data(m, DataMode::kTest, x, bad);
  check_error(ErrorOf([&] { testrun(m); }), "testrun");
  Check(model_datasize(m, DataMode::kTest) == 8 * world,
        "test data restored after the failed testrun");
  model_data(m, DataMode::kTest, x, y);
  Check(MetricTensor(testrun(m), "groupmatches")[1].item<std::int64_t>() == 8 * world,
        "testrun after the failed one");
}

void Overlap(const Setup& s) {
  const Scope scope = Scope::Open();
  const Handle g = JoinGroup(s);
  const auto [x, y] = Data(kRows, 1);
  auto trained = [&, x = x, y = y](const DistributeOptions& o) {
    const Handle m = Classifier(s.group.rank);
    SetOptions(m, kBatch);
    model_data(m, DataMode::kTrain, x.clone(), y.clone());
    distribute(m, g, o);
    for (int epoch = 0; epoch < kEpochs; ++epoch) run(m);
    const at::Tensor values = Flat(m);
    free(m);
    return values;
  };
  DistributeOptions overlapped;  // 131 floats: buckets of 3, 48 and 80 (last first)
  overlapped.first_bucket_bytes = 12;
  overlapped.bucket_bytes = 192;
  DistributeOptions after;
  after.overlap = false;
  const at::Tensor a = trained(overlapped), b = trained(after);
  CheckSameOnEveryRank(a, "overlapped");
  Check(at::allclose(a, b, 1e-5, 1e-6),
        absl::StrCat("overlapped vs after backward: max difference ",
                     (a - b).abs().max().item<double>()));
}

void Resume(const Setup& s) {
  const int rank = s.group.rank, world = s.group.world;
  const char* tmp = std::getenv("TMPDIR");
  const std::string path =
      absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/kscope_resume_",
                   std::hash<std::string>{}(s.group.rendezvous), ".ckpt");
  const Scope scope = Scope::Open();
  const Handle g = JoinGroup(s);
  const auto [x, y] = Data(kRows, 1);
  // A model of its own data (shuffles reorder a model's data in place), starting elsewhere.
  auto trainee = [&, x = x, y = y](std::uint64_t seed, std::int64_t batchsize) {
    const Handle m = Classifier(seed);
    SetOptions(m, batchsize);
    model_data(m, DataMode::kTrain, x.clone(), y.clone());
    return m;
  };

  const Handle m = trainee(rank, kBatch);
  distribute(m, g);
  run(m);
  if (rank == 0) checkpoint(m, path, 1);
  barrier(g);
  for (int epoch = 1; epoch < kEpochs; ++epoch) run(m);
  const at::Tensor want = Flat(m);

  const Handle again = trainee(10 + rank, kBatch);
  Check(resume(again, path) == 1, "the checkpoint's epoch");
  distribute(again, g);
  for (int epoch = 1; epoch < kEpochs; ++epoch) run(again);
  CheckEqual(Flat(again), want, "resumed on the same ranks vs uninterrupted");

  const Handle alone = trainee(20 + rank, kBatch * world);
  resume(alone, path);
  for (int epoch = 1; epoch < kEpochs; ++epoch) run(alone);
  const at::Tensor got = Flat(alone);
  Check(at::allclose(got, want, 1e-4, 1e-5),
        absl::StrCat("resumed as one process vs uninterrupted: max difference ",
                     (got - want).abs().max().item<double>()));
  barrier(g);
  if (rank == 0) std::remove(path.c_str());
}

}  // namespace kscope::worker
