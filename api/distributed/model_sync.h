// Model synchronization — what a model bound to a process group (api/distributed/distribute.h)
// exchanges with the other ranks: its starting values, each training step's gradients, and the
// numbers behind its epoch metrics. Used by distribute() and by api/model/model_run.cc; every
// function here is a collective, so every rank must call the same ones in the same order.
//
// Errors: kscope::Error naming fn: ranks that disagree (a model of another structure, another
// number of batches) — every rank sees the same gathered values and fails alike, none is left
// waiting — and failed collectives ("run: rank 1 of 2 failed: <reason>"). A rank's own error in
// an epoch (its batch's forward, loss or backward failing: a target out of range in its shard,
// memory) travels with the epoch's next collective, which that rank still joins with `failure`
// set: the rank rethrows its own error there, and every other rank fails at the same point with
// "run: rank 1 of 2 failed in this epoch (its own error says why)" instead of waiting out the
// timeout, so the ranks stay in step for the next epoch. On an error nothing given has been
// changed, except AverageGradients' gradients, which the failed step abandons.
// Thread-compatible: one call at a time per model and group.
#ifndef KSCOPE_API_DISTRIBUTED_MODEL_SYNC_H_
#define KSCOPE_API_DISTRIBUTED_MODEL_SYNC_H_

#include <cstdint>
#include <exception>
#include <vector>

#include <ATen/core/Tensor.h>

#include "api/distributed/group_object.h"
#include "api/model/model_object.h"

namespace kscope::distributed {

// Overwrites the model's parameters, buffers and optimizer state (each parameter's buffers and
// counts: api/nn/optimizer_state.h) with rank 0's. The module's structure and the optimizer state's
// (which parameters have state, each buffer's name and size) must be the same on every rank:
// the state of a fresh optimizer, or the same state loaded everywhere.
void BroadcastModel(const char* fn, const GroupObject& g, nn::Model& model);

// Replaces the gradient of every parameter with the mean over the ranks of their gradients,
// each rank weighted by `rows`, the rows of its batch (0 for a rank without a batch in this
// step, whose gradients are ignored; an undefined gradient counts as zeros; at least one rank
// must have rows, as every step of run has on task 0): for a loss that
// averages over rows, the gradient of one step over the union of the ranks' batches. One
// allreduce per bucket (api/distributed/buckets.h) of gradients, loss, rows and the ranks'
// failure flags together. Returns the loss weighted the same way (`loss` is undefined where
// rows is 0), a scalar of the first parameter's type. `failure`: this rank's error in the step
// (null: none; its gradients, loss and rows are then ignored), see the errors above. Reading
// the flags waits for the allreduce: on a GPU, one small copy to the host per step.
at::Tensor AverageGradients(const char* fn, const GroupObject& g,
                            const std::vector<at::Tensor>& parameters, const at::Tensor& loss,
                            std::int64_t rows, const std::exception_ptr& failure);

// BroadcastModel, CheckEpoch and SumOverRanks send their numbers from the host on the model's
// device under an nccl group (GroupObject::HostNumbersDevice).

// Checks that every rank's epoch has `batches` batches in all and that rank r is task r of
// world tasks, so that every rank takes the same number of steps; kscope::Error on every rank
// otherwise ("run: rank 1 has 9 batches in all, rank 0 has 10: give every rank the same data
// and batchsize", "run: rank 1 is task 0 of 2: set train(m;`task`tasks;1 2)").
void CheckEpoch(const char* fn, const GroupObject& g, const nn::Model& model,
                const nn::RunOptions& options, std::int64_t batches);

// The elementwise sum over the ranks of a row of counts and totals (a copy; `values` is not
// changed), doubles on the host. `failure`: this rank's error in the epoch (null: none), see
// the errors above.
at::Tensor SumOverRanks(const char* fn, const GroupObject& g, const nn::Model& model,
                        const at::Tensor& values, const std::exception_ptr& failure);

// Shared with api/distributed/gradient_reducer.h:
// Runs a collective of an epoch: where this rank failed, its own error wins over the
// collective's (a peer that failed alike may have left).
template <typename Collective>
void Joining(const std::exception_ptr& failure, Collective collective) {
  try {
    collective();
  } catch (...) {
    if (failure) std::rethrow_exception(failure);
    throw;
  }
}
// After a collective that carried every rank's failure flag (flags[r] nonzero: rank r failed in
// the epoch): rethrows this rank's own error, or fails naming the first rank that failed.
void RaiseFailures(const char* fn, const GroupObject& g, const at::Tensor& flags,
                   const std::exception_ptr& failure);

// A training step's numbers, which AverageGradients and GradientReducer send after the step's
// gradients, StepNumberCount(g) elements in one tensor: this rank's loss and a weight of 1, both
// scaled by the rank's rows together with its gradients, then one failure flag per rank, set
// after the scaling. Summed over the ranks, the weight is the rows of all ranks: the averaged
// gradients and loss are the sums divided by it.
std::int64_t StepNumberCount(const GroupObject& g);
// Before the scaling: loss (a scalar of the numbers' type), weight 1, no failure.
void WriteStepNumbers(const at::Tensor& numbers, const at::Tensor& loss);
// After the scaling, on a rank whose step failed: its flag.
void FlagStepFailure(const GroupObject& g, const at::Tensor& numbers);
// After the sum: RaiseFailures on the flags, then the rows of all ranks (a scalar view).
at::Tensor SummedRows(const char* fn, const GroupObject& g, const at::Tensor& numbers,
                      const std::exception_ptr& failure);
// Writes summed / rows as parameter's gradient: in place where the gradient exists with
// summed's shape (as DDP writes its buckets back), else as a new tensor.
void WriteAveragedGradient(const at::Tensor& parameter, const at::Tensor& summed,
                           const at::Tensor& rows);

}  // namespace kscope::distributed

#endif  // KSCOPE_API_DISTRIBUTED_MODEL_SYNC_H_
