#include "api/distributed/launch_environment.h"

#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/errors.h"

namespace kscope {
namespace distributed {
namespace {

enum class LauncherKind { kTorchrun, kSlurm, kMpi, kKscope };

// A launcher's names for a rank's place in the job.
struct Launcher {
  const char* name;
  LauncherKind kind;
  const char* rank;
  const char* world;
  const char* local_rank;
};

constexpr Launcher kLaunchers[] = {
    {"torchrun", LauncherKind::kTorchrun, "RANK", "WORLD_SIZE", "LOCAL_RANK"},
    {"slurm", LauncherKind::kSlurm, "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
    {"mpi", LauncherKind::kMpi, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
     "OMPI_COMM_WORLD_LOCAL_RANK"},
    {"mpi", LauncherKind::kMpi, "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
    {"kscope", LauncherKind::kKscope, "KSCOPE_RANK", "KSCOPE_WORLD", "KSCOPE_LOCAL_RANK"},
};

// Reads the variables of one environment, each read failing with `fn` and the variable's name.
class Variables {
 public:
  Variables(const char* fn, absl::FunctionRef<const char*(const char*)> getenv)
      : fn_(fn), getenv_(getenv) {}

  const char* fn() const { return fn_; }
  bool Has(const char* name) const { return Get(name) != nullptr; }
  const char* Get(const char* name) const {
    const char* value = getenv_(name);
    return value != nullptr && *value != '\0' ? value : nullptr;
  }
  // The value of `name`, which `needed_with` being set requires.
  std::string Required(const char* name, const char* needed_with) const {
    const char* value = Get(name);
    if (value == nullptr) Fail("%s: %s is set but %s is not", fn_, needed_with, name);
    return value;
  }
  // A whole number at least `least`.
  int Number(const char* name, const char* needed_with, int least) const {
    const std::string text = Required(name, needed_with);
    int n = 0;
    if (!absl::SimpleAtoi(text, &n) || n < least) {
      Fail("%s: %s must be a whole number of at least %d, given \"%s\"", fn_, name, least, text);
    }
    return n;
  }

 private:
  const char* fn_;
  absl::FunctionRef<const char*(const char*)> getenv_;
};

// MASTER_ADDR and MASTER_PORT as a tcp rendezvous, or "" when MASTER_ADDR is unset.
std::string MasterRendezvous(const Variables& v) {
  if (!v.Has("MASTER_ADDR")) return "";
  const int port = v.Number("MASTER_PORT", "MASTER_ADDR", 1);
  return absl::StrCat("tcp://", v.Get("MASTER_ADDR"), ":", port);
}

// torchrun's: its agent serves the store under 2.x (TORCHELASTIC_USE_AGENT_STORE=True).
std::string TorchrunRendezvous(const Variables& v) {
  const std::string master = MasterRendezvous(v);
  if (master.empty()) v.Required("MASTER_ADDR", "RANK");
  const char* agent_store = v.Get("TORCHELASTIC_USE_AGENT_STORE");
  if (agent_store == nullptr || std::string(agent_store) != "True") return master;
  const char* attempt = v.Get("TORCHELASTIC_RESTART_COUNT");
  return absl::StrCat(master, "?server=launcher&prefix=/worker/attempt_",
                      attempt == nullptr ? "0" : attempt);
}

// Slurm's: rank 0's host is the first of the step's nodes, the port one per job.
std::string SlurmRendezvous(const Variables& v) {
  const char* nodelist = v.Get("SLURM_STEP_NODELIST");
  if (nodelist == nullptr) nodelist = v.Get("SLURM_JOB_NODELIST");
  const std::string host = nodelist == nullptr ? "" : FirstSlurmHost(nodelist);
  if (host.empty()) {
    Fail(
        "%s: srun's SLURM_PROCID is set but not where rank 0 is: set MASTER_ADDR and "
        "MASTER_PORT, KSCOPE_RENDEZVOUS, or SLURM_STEP_NODELIST",
        v.fn());
  }
  if (v.Has("MASTER_PORT"))
    return absl::StrCat("tcp://", host, ":", v.Number("MASTER_PORT", "MASTER_PORT", 1));
  const int job = v.Number("SLURM_JOB_ID", "SLURM_PROCID", 0);
  return absl::StrCat("tcp://", host, ":", 10000 + job % 20000);
}

std::string RendezvousOf(const Launcher& l, const Variables& v) {
  if (l.kind == LauncherKind::kTorchrun) return TorchrunRendezvous(v);
  std::string r = MasterRendezvous(v);
  if (r.empty() && v.Has("KSCOPE_RENDEZVOUS")) r = v.Get("KSCOPE_RENDEZVOUS");
  if (!r.empty()) return r;
  switch (l.kind) {
    case LauncherKind::kSlurm: return SlurmRendezvous(v);
    case LauncherKind::kMpi:
      Fail(
          "%s: mpirun's %s is set but not where rank 0 is: set MASTER_ADDR and MASTER_PORT, or "
          "KSCOPE_RENDEZVOUS",
          v.fn(), l.rank);
    default: return v.Required("KSCOPE_RENDEZVOUS", l.rank);
  }
}

}  // namespace

std::string FirstSlurmHost(const std::string& nodelist) {
  std::string host;
  bool in_brackets = false, first_item_done = false;
  for (char c : nodelist) {
    if (in_brackets) {
      if (c == ']') {
        in_brackets = false;
      } else if (c == ',' || c == '-') {
        first_item_done = true;
      } else if (!first_item_done) {
        host += c;
      }
    } else if (c == ',') {
      break;
    } else if (c == '[') {
      in_brackets = true;
      first_item_done = false;
    } else {
      host += c;
    }
  }
  return host;
}

bool Launched(absl::FunctionRef<const char*(const char*)> getenv) {
  const Variables v("", getenv);
  for (const Launcher& l : kLaunchers) {
    if (v.Has(l.rank)) return true;
  }
  return false;
}

LaunchEnvironment ReadLaunchEnvironment(const char* fn,
                                        absl::FunctionRef<const char*(const char*)> getenv) {
  const Variables v(fn, getenv);
  for (const Launcher& l : kLaunchers) {
    if (!v.Has(l.rank)) continue;
    LaunchEnvironment e;
    e.launcher = l.name;
    e.rank = v.Number(l.rank, l.rank, 0);
    e.world = v.Number(l.world, l.rank, 1);
    if (e.rank >= e.world) {
      Fail("%s: %s %d is not a rank of a world of %d (%s)", fn, l.rank, e.rank, e.world, l.world);
    }
    if (v.Has(l.local_rank)) e.local_rank = v.Number(l.local_rank, l.rank, 0);
    e.rendezvous = RendezvousOf(l, v);
    return e;
  }
  Fail(
      "%s: no launcher's environment: set RANK and WORLD_SIZE (torchrun), SLURM_PROCID and "
      "SLURM_NTASKS (srun), OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE or PMI_RANK and "
      "PMI_SIZE (mpirun), or KSCOPE_RANK and KSCOPE_WORLD (examples/launch.sh)",
      fn);
}

}  // namespace distributed

namespace {

const char* Getenv(const char* name) { return std::getenv(name); }

}  // namespace

LaunchEnvironment launch_environment(const char* fn) {
  return distributed::ReadLaunchEnvironment(fn, Getenv);
}

bool launched() { return distributed::Launched(Getenv); }

}  // namespace kscope
