// A model's training and testing data and its batching (ktorch's train(m;x;y), data, input,
// target, datasize, batch, restore, batchinit, shuffle, unshuffle and their test forms).
//
// Data: an input and an optional target, each one tensor (a handle's tensor is shared, so
// batches and shuffles show through that handle too; data is taken as given). Input and target
// must match along the first dimension ("tensor size mismatch, 100 vs 10", ktorch's text); a
// target given alone must match the stored input and vice versa. Giving data ends any epoch
// under way and forgets earlier shuffles. Setters return the number of batches, from the
// mode's batchsize and droplast (and, with several tasks, this task's share).
//
// Batching (api/batch_window.h, no copies): model_batch starts an epoch when none is under
// way — full size restored, the training data reshuffled if the `shuffle option is set —
// then windows the data at the next batch of this task (task t of n takes batches t, t+n, ..)
// and returns true; after the last batch it restores full size, ends the epoch and returns
// false. model_batchinit does the epoch start by hand; model_restore ends an epoch early.
// Shuffles are composed so that model_unshuffle puts the rows back in the order given; with
// several tasks every task draws from one generator seeded by `shuffleseed`.
//
// Errors: kscope::Error naming the function ("batch: expected model, given tensor", "stale
// pointer", the batch window errors); on error nothing changes. Thread-safety: a model and
// its data must not be used from two threads at once.
#ifndef KSCOPE_API_MODEL_DATA_H_
#define KSCOPE_API_MODEL_DATA_H_

#include <cstdint>

#include <ATen/core/Tensor.h>

#include "api/nn/model_options.h"
#include "api/operand.h"
#include "runtime/handle.h"

namespace kscope {

// train(m;x;y) / data(m;x;y) (kTrain), test(m;x;y) / testdata(m;x;y) (kTest): number of batches.
std::int64_t model_data(Handle m, nn::DataMode mode, const Operand& input, const Operand& target);
// train(m;x) / data(m;x) / test(m;x) / testdata(m;x): an input and no target.
std::int64_t model_data(Handle m, nn::DataMode mode, const Operand& input);
// input(m;x) / testinput(m;x): replaces the input only.
std::int64_t model_input(Handle m, nn::DataMode mode, const Operand& input);
// target(m;y) / testtarget(m;y): replaces the target only.
std::int64_t model_target(Handle m, nn::DataMode mode, const Operand& target);

// The stored tensors (showing the current batch); undefined when not given.
at::Tensor model_input(Handle m, nn::DataMode mode);
at::Tensor model_target(Handle m, nn::DataMode mode);

// datasize m / testsize m: rows of the input as it stands (the current batch's), 0 if none.
std::int64_t model_datasize(Handle m, nn::DataMode mode);

// batch m / testbatch m: the next batch (see above).
bool model_batch(Handle m, nn::DataMode mode);
// batchinit m / testinit m: starts an epoch; returns the number of batches (-1 without data).
std::int64_t model_batchinit(Handle m, nn::DataMode mode);
// restore m / testrestore m: full size, no epoch under way; returns the full number of rows.
std::int64_t model_restore(Handle m, nn::DataMode mode);
// shuffle m: reshuffles the training data (full size restored, epoch ended).
void model_shuffle(Handle m);
// unshuffle m: puts the training data back in the order given.
void model_unshuffle(Handle m);

}  // namespace kscope

#endif  // KSCOPE_API_MODEL_DATA_H_
