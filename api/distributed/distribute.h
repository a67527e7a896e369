// Data-parallel training: a model bound to a process group (api/distributed/group.h), one rank
// per task in ktorch's sense of `task` and `tasks`.
//
// distribute(m, g) binds model m to group g (a null Handle: the default group). It is a
// collective: every rank calls it, with a model of the same structure. It overwrites every
// rank's parameters, buffers and optimizer state with rank 0's (so every rank starts alike) and
// sets the model's train and test options `task` and `tasks` to the rank and the world. Then:
//   - run m takes this rank's batches of each epoch (t, t+n, t+2n, … of one shuffle shared
//     through `shuffleseed`, as ktorch's tasks) and in every step averages the gradients over the
//     ranks before clipping and the optimizer's step (weighted by each rank's rows; bucket by
//     bucket while backward runs, as DDP's reducer: DistributeOptions below), so every rank
//     takes the same steps and keeps identical parameters. For a loss that averages over
//     rows (the default), a step equals one single-process step on the union of the ranks'
//     batches. A rank whose share of an epoch is a batch shorter takes its last step without one.
//   - backstep(m[;x;y]) averages the same way (every rank must call it); backward and step stay
//     local to the rank.
//   - Metrics: loss, batchloss, accuracy, matches, predict, output, hidden, hiddencell stay per
//     task (ktorch's meaning: `loss` divides this task's batch losses by the batches of all
//     tasks, so the tasks' losses add up to the epoch's); grouploss, groupaccuracy and
//     groupmatches are over every task (one allreduce at the end of the epoch). testrun takes
//     this rank's share of the test batches and reduces the group metrics the same way.
//   - run and testrun first check, with one allgather, that every rank has the same number of
//     batches and is the task of its rank.
// undistribute(m) unbinds the model (training is local again; the options stay as they are).
//
// Ownership: the model holds the group's connections while bound, whatever becomes of the
// group's handles. Failure: a rank that dies or stops calling makes the others' run fail within
// the group's timeout with kscope::Error ("run: rank 0 of 3 failed: <reason>"). A rank whose
// own step fails (forward, loss or backward on its batch: a class out of range in its data)
// still joins that step's averaging (testrun: the group metrics' allreduce) and rethrows its
// error there, and every other rank fails at once with "run: rank 2 of 3 failed in this epoch
// (its own error says why)": no rank waits out the timeout, and the ranks stay in step for the
// next epoch. As after any failed run, the model's data is restored and no epoch is left under
// way. Errors: kscope::Error
// naming `distribute` for no model, no group, bucket sizes not positive, or ranks whose modules
// or optimizer states differ in structure (every rank fails alike); the option errors of
// api/model/model_options.h naming train or test ("train: 2 tasks require a non-zero batchsize").
// On an error the model is unchanged. Thread-safety: as for models (api/model/model.h).
#ifndef KSCOPE_API_DISTRIBUTED_DISTRIBUTE_H_
#define KSCOPE_API_DISTRIBUTED_DISTRIBUTE_H_

#include <cstddef>
#include <cstdint>
#include <optional>

#include "api/distributed/group.h"
#include "runtime/handle.h"

namespace kscope {

// How a bound model's steps average gradients: with `overlap`, bucket by bucket while backward
// runs (api/distributed/gradient_reducer.h: buckets of about `bucket_bytes`, the first of
// `first_bucket_bytes`, as PyTorch DDP's), where the optimizer's parameters share one device and
// type and are still those bound (not replaced, moved, frozen or unfrozen since); otherwise, or
// without `overlap`, in one bucketed allreduce after backward. Both give the same steps (to
// float tolerance).
struct DistributeOptions {
  bool overlap = true;
  std::int64_t first_bucket_bytes = std::int64_t{1} << 20;
  std::int64_t bucket_bytes = std::int64_t{25} << 20;
};

void distribute(Handle m, Handle g = Handle(), const DistributeOptions& options = {});
void undistribute(Handle m);

// Whether model m is bound to a group.
bool is_distributed(Handle m);

// How a bound model averages: what its group was made from, the options it was bound with, and
// the buckets reduced while backward runs (0: its steps average after backward, for `overlap`
// off or parameters that mix devices or types).
struct Distribution {
  GroupOptions group;
  DistributeOptions options;
  std::size_t buckets = 0;
};
// Model m's distribution; std::nullopt when m is not bound. kscope::Error naming `fn` when m is
// not a model.
std::optional<Distribution> distribution(Handle m, const char* fn = "distribution");

}  // namespace kscope

#endif  // KSCOPE_API_DISTRIBUTED_DISTRIBUTE_H_
