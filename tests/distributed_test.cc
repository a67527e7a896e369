// Process groups and collectives (api/distributed/): real multi-process runs of
// tests/distributed_worker.cc (2 and 3 ranks over TCP on 127.0.0.1, 2 over a file rendezvous, a
// rank leaving early, a rank never arriving), and in this process a group of one rank for the
// handle-table side (class, str, ref, obj, free, the default group) and for bad arguments.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "api/distributed/distribute.h"
#include "api/distributed/gradient_reducer.h"
#include "api/distributed/group_object.h"
#include "api/env/environment.h"
#include "tests/build_paths.h"
#include "tests/error_text.h"
#include "tests/free_port.h"
#include "tests/optimizer_test_util.h"
#include "tests/python_torch.h"
#include "tests/temp_directory.h"
#include "tests/test_fixture.h"

extern char** environ;

namespace kscope {
namespace distributed_test {

using ::testing::Each;
using ::testing::Eq;
using testing::ErrorOf;
using testing::TcpRendezvous;

using DistributedTest = testing::LeakCheckTest;

// One process for RunProcesses: its command line and the variables set for it (NAME=value).
struct Process {
  std::vector<std::string> argv;
  std::vector<std::string> variables;
};

// Whether `entry` (NAME=value) sets a launcher's variable (api/distributed/launch_environment.h).
bool IsLauncherVariable(const std::string& entry) {
  for (const char* prefix :
       {"RANK=", "WORLD_SIZE=", "LOCAL_RANK=", "MASTER_ADDR=", "MASTER_PORT=", "TORCHELASTIC_",
        "SLURM_", "OMPI_", "PMI_", "MPI_LOCALRANKID=", "KSCOPE_RANK=", "KSCOPE_WORLD=",
        "KSCOPE_RENDEZVOUS=", "KSCOPE_LOCAL_RANK="}) {
    if (absl::StartsWith(entry, prefix)) return true;
  }
  return false;
}

// Starts each process (fork+exec through posix_spawn: nothing runs in a child before exec) with
// this process's environment less any launcher's variables, plus its own, and waits for them; a
// process still running after `limit` is killed. Returns each one's exit status, -1 for one
// killed or not started.
std::vector<int> RunProcesses(std::vector<Process> processes,
                              std::chrono::seconds limit = std::chrono::seconds(120)) {
  const std::size_t n = processes.size();
  std::vector<pid_t> pids(n, -1);
  std::vector<int> status(n, -1);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::string> variables;
    for (char** e = environ; *e != nullptr; ++e) {
      if (!IsLauncherVariable(*e)) variables.push_back(*e);
    }
    variables.insert(variables.end(), processes[i].variables.begin(), processes[i].variables.end());
    std::vector<char*> argv, envp;
    for (std::string& a : processes[i].argv) argv.push_back(a.data());
    for (std::string& v : variables) envp.push_back(v.data());
    argv.push_back(nullptr);
    envp.push_back(nullptr);
    if (posix_spawnp(&pids[i], argv[0], nullptr, nullptr, argv.data(), envp.data()) != 0)
      pids[i] = -1;
  }
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (std::size_t running = n; running > 0;) {
    running = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (pids[i] <= 0) continue;
      int s = 0;
      if (waitpid(pids[i], &s, WNOHANG) == pids[i]) {
        status[i] = WIFEXITED(s) ? WEXITSTATUS(s) : -1;
        pids[i] = -1;
      } else if (std::chrono::steady_clock::now() > deadline) {
        kill(pids[i], SIGKILL);
        waitpid(pids[i], &s, 0);
        pids[i] = -1;
      } else {
        ++running;
      }
    }
    if (running > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return status;
}

// Starts one process as each of `ranks` of a world of `world` running `scenario`, with
// `variables` (NAME=value) set for each, and waits for them (up to `limit`). Returns each one's
// exit status, -1 for one killed or not started.
std::vector<int> RunProcessesAs(const std::string& scenario, const std::vector<int>& ranks,
                                int world, const std::string& rendezvous,
                                std::chrono::milliseconds timeout,
                                const std::vector<std::string>& variables = {},
                                std::chrono::seconds limit = std::chrono::seconds(120)) {
  std::vector<Process> processes;
  for (int rank : ranks) {
    processes.push_back({{testing::kDistributedWorkerPath, scenario, absl::StrCat(rank),
                          absl::StrCat(world), rendezvous, absl::StrCat(timeout.count())},
                         variables});
  }
  return RunProcesses(std::move(processes), limit);
}

// The same for ranks 0..started-1.
std::vector<int> RunRanks(const std::string& scenario, int started, int world,
                          const std::string& rendezvous, std::chrono::milliseconds timeout,
                          std::chrono::seconds limit = std::chrono::seconds(120)) {
  std::vector<int> ranks(started);
  for (int rank = 0; rank < started; ++rank) ranks[rank] = rank;
  return RunProcessesAs(scenario, ranks, world, rendezvous, timeout, {}, limit);
}

constexpr std::chrono::milliseconds kTimeout(30000);

TEST_F(DistributedTest, TwoRanksAgreeOnEveryCollective) {
  EXPECT_THAT(RunRanks("collectives", 2, 2, TcpRendezvous(), kTimeout), Each(Eq(0)));
}

TEST_F(DistributedTest, ThreeRanksAgreeOnEveryCollective) {
  EXPECT_THAT(RunRanks("collectives", 3, 3, TcpRendezvous(), kTimeout), Each(Eq(0)));
}

TEST_F(DistributedTest, TwoRanksMeetThroughAFile) {
  const std::string path = absl::StrFormat("%skscope_group_%d", ::testing::TempDir(), getpid());
  std::remove(path.c_str());
  EXPECT_THAT(RunRanks("collectives", 2, 2, path, kTimeout), Each(Eq(0)));
  std::remove(path.c_str());
}

// Group timeouts: kTimeout (30 s) wherever a peer's failure is seen by its closed connection,
// at once, so the timeout only has to outlast a loaded machine's slowest start; the one test
// that waits a timeout out (a rank that never comes) uses 10 s. The tests' own limit (RunRanks,
// 120 s) only guards against a hang.

// The last rank exits after joining; the others' allreduce fails naming allreduce and, after
// their roll call, the rank that left.
TEST_F(DistributedTest, RankLeavingEarlyFailsItsPeers) {
  EXPECT_THAT(RunRanks("early_exit", 3, 3, TcpRendezvous(), kTimeout), Each(Eq(0)));
}

// Two of three ranks start: both fail in group, naming group, the rendezvous and rank 2 as not
// arrived, once the group's 10 s timeout has passed.
TEST_F(DistributedTest, MissingRankFailsGroup) {
  EXPECT_THAT(RunRanks("missing", 2, 3, TcpRendezvous(), std::chrono::seconds(10)), Each(Eq(0)));
}

// A rank 3 s late to each epoch: its peers wait for it in the step's averaging, well inside
// the group's timeout, and every rank ends with the same values.
TEST_F(DistributedTest, LateRankDoesNotFailTheGroup) {
  EXPECT_THAT(RunRanks("slow", 2, 2, TcpRendezvous(), kTimeout), Each(Eq(0)));
}

// Two processes started as rank 1 of 2 (a launcher's variables gone wrong): the one that comes
// second is refused at once, naming the rank taken (exit status 3), and the other two meet.
// (Before, gloo took both, and a process aborted on an exception in gloo's own thread.)
TEST_F(DistributedTest, ASecondProcessAsARankTakenIsRefused) {
  const testing::TempDirectory dir("distributed_test");
  const std::vector<int> status =
      RunProcessesAs("duplicate", {0, 1, 1}, 2, TcpRendezvous(), kTimeout,
                     {"REFUSED_MARKER=" + dir.Join("refused")});
  EXPECT_EQ(status[0], 0);
  EXPECT_THAT((std::vector<int>{status[1], status[2]}), ::testing::UnorderedElementsAre(0, 3));
}

// Rank 1 alone at a tcp rendezvous that rank 0 would serve: it cannot reach the store, and says
// whose it is.
TEST_F(DistributedTest, AStoreRankZeroNeverServesIsNamed) {
  GroupOptions o;
  o.rank = 1;
  o.world = 2;
  o.rendezvous = TcpRendezvous();
  o.timeout = std::chrono::milliseconds(1000);
  const std::string error = ErrorOf([&] { group(o); });
  EXPECT_TRUE(absl::StartsWith(error, "group: rank 1 of 2 could not meet its peers at " +
                                          o.rendezvous + " within 1000 ms: "))
      << error;
  EXPECT_TRUE(absl::EndsWith(error, "; rank 0, which serves the store, did not answer")) << error;
}

// Ranks starting from different values train a model bound to the group: every rank ends with
// the same parameters and optimizer state, equal to one process training on the whole data
// (tests/distributed_worker.h, scenario train).
TEST_F(DistributedTest, TwoRanksTrainAsOneProcess) {
  EXPECT_THAT(RunRanks("train", 2, 2, TcpRendezvous(), kTimeout), Each(Eq(0)));
}

TEST_F(DistributedTest, ThreeRanksTrainAsOneProcess) {
  EXPECT_THAT(RunRanks("train", 3, 3, TcpRendezvous(), kTimeout), Each(Eq(0)));
}

// Gradients averaged during backward (api/distributed/gradient_reducer.h, distribute's default)
// and after it give the same training; with three ranks one takes the epoch's last step without
// a batch (scenario overlap).
TEST_F(DistributedTest, OverlappedAveragingTrainsAsAveragingAfterBackward) {
  EXPECT_THAT(RunRanks("overlap", 3, 3, TcpRendezvous(), kTimeout), Each(Eq(0)));
}

// Checkpoint and resume (api/model/checkpoint.h): a job restarted from rank 0's checkpoint, on
// the same two ranks or as one process, trains on to the uninterrupted job's values (scenario
// resume).
TEST_F(DistributedTest, ResumedJobFollowsTheUninterruptedOne) {
  EXPECT_THAT(RunRanks("resume", 2, 2, TcpRendezvous(), kTimeout), Each(Eq(0)));
}

// Launchers (api/distributed/launch_environment.h): ranks that learn their place from the
// variables a launcher sets train as the ranks above do (the worker's `train env` form joins
// through group_from_environment and checks the launcher's local rank).
const std::vector<std::string> kTrainFromEnvironment = {testing::kDistributedWorkerPath, "train",
                                                        "env", "30000"};

// What srun sets for each task of a two-task step on this machine, rank 0 at the job's port.
TEST_F(DistributedTest, SlurmPlacedRanksTrainAsOneProcess) {
  const int port = testing::FreePortIn(10000, 29999);  // Slurm's: 10000 + job id % 20000
  ASSERT_GT(port, 0);
  std::vector<Process> ranks;
  for (int rank = 0; rank < 2; ++rank) {
    ranks.push_back({kTrainFromEnvironment,
                     {absl::StrCat("SLURM_PROCID=", rank), "SLURM_NTASKS=2",
                      absl::StrCat("SLURM_LOCALID=", rank), "SLURM_STEP_NODELIST=localhost",
                      absl::StrCat("SLURM_JOB_ID=", 20000 * 7 + port - 10000)}});
  }
  EXPECT_THAT(RunProcesses(std::move(ranks)), Each(Eq(0)));
}

// torchrun --standalone starting two ranks; torch 2.x's serves the store itself (its agent
// store), 1.13's leaves it to rank 0. `-r 1 -t 1` (redirect and tee stdout): torchrun 1.13's
// default of 0 fails to parse under Python 3.11.
TEST_F(DistributedTest, TorchrunLaunchedRanksTrainAsOneProcess) {
  const std::string python = testing::PythonWithModule("torch.distributed.run");
  if (python.empty()) {
    const std::string why =
        "no python3 with torch.distributed.run (Debian's python3-torch, or KSCOPE_PYTHON)";
    KSCOPE_SKIP_UNLESS_REQUIRED("KSCOPE_REQUIRE_TORCHRUN", why);
  }
  std::vector<std::string> command = {python,
                                      "-m",
                                      "torch.distributed.run",
                                      "--standalone",
                                      "--nproc_per_node=2",
                                      "--monitor_interval=1",
                                      "-r",
                                      "1",
                                      "-t",
                                      "1",
                                      "--no_python"};
  command.insert(command.end(), kTrainFromEnvironment.begin(), kTrainFromEnvironment.end());
  EXPECT_THAT(RunProcesses({{command, {}}}), Each(Eq(0)));
}

// The same over nccl, rank r's model on cuda:r: needs two GPUs (the GPU suite, docs/building.md,
// GPU).
TEST_F(DistributedTest, TwoNcclRanksOneGpuEachTrainAsOneProcess) {
#ifndef KSCOPE_WITH_CUDA
  GTEST_SKIP() << "built without KSCOPE_ENABLE_CUDA: no nccl backend";
#endif
  if (cuda_device_count() < 2)
    GTEST_SKIP() << "needs 2 CUDA devices, " << cuda_device_count() << " available";
  EXPECT_THAT(RunRanks("train_nccl", 2, 2, TcpRendezvous(), kTimeout), Each(Eq(0)));
}

// Two ranks whose models or data differ: distribute and run fail alike on both, naming the rank.
TEST_F(DistributedTest, RanksThatDisagreeFailAlike) {
  EXPECT_THAT(RunRanks("mismatch", 2, 2, TcpRendezvous(), kTimeout), Each(Eq(0)));
}

// The last of three ranks dies mid-training: the others' run fails naming run and the dead rank
// (they exit 0 having checked the error); the dead rank shows as killed (-1).
TEST_F(DistributedTest, RankKilledMidRunFailsItsPeers) {
  EXPECT_THAT(RunRanks("killed", 3, 3, TcpRendezvous(), kTimeout),
              ::testing::ElementsAre(0, 0, -1));
}

// Rank 0 dies mid-training, taking the group's store with it: the others name it as gone.
TEST_F(DistributedTest, RankZeroKilledMidRunIsNamedAsGone) {
  EXPECT_THAT(RunRanks("killed_first", 3, 3, TcpRendezvous(), kTimeout),
              ::testing::ElementsAre(-1, 0, 0));
}

// The last of three ranks dies after joining, just before distribute's broadcast of rank 0's
// state, or before testrun's group metrics: the others' call fails naming it, their rank and
// the dead one.
TEST_F(DistributedTest, RankKilledBeforeBroadcastOrTestrunFailsItsPeers) {
  EXPECT_THAT(RunRanks("killed_distribute", 3, 3, TcpRendezvous(), kTimeout),
              ::testing::ElementsAre(0, 0, -1));
  EXPECT_THAT(RunRanks("killed_testrun", 3, 3, TcpRendezvous(), kTimeout),
              ::testing::ElementsAre(0, 0, -1));
}

// A rank's own error mid-epoch (a class out of range in its data) reaches its peers at the
// step's averaging: every rank fails at once, well inside a 10-minute timeout (a peer waiting it
// out would be stopped by RunRanks' 120 s limit), and the ranks train on in step.
TEST_F(DistributedTest, RankErrorFailsEveryRankAtOnce) {
  EXPECT_THAT(RunRanks("rank_error", 2, 2, TcpRendezvous(), std::chrono::minutes(10)), Each(Eq(0)));
  EXPECT_THAT(RunRanks("rank_error", 3, 3, TcpRendezvous(), std::chrono::minutes(10)), Each(Eq(0)));
}

GroupOptions OneRank() {
  GroupOptions o;
  o.rendezvous = TcpRendezvous();
  o.timeout = kTimeout;
  return o;
}

TEST_F(DistributedTest, GroupIsAHandleLikeAnyOther) {
  const Scope scope = Scope::Open();
  const GroupOptions o = OneRank();
  const Handle g = group(o);
  EXPECT_EQ(class_(g), ObjectClass::kGroup);
  EXPECT_EQ(ClassName(class_(g)), "group");
  EXPECT_EQ(objtype(g), "group");
  EXPECT_EQ(str(g), "gloo process group: rank 0 of 1 at " + o.rendezvous);
  EXPECT_EQ(group_rank(g), 0);
  EXPECT_EQ(group_world(), 1);
  EXPECT_EQ(ref(g).single(), 1);
  EXPECT_EQ(tensorcount(g), 0);
  EXPECT_EQ(bytes(g), 0);
  const Handle shared = addref(g);
  EXPECT_EQ(ref(g).single(), 2);
  EXPECT_EQ(ptr(g).single(), ptr(shared).single());
  bool listed = false;
  for (const ObjectRow& row : obj())
    listed |= row.ptr == g && row.object_class == ObjectClass::kGroup;
  EXPECT_TRUE(listed);
  EXPECT_EQ(ErrorOf([&] { to(g, Options::Parse("to", {"cpu"})); }),
            "to: not implemented for groups");
  EXPECT_EQ(ErrorOf([&] { dtype(g); }), "dtype: not implemented for groups");
  kscope::free(shared);
  EXPECT_EQ(ref(g).single(), 1);
}

TEST_F(DistributedTest, OneRankCollectivesKeepValues) {
  const Scope scope = Scope::Open();
  const Handle g = group(OneRank());
  const Handle v = vector({at::tensor({1.5, 2.5}), at::tensor({3.0})});
  allreduce(v, Reduction::kMean, g);
  EXPECT_TRUE(at::equal(vector(v, 0), at::tensor({1.5, 2.5})));
  EXPECT_TRUE(at::equal(vector(v, 1), at::tensor({3.0})));
  broadcast(v, 0);
  EXPECT_TRUE(at::equal(vector(v, 1), at::tensor({3.0})));
  const Handle all = allgather(tensor(at::tensor({7.0})));
  EXPECT_EQ(vector(all).size(), 1u);
  EXPECT_TRUE(at::equal(vector(all, 0), at::tensor({7.0})));
  const Value out = allreduce(Value(at::tensor({4.0})), Reduction::kMax);
  EXPECT_TRUE(at::equal(std::get<at::Tensor>(out), at::tensor({4.0})));
  barrier(g);
}

TEST_F(DistributedTest, BadArgumentsNameTheFunctionAndChangeNothing) {
  GroupOptions o = OneRank();
  o.rank = 1;
  EXPECT_EQ(ErrorOf([&] { group(o); }),
            "group: rank must be 0..world-1 for a world of at least 1, given rank 1 of 1");
  o = OneRank();
  o.backend = "mpi";
  EXPECT_EQ(ErrorOf([&] { group(o); }),
            "group: unrecognized backend `mpi, expected `gloo or `nccl");
  o = OneRank();
  o.rendezvous = "tcp://127.0.0.1";
  EXPECT_EQ(ErrorOf([&] { group(o); }),
            "group: rendezvous must be tcp://host:port or a file path, given \"tcp://127.0.0.1\"");
  o = OneRank();
  o.backend = "nccl";
#ifndef KSCOPE_WITH_CUDA
  EXPECT_EQ(ErrorOf([&] { group(o); }),
            "group: backend `nccl needs a libtorch built with CUDA and NCCL");
#else
  if (cuda_device_count() == 0) {
    EXPECT_EQ(ErrorOf([&] { group(o); }),
              "group: backend `nccl needs a CUDA device, none available");
  }
#endif
  EXPECT_EQ(ErrorOf([] { ReductionFromName("allreduce", "prod"); }),
            "allreduce: unrecognized reduction `prod, expected `sum, `mean, `max or `min");

  const Scope scope = Scope::Open();
  const Handle t = tensor(at::tensor({1, 2}));
  EXPECT_EQ(ErrorOf([&] { allreduce(t); }), "allreduce: no process group, make one with group");
  const Handle g = group(OneRank());
  EXPECT_EQ(ErrorOf([&] { allreduce(t, Reduction::kSum, t); }),
            "allreduce: expected group, given tensor");
  EXPECT_EQ(ErrorOf([&] { allreduce(g); }),
            "allreduce: expected tensor, vector or dictionary, given group");
  EXPECT_EQ(ErrorOf([&] { allreduce(t, Reduction::kMean); }),
            "allreduce: mean needs floating-point tensors, given int");
  EXPECT_EQ(ErrorOf([&] { broadcast(t, 1); }), "broadcast: root must be a rank 0..0, given 1");
  EXPECT_EQ(ErrorOf([&] { allgather(g); }), "allgather: expected tensor, given group");
  EXPECT_TRUE(at::equal(tensor(t), at::tensor({1, 2})));
  kscope::free(g);
  EXPECT_EQ(ErrorOf([&] { barrier(); }), "barrier: no process group, make one with group");
  EXPECT_EQ(ErrorOf([&] { barrier(g); }), "stale pointer");
}

// An nccl group reduces CUDA tensors only: the numbers a model's epoch sends from the host
// (counts, fingerprints, metric totals) travel on the model's own CUDA device; gloo keeps them on
// the host. (The nccl runs themselves are in the GPU suite: docs/building.md, GPU.)
TEST_F(DistributedTest, HostNumbersTravelOnTheModelsDeviceUnderNccl) {
  using distributed::CollectiveDevice;
  const c10::Device cpu(c10::kCPU), cuda1(c10::kCUDA, 1);
  EXPECT_EQ(CollectiveDevice("run", "gloo", cpu), cpu);
  EXPECT_EQ(CollectiveDevice("run", "gloo", cuda1), cpu);
  EXPECT_EQ(CollectiveDevice("run", "nccl", cuda1), cuda1);
  EXPECT_EQ(ErrorOf([&] { CollectiveDevice("distribute", "nccl", cpu); }),
            "distribute: an nccl group needs the model on a CUDA device, given cpu");
}

// The overlapped averaging's arithmetic on one rank (api/distributed/gradient_reducer.h): within
// a step each gradient is scaled by the step's rows as it arrives and, after the sum, divided by
// the rows of all ranks into .grad; a second backward in the step adds to the first; a parameter
// backward did not reach gets zeros; a backward outside a step leaves the buckets alone.
TEST_F(DistributedTest, ReducerAveragesWhatBackwardGaveWithinAStep) {
  const std::shared_ptr<const distributed::GroupObject> g =
      distributed::GroupObject::Join("test", OneRank());
  const at::Tensor a = at::tensor({1.0f, 2.0f}).requires_grad_();
  const at::Tensor b = at::tensor({3.0f}).requires_grad_();
  distributed::GradientReducer reducer(g, {a, b}, 4, 4);  // a bucket each
  ASSERT_EQ(reducer.bucket_count(), 2u);

  reducer.Prepare("test", 3);
  (a * 2).sum().backward();
  const at::Tensor loss = (a * a).sum();
  loss.backward();
  a.mutable_grad().fill_(100);  // Finish writes .grad from the buckets, not from autograd's sum
  EXPECT_FLOAT_EQ(reducer.Finish("test", loss, nullptr).item<float>(), 5);
  EXPECT_TRUE(at::equal(a.grad(), at::tensor({4.0f, 6.0f})));  // 2 + 2a
  EXPECT_TRUE(at::equal(b.grad(), at::zeros({1})));

  (a * 7).sum().backward();  // outside a step
  reducer.Prepare("test", 2);
  (a * 3).sum().backward();
  a.mutable_grad().zero_();
  reducer.Finish("test", (a * 3).sum(), nullptr);
  EXPECT_TRUE(at::equal(a.grad(), at::tensor({3.0f, 3.0f})));
}

TEST_F(DistributedTest, ModelBoundToAGroupOfOne) {
  const Scope scope = Scope::Open();
  at::manual_seed(3);
  const Handle q = testing::Sequential(2, 8, 2);
  const Handle m = model({q, loss("ce"), opt("sgd", q, {0.1})});
  train(m, {{"batchsize", std::int64_t{5}},
            {"metrics", std::vector<std::string>{"loss", "grouploss", "accuracy", "groupaccuracy",
                                                 "matches", "groupmatches"}}});
  const at::Tensor x = at::randn({12, 2});
  model_data(m, nn::DataMode::kTrain, x, (x.select(1, 0) > 0).to(at::kLong));

  EXPECT_EQ(ErrorOf([&] { distribute(m); }), "distribute: no process group, make one with group");
  const Handle g = group(OneRank());
  EXPECT_EQ(ErrorOf([&] { distribute(g, g); }), "distribute: expected model, given group");
  EXPECT_EQ(ErrorOf([&] { distribute(m, m); }), "distribute: expected group, given model");
  DistributeOptions options;
  options.first_bucket_bytes = -1;
  EXPECT_EQ(ErrorOf([&] { distribute(m, g, options); }),
            "distribute: bucket sizes must be positive, given -1 bytes for the first and 26214400 "
            "for the others");
  EXPECT_FALSE(is_distributed(m));
  EXPECT_FALSE(distribution(m).has_value());
  options = DistributeOptions();
  options.overlap = false;
  distribute(m, g, options);
  EXPECT_EQ(distribution(m)->buckets, 0u);  // averaged after backward
  distribute(m);
  EXPECT_TRUE(is_distributed(m));
  const std::optional<Distribution> d = distribution(m);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->group.world, 1);
  EXPECT_EQ(d->group.rendezvous, group_options(g).rendezvous);
  EXPECT_TRUE(d->options.overlap);
  EXPECT_EQ(d->options.bucket_bytes, 25 << 20);
  EXPECT_EQ(d->buckets, 1u);  // 136 bytes of parameters in the first bucket
  // DDP's rule: a bucket closes once it holds its size (last parameter first: the 8-byte bias,
  // the 64-byte weight, then the 32-byte bias with the 64-byte weight).
  distribute(m, g, {true, 64, 8});
  EXPECT_EQ(distribution(m)->buckets, 3u);
  distribute(m);
  EXPECT_EQ(ErrorOf([&] { distribution(g); }), "distribution: expected model, given group");
  EXPECT_EQ(ref(g).single(), 2);  // the model holds the group
  kscope::free(g);                // and keeps it after its handle goes

  // In a world of one the group metrics are the task's.
  const RunMetrics r = run(m);
  ASSERT_EQ(r.values.size(), 6u);
  EXPECT_DOUBLE_EQ(r.values[1].second.item<double>(), r.values[0].second.item<double>());
  EXPECT_DOUBLE_EQ(r.values[3].second.item<double>(), r.values[2].second.item<double>());
  EXPECT_TRUE(at::equal(r.values[5].second, r.values[4].second));
  EXPECT_EQ(r.values[5].second[1].item<std::int64_t>(), 12);
  EXPECT_GT(model_backstep(m).item<double>(), 0);

  undistribute(m);
  EXPECT_FALSE(is_distributed(m));
  EXPECT_FALSE(distribution(m).has_value());
  EXPECT_EQ(ErrorOf([&] { undistribute(tensor(at::ones(1))); }),
            "undistribute: expected model, given tensor");
}

// A parameter frozen when the model was bound and unfrozen afterwards has no hook of the
// overlapped averaging (api/distributed/gradient_reducer.h): its steps then average after
// backward, and it trains.
TEST_F(DistributedTest, AParameterUnfrozenAfterBindingTrains) {
  const Scope scope = Scope::Open();
  at::manual_seed(3);
  const Handle q = testing::Sequential(2, 8, 2);
  const Handle m = model({q, loss("ce"), opt("sgd", q, {0.1})});
  train(m, {{"batchsize", std::int64_t{5}}});
  const at::Tensor x = at::randn({12, 2});
  model_data(m, nn::DataMode::kTrain, x, (x.select(1, 0) > 0).to(at::kLong));
  const Handle module = model_module(m);
  freeze(module, {"0.weight"});
  distribute(m, group(OneRank()));
  unfreeze(module, {"0.weight"});
  const at::Tensor before = tensor(parm(module, "0.weight")).clone();
  run(m);
  EXPECT_FALSE(at::equal(tensor(parm(module, "0.weight")), before));
}

}  // namespace distributed_test
}  // namespace kscope
