// Model synchronization — what a model bound to a process group (api/distributed/distribute.h)
// exchanges with the other ranks: its starting values, each training step's gradients, and the
// numbers behind its epoch metrics. Used by distribute() and by api/model_run.cc; every function
// here is a collective, so every rank must call the same ones in the same order.
//
// Errors: kscope::Error naming fn: ranks that disagree (a model of another structure, another
// number of batches) — every rank sees the same gathered values and fails alike, none is left
// waiting — and failed collectives ("run: rank 1 of 2 failed: <reason>"). On an error nothing
// given has been changed, except AverageGradients' gradients, which the failed step abandons.
// Thread-compatible: one call at a time per model and group.
#ifndef KSCOPE_API_DISTRIBUTED_MODEL_SYNC_H_
#define KSCOPE_API_DISTRIBUTED_MODEL_SYNC_H_

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>

#include "api/distributed/group_object.h"
#include "api/nn/model_object.h"

namespace kscope::distributed {

// Overwrites the model's parameters, buffers and optimizer state (each parameter's buffers and
// counts: api/optimizer_state.h) with rank 0's. The module's structure and the optimizer state's
// (which parameters have state, each buffer's name and size) must be the same on every rank:
// the state of a fresh optimizer, or the same state loaded everywhere.
void BroadcastModel(const char* fn, const GroupObject& g, nn::Model& model);

// Replaces the gradient of every parameter with the mean over the ranks of their gradients,
// each rank weighted by `rows`, the rows of its batch (0 for a rank without a batch in this
// step, whose gradients are ignored; an undefined gradient counts as zeros; at least one rank
// must have rows, as every step of run has on task 0): for a loss that
// averages over rows, the gradient of one step over the union of the ranks' batches. One
// allreduce per bucket (api/distributed/buckets.h) of gradients, loss and rows together. Returns
// the loss weighted the same way (`loss` is undefined where rows is 0), a scalar of the first
// parameter's type.
at::Tensor AverageGradients(const char* fn, const GroupObject& g, const std::vector<at::Tensor>& parameters,
                            const at::Tensor& loss, std::int64_t rows);

// Checks that every rank's epoch has `batches` batches in all and that rank r is task r of
// world tasks, so that every rank takes the same number of steps; kscope::Error on every rank
// otherwise ("run: rank 1 has 9 batches in all, rank 0 has 10: give every rank the same data
// and batchsize", "run: rank 1 is task 0 of 2: set train(m;`task`tasks;1 2)").
void CheckEpoch(const char* fn, const GroupObject& g, const nn::RunOptions& options, std::int64_t batches);

// The elementwise sum over the ranks of a tensor of counts and totals (a copy; `values` is not
// changed).
at::Tensor SumOverRanks(const char* fn, const GroupObject& g, const at::Tensor& values);

}  // namespace kscope::distributed

#endif  // KSCOPE_API_DISTRIBUTED_MODEL_SYNC_H_
