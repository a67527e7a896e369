// What the scenarios of tests/distributed_worker share: the command line's setup and the checks
// that end a rank with the reason on failure. A worker rank runs one scenario and exits 0 when
// every check passed (see distributed_worker.cc).
#ifndef KSCOPE_TESTS_DISTRIBUTED_WORKER_H_
#define KSCOPE_TESTS_DISTRIBUTED_WORKER_H_

#include <sstream>
#include <stdexcept>
#include <string>

#include <ATen/ATen.h>

#include "kscope/kscope.h"

namespace kscope::worker {

struct Setup {
  std::string scenario;
  GroupOptions group;
  std::string device = "cpu";     // where the rank's model lives (train_nccl: cuda:<rank>)
  bool from_environment = false;  // rank, world and rendezvous from the launcher's variables
};

// The scenario's group: group(s.group), or group_from_environment when the launcher placed it.
inline Handle JoinGroup(const Setup& s) {
  return s.from_environment ? group_from_environment(s.group.backend, s.group.timeout)
                            : group(s.group);
}

inline void Check(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("check failed: " + what);
}

inline void CheckEqual(const at::Tensor& got, const at::Tensor& want, const std::string& what) {
  if (got.scalar_type() == want.scalar_type() && got.sizes() == want.sizes() &&
      at::equal(got, want))
    return;
  std::ostringstream text;
  text << what << ": got\n" << got << "\nwant\n" << want;
  Check(false, text.str());
}

// How a surviving rank's error ends when rank `dead` (by default the group's last) died: the
// roll call's verdict (api/distributed/roll_call.h); rank 0 of a tcp rendezvous took the group's
// store with it.
inline std::string DeadRankNamed(const Setup& s, int dead = -1) {
  if (dead == 0)
    return "; rank 0 did not answer (gone): the group's store it served is unreachable";
  return "; rank " + std::to_string(dead < 0 ? s.group.world - 1 : dead) +
         " did not answer (gone or stuck)";
}

// The error f throws, or "no error".
template <typename F>
std::string ErrorOf(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

// The scenarios of distributed_training_scenarios.cc: models bound to the group.
//   train   every rank trains a model (ranks start from different values), checks that
//           binding gave every rank rank 0's values, that after training every rank holds
//           the same parameters and optimizer state, equal (to float tolerance) to one
//           process training on the whole data with the ranks' batches together, and that
//           the group metrics add up the tasks' (run and testrun);
//   train_nccl  train over an nccl group, rank r's model on cuda:r (the GPU suite: one GPU
//           per rank), against the same single process on the CPU;
//   mismatch  two ranks whose modules, optimizer states, batch counts or task options differ:
//           distribute or run fails alike on both, naming the rank that differs, and changes
//           nothing;
//   killed, killed_first  every rank trains; the last rank (killed) or rank 0, the store's
//           server (killed_first), kills itself (SIGKILL) shortly after the first epoch; every
//           other rank's run must fail naming run and the dead rank, with its data restored;
//   killed_distribute, killed_testrun  after every rank has joined, the last rank kills itself
//           just before distribute (rank 0's state broadcast) or testrun (the group metrics'
//           allreduce): every other rank's call fails naming the call, its rank and the dead
//           one;
//   slow    the last rank comes to each of two epochs 3 s late (its peers wait in the first
//           step's averaging, well inside the group's timeout): every rank trains on, ending
//           with the same values;
//   rank_error  the last rank's data holds a class out of range: its run and testrun fail with
//           its own error and every other rank's with the group's, none taking a step, and
//           the next epochs train alike on every rank.
//   resume  the ranks train, rank 0 saving a checkpoint after the first epoch; the job then
//           restarts from it twice — on the same ranks, and as one process per rank with
//           batches as large as the ranks' together — and each ends equal to the
//           uninterrupted job (exactly on the same ranks, to float tolerance alone);
//   overlap  the same model trained twice, its gradients averaged bucket by bucket during
//           backward (three buckets) and after backward: equal values (to float tolerance).
void Train(const Setup& s);
void Mismatch(const Setup& s);
void Killed(const Setup& s, int victim);
// phase: "distribute" or "testrun".
void KilledBeforePhase(const Setup& s, const std::string& phase);
void Slow(const Setup& s);
void RankError(const Setup& s);
void Resume(const Setup& s);
void Overlap(const Setup& s);

}  // namespace kscope::worker

#endif  // KSCOPE_TESTS_DISTRIBUTED_WORKER_H_
