// LaunchEnvironment — where this process sits in a data-parallel job, read from the variables
// the launcher that started it set: its rank, the number of ranks, its rank on this machine and
// the rendezvous where the ranks meet (api/distributed/rendezvous.h).
//
// Launchers are tried in this order, the first whose rank variable is set wins:
//   torchrun   RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT (PyTorch's env://). Under
//              torchrun 2.x (TORCHELASTIC_USE_AGENT_STORE=True) the launcher's agent already
//              serves the store at MASTER_ADDR:MASTER_PORT: every rank connects as a client, its
//              keys under /worker/attempt_<TORCHELASTIC_RESTART_COUNT>, as PyTorch's own ranks do.
//   Slurm      SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID; rank 0 is on the first host of
//              SLURM_STEP_NODELIST (or SLURM_JOB_NODELIST) unless MASTER_ADDR says otherwise, at
//              MASTER_PORT or else port 10000 + SLURM_JOB_ID % 20000 (one port per job).
//   MPI        OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK (Open MPI)
//              or PMI_RANK, PMI_SIZE, MPI_LOCALRANKID (MPICH, Intel MPI); mpirun says nothing of
//              where rank 0 is: MASTER_ADDR and MASTER_PORT, or KSCOPE_RENDEZVOUS, must.
//   kscope     KSCOPE_RANK, KSCOPE_WORLD, KSCOPE_RENDEZVOUS, KSCOPE_LOCAL_RANK
//              (examples/launch.sh).
// A rendezvous given in KSCOPE_RENDEZVOUS is used with any launcher when the launcher names none.
// Errors: kscope::Error naming `fn` and the variables looked for when no launcher's are set, the
// variable and its value when one is malformed (not a number, a rank outside 0..world-1), the
// variables missing when a launcher's are set only in part. Thread-safety: reads the process
// environment; safe while no thread changes it.
#ifndef KSCOPE_API_DISTRIBUTED_LAUNCH_ENVIRONMENT_H_
#define KSCOPE_API_DISTRIBUTED_LAUNCH_ENVIRONMENT_H_

#include <string>

#include "absl/functional/function_ref.h"

namespace kscope {

struct LaunchEnvironment {
  std::string launcher;    // "torchrun", "slurm", "mpi" or "kscope"
  int rank = 0;            // 0 .. world-1
  int world = 1;           // number of ranks
  int local_rank = -1;     // rank on this machine (cuda:<local_rank>); -1 when not given
  std::string rendezvous;  // as group() takes it (api/distributed/rendezvous.h)
};

// The launch environment of this process (::getenv).
LaunchEnvironment launch_environment(const char* fn = "group");
// Whether a launcher's rank variable is set: false means launch_environment() would fail for
// want of one (a program may then run as a world of one).
bool launched();

namespace distributed {

// The same from `getenv`, which returns a variable's value or nullptr when it is unset: for tests.
LaunchEnvironment ReadLaunchEnvironment(const char* fn,
                                        absl::FunctionRef<const char*(const char*)> getenv);
bool Launched(absl::FunctionRef<const char*(const char*)> getenv);

// The first host of a Slurm node list: "node[07-09,12],gpu3" gives "node07". Empty for "".
std::string FirstSlurmHost(const std::string& nodelist);

}  // namespace distributed
}  // namespace kscope

#endif  // KSCOPE_API_DISTRIBUTED_LAUNCH_ENVIRONMENT_H_
