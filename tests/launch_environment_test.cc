// Launchers' environments (api/distributed/launch_environment.h): torchrun's, Slurm's, Open MPI's,
// MPICH's and kscope's variables read into a rank's place, in order of precedence, with errors
// naming what is missing or malformed; the rendezvous options that a launcher-served store
// (torchrun 2.x's agent store) needs; and group_from_environment joining a group of one, with
// rank 0 serving the store and with a store that someone else (the "launcher") serves.
// Multi-process runs started by torchrun and by a Slurm-style environment are in
// distributed_test.cc.
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "absl/strings/str_cat.h"
#include "api/distributed/rendezvous.h"
#include "tests/error_text.h"
#include "tests/free_port.h"
#include "tests/scoped_variables.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace {

using distributed::FirstSlurmHost;
using distributed::ParseRendezvous;
using testing::ErrorOf;
using testing::FreePort;
using testing::ScopedVariables;
using LaunchEnvironmentTest = testing::LeakCheckTest;
using Variables = std::map<std::string, std::string>;

// A getenv that reads `v`.
auto GetterOf(const Variables& v) {
  return [&v](const char* name) -> const char* {
    auto it = v.find(name);
    return it == v.end() ? nullptr : it->second.c_str();
  };
}

LaunchEnvironment Read(const Variables& v) {
  return distributed::ReadLaunchEnvironment("group", GetterOf(v));
}

std::string ReadError(const Variables& v) {
  return ErrorOf([&] { Read(v); });
}

// The fields of a launch environment as one line, for comparisons that show every field.
std::string Line(const LaunchEnvironment& e) {
  return absl::StrCat(e.launcher, " rank ", e.rank, " of ", e.world, " local ", e.local_rank,
                      " at ", e.rendezvous);
}

TEST_F(LaunchEnvironmentTest, TorchrunsVariablesAreTheEnvConvention) {
  const Variables torchrun = {{"RANK", "1"},
                              {"WORLD_SIZE", "2"},
                              {"LOCAL_RANK", "1"},
                              {"MASTER_ADDR", "127.0.0.1"},
                              {"MASTER_PORT", "29500"},
                              {"TORCHELASTIC_USE_AGENT_STORE", "False"}};
  EXPECT_EQ(Line(Read(torchrun)), "torchrun rank 1 of 2 local 1 at tcp://127.0.0.1:29500");
}

TEST_F(LaunchEnvironmentTest, TorchrunsAgentStoreMakesEveryRankAClientUnderTheAttemptsPrefix) {
  Variables v = {{"RANK", "0"},
                 {"WORLD_SIZE", "4"},
                 {"LOCAL_RANK", "0"},
                 {"MASTER_ADDR", "node1"},
                 {"MASTER_PORT", "29400"},
                 {"TORCHELASTIC_USE_AGENT_STORE", "True"},
                 {"TORCHELASTIC_RESTART_COUNT", "2"}};
  const LaunchEnvironment e = Read(v);
  EXPECT_EQ(e.rendezvous, "tcp://node1:29400?server=launcher&prefix=/worker/attempt_2");
  const distributed::Rendezvous r = ParseRendezvous("group", e.rendezvous);
  EXPECT_TRUE(r.tcp);
  EXPECT_EQ(r.host, "node1");
  EXPECT_EQ(r.port, 29400);
  EXPECT_TRUE(r.launcher_serves);
  EXPECT_EQ(r.prefix, "/worker/attempt_2");
  v.erase("TORCHELASTIC_RESTART_COUNT");
  EXPECT_EQ(Read(v).rendezvous, "tcp://node1:29400?server=launcher&prefix=/worker/attempt_0");
}

TEST_F(LaunchEnvironmentTest, SlurmsRankZeroIsOnTheFirstNodeAtAPortOfTheJob) {
  Variables v = {{"SLURM_PROCID", "5"},           {"SLURM_NTASKS", "8"},
                 {"SLURM_LOCALID", "1"},          {"SLURM_STEP_NODELIST", "gpu[07-09,12],cpu1"},
                 {"SLURM_JOB_NODELIST", "other"}, {"SLURM_JOB_ID", "123456"}};
  EXPECT_EQ(Line(Read(v)), "slurm rank 5 of 8 local 1 at tcp://gpu07:13456");  // 10000 + 3456
  v.erase("SLURM_STEP_NODELIST");
  EXPECT_EQ(Read(v).rendezvous, "tcp://other:13456");
  v["MASTER_PORT"] = "4000";
  EXPECT_EQ(Read(v).rendezvous, "tcp://other:4000");
  v["MASTER_ADDR"] = "head";
  EXPECT_EQ(Read(v).rendezvous, "tcp://head:4000");
  v.erase("MASTER_ADDR");
  v.erase("MASTER_PORT");
  v["KSCOPE_RENDEZVOUS"] = "/shared/job/rendezvous";
  EXPECT_EQ(Read(v).rendezvous, "/shared/job/rendezvous");
  EXPECT_EQ(ReadError({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}}),
            "group: srun's SLURM_PROCID is set but not where rank 0 is: set MASTER_ADDR and "
            "MASTER_PORT, KSCOPE_RENDEZVOUS, or SLURM_STEP_NODELIST");
  EXPECT_EQ(ReadError({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"SLURM_JOB_NODELIST", "n1"}}),
            "group: SLURM_PROCID is set but SLURM_JOB_ID is not");
}

TEST_F(LaunchEnvironmentTest, FirstSlurmHostExpandsOnlyTheFirstRange) {
  EXPECT_EQ(FirstSlurmHost("node[07-09,12],gpu3"), "node07");
  EXPECT_EQ(FirstSlurmHost("node[3,5-6]"), "node3");
  EXPECT_EQ(FirstSlurmHost("a,b"), "a");
  EXPECT_EQ(FirstSlurmHost("single"), "single");
  EXPECT_EQ(FirstSlurmHost("rack[1-2]-n[3-4]"), "rack1-n3");
  EXPECT_EQ(FirstSlurmHost(""), "");
}

TEST_F(LaunchEnvironmentTest, MpiRunsNeedToBeToldWhereRankZeroIs) {
  const Variables open_mpi = {{"OMPI_COMM_WORLD_RANK", "1"},
                              {"OMPI_COMM_WORLD_SIZE", "2"},
                              {"OMPI_COMM_WORLD_LOCAL_RANK", "0"},
                              {"MASTER_ADDR", "host0"},
                              {"MASTER_PORT", "2000"}};
  EXPECT_EQ(Line(Read(open_mpi)), "mpi rank 1 of 2 local 0 at tcp://host0:2000");
  const Variables mpich = {{"PMI_RANK", "0"},
                           {"PMI_SIZE", "3"},
                           {"MPI_LOCALRANKID", "0"},
                           {"KSCOPE_RENDEZVOUS", "tcp://host0:2001"}};
  EXPECT_EQ(Line(Read(mpich)), "mpi rank 0 of 3 local 0 at tcp://host0:2001");
  EXPECT_EQ(ReadError({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}}),
            "group: mpirun's OMPI_COMM_WORLD_RANK is set but not where rank 0 is: set MASTER_ADDR "
            "and MASTER_PORT, or KSCOPE_RENDEZVOUS");
}

TEST_F(LaunchEnvironmentTest, KscopesOwnVariablesComeLast) {
  Variables v = {{"KSCOPE_RANK", "0"}, {"KSCOPE_WORLD", "1"}, {"KSCOPE_RENDEZVOUS", "/tmp/r"}};
  EXPECT_EQ(Line(Read(v)), "kscope rank 0 of 1 local -1 at /tmp/r");
  v["KSCOPE_LOCAL_RANK"] = "0";
  EXPECT_EQ(Read(v).local_rank, 0);
  v["PMI_RANK"] = "0";  // any launcher's variables come first
  v["PMI_SIZE"] = "1";
  EXPECT_EQ(Read(v).launcher, "mpi");
  v["SLURM_PROCID"] = "0";
  v["SLURM_NTASKS"] = "1";
  v["SLURM_JOB_NODELIST"] = "n1";
  v["SLURM_JOB_ID"] = "1";
  EXPECT_EQ(Read(v).launcher, "slurm");
  v["RANK"] = "0";
  v["WORLD_SIZE"] = "1";
  v["MASTER_ADDR"] = "m";
  v["MASTER_PORT"] = "1";
  EXPECT_EQ(Read(v).launcher, "torchrun");
  EXPECT_EQ(ReadError({{"KSCOPE_RANK", "0"}, {"KSCOPE_WORLD", "1"}}),
            "group: KSCOPE_RANK is set but KSCOPE_RENDEZVOUS is not");
}

bool Launched(const Variables& v) { return distributed::Launched(GetterOf(v)); }

TEST_F(LaunchEnvironmentTest, LaunchedIsWhetherAnyLaunchersRankIsSet) {
  EXPECT_FALSE(Launched({}));
  EXPECT_FALSE(Launched({{"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"RANK", ""}}));
  for (const char* rank :
       {"RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "KSCOPE_RANK"})
    EXPECT_TRUE(Launched({{rank, "0"}})) << rank;
}

TEST_F(LaunchEnvironmentTest, MissingOrMalformedVariablesAreNamed) {
  EXPECT_EQ(ReadError({}),
            "group: no launcher's environment: set RANK and WORLD_SIZE (torchrun), SLURM_PROCID "
            "and SLURM_NTASKS (srun), OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE or PMI_RANK "
            "and PMI_SIZE (mpirun), or KSCOPE_RANK and KSCOPE_WORLD (examples/launch.sh)");
  EXPECT_EQ(ReadError({{"RANK", ""}}), ReadError({}));  // set but empty counts as unset
  EXPECT_EQ(ReadError({{"RANK", "0"}}), "group: RANK is set but WORLD_SIZE is not");
  EXPECT_EQ(ReadError({{"RANK", "0"}, {"WORLD_SIZE", "2"}}),
            "group: RANK is set but MASTER_ADDR is not");
  EXPECT_EQ(ReadError({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}),
            "group: MASTER_ADDR is set but MASTER_PORT is not");
  EXPECT_EQ(ReadError({{"RANK", "one"}, {"WORLD_SIZE", "2"}}),
            "group: RANK must be a whole number of at least 0, given \"one\"");
  EXPECT_EQ(ReadError({{"RANK", "0"}, {"WORLD_SIZE", "0"}}),
            "group: WORLD_SIZE must be a whole number of at least 1, given \"0\"");
  EXPECT_EQ(ReadError({{"RANK", "2"}, {"WORLD_SIZE", "2"}}),
            "group: RANK 2 is not a rank of a world of 2 (WORLD_SIZE)");
  EXPECT_EQ(ReadError({{"RANK", "0"},
                       {"WORLD_SIZE", "1"},
                       {"LOCAL_RANK", "-1"},
                       {"MASTER_ADDR", "h"},
                       {"MASTER_PORT", "1"}}),
            "group: LOCAL_RANK must be a whole number of at least 0, given \"-1\"");
  EXPECT_EQ(
      ReadError({{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "x"}}),
      "group: MASTER_PORT must be a whole number of at least 1, given \"x\"");
}

TEST_F(LaunchEnvironmentTest, RendezvousOptionsAreCheckedLikeTheRest) {
  EXPECT_FALSE(ParseRendezvous("group", "tcp://h:1").launcher_serves);
  EXPECT_FALSE(ParseRendezvous("group", "tcp://h:1?server=rank0").launcher_serves);
  EXPECT_EQ(ParseRendezvous("group", "tcp://h:1?prefix=/p").prefix, "/p");
  for (const char* bad : {"tcp://h:1?server=me", "tcp://h:1?prefix=", "tcp://h:1?port=2",
                          "tcp://h:1?", "tcp://h?server=launcher"}) {
    EXPECT_EQ(ErrorOf([&] { ParseRendezvous("group", bad); }),
              absl::StrCat("group: rendezvous must be tcp://host:port or a file path, given \"",
                           bad, "\""));
  }
}

TEST_F(LaunchEnvironmentTest, PlacedByLauncherKeepsTheBackendAndTimeout) {
  const ScopedVariables v({{"RANK", ""},
                           {"SLURM_PROCID", "3"},
                           {"SLURM_NTASKS", "4"},
                           {"SLURM_LOCALID", "1"},
                           {"SLURM_STEP_NODELIST", "gpu[07-08]"},
                           {"MASTER_ADDR", ""},
                           {"MASTER_PORT", "29400"}});
  GroupOptions given;
  given.rank = 9;
  given.rendezvous = "/tmp/unused";
  given.backend = "nccl";
  given.timeout = std::chrono::seconds(7);
  const GroupOptions o = placed_by_launcher(given, "train");
  EXPECT_EQ(o.rank, 3);
  EXPECT_EQ(o.world, 4);
  EXPECT_EQ(o.local_rank, 1);
  EXPECT_EQ(o.rendezvous, "tcp://gpu07:29400");
  EXPECT_EQ(o.backend, "nccl");
  EXPECT_EQ(o.timeout, std::chrono::seconds(7));
  const ScopedVariables none(
      {{"SLURM_PROCID", ""}, {"OMPI_COMM_WORLD_RANK", ""}, {"PMI_RANK", ""}, {"KSCOPE_RANK", ""}});
  EXPECT_THAT(ErrorOf([&] { placed_by_launcher(given, "train"); }),
              ::testing::StartsWith("train: no launcher's environment: set RANK"));
}

TEST_F(LaunchEnvironmentTest, GroupFromEnvironmentJoinsWhereTheLauncherSays) {
  const ScopedVariables v({{"RANK", "0"},
                           {"WORLD_SIZE", "1"},
                           {"LOCAL_RANK", "0"},
                           {"MASTER_ADDR", "127.0.0.1"},
                           {"MASTER_PORT", absl::StrCat(FreePort())},
                           {"TORCHELASTIC_USE_AGENT_STORE", "False"}});
  const Handle g = group_from_environment("gloo", std::chrono::seconds(30));
  const GroupOptions o = group_options(g);
  EXPECT_EQ(o.rank, 0);
  EXPECT_EQ(o.world, 1);
  EXPECT_EQ(o.local_rank, 0);
  EXPECT_EQ(o.rendezvous, absl::StrCat("tcp://127.0.0.1:", std::getenv("MASTER_PORT")));
  EXPECT_EQ(o.timeout, std::chrono::seconds(30));
  const Handle t = tensor(at::tensor({1.0, 2.0}));
  allreduce(t);
  EXPECT_TRUE(at::equal(tensor(t), at::tensor({1.0, 2.0})));
  kscope::free(std::vector<Handle>{t, g});
}

// torchrun 2.x's agent serves the store before its ranks start: a rank 0 that served it too would
// find the port taken. Here the test plays the agent.
TEST_F(LaunchEnvironmentTest, GroupFromEnvironmentUsesTheStoreTheLauncherServes) {
  const int port = FreePort();
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(port);
  options.isServer = true;
  options.waitWorkers = false;
  const c10d::TCPStore agent("127.0.0.1", options);
  const ScopedVariables v({{"RANK", "0"},
                           {"WORLD_SIZE", "1"},
                           {"MASTER_ADDR", "127.0.0.1"},
                           {"MASTER_PORT", absl::StrCat(port)},
                           {"TORCHELASTIC_USE_AGENT_STORE", "True"},
                           {"TORCHELASTIC_RESTART_COUNT", "3"}});
  const Handle g = group_from_environment("gloo", std::chrono::seconds(30));
  EXPECT_EQ(group_options(g).rendezvous,
            absl::StrCat("tcp://127.0.0.1:", port, "?server=launcher&prefix=/worker/attempt_3"));
  EXPECT_EQ(group_options(g).local_rank, -1);  // torchrun's LOCAL_RANK not given here
  const Handle t = tensor(at::tensor({3.0}));
  allreduce(t);
  EXPECT_TRUE(at::equal(tensor(t), at::tensor({3.0})));
  kscope::free(g);
  const Handle again = group_from_environment("gloo", std::chrono::seconds(30));  // keys of its own
  allreduce(t, Reduction::kMax);
  EXPECT_TRUE(at::equal(tensor(t), at::tensor({3.0})));
  kscope::free(std::vector<Handle>{t, again});
}

TEST_F(LaunchEnvironmentTest, GroupFromEnvironmentWithoutALauncherNamesTheVariables) {
  const ScopedVariables v({{"RANK", ""},
                           {"SLURM_PROCID", ""},
                           {"OMPI_COMM_WORLD_RANK", ""},
                           {"PMI_RANK", ""},
                           {"KSCOPE_RANK", ""}});
  EXPECT_EQ(ErrorOf([] { group_from_environment(); }),
            "group: no launcher's environment: set RANK and WORLD_SIZE (torchrun), SLURM_PROCID "
            "and SLURM_NTASKS (srun), OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE or PMI_RANK "
            "and PMI_SIZE (mpirun), or KSCOPE_RANK and KSCOPE_WORLD (examples/launch.sh)");
}

}  // namespace
}  // namespace kscope
