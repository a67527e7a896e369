// Checkpoints — a model's training saved to a file between epochs, and resumed from it by a
// model of the same structure, in this process or a restarted one (of a data-parallel job
// too, possibly with another number of ranks).
//
// checkpoint(m, path, epoch) writes, at an epoch's end:
//   - the module's parameters and buffers (by full name, as host copies),
//   - the optimizer's state: each group's options and each parameter's buffers
//     (api/nn/optimizer_state.h),
//   - where training stands: `epoch` (the caller's count, given back by resume), the training
//     data's order (the shuffles composed since the data was given: api/data/shuffle.h), the
//     model's shared shuffle generator (a model bound to a group draws every epoch's shuffle
//     from it: api/distributed/distribute.h), the default CPU generator's state (what a
//     model of one process shuffles with, and what dropout on the CPU draws from) and each
//     CUDA device's default generator's (what dropout on that device draws from), and fp16
//     training's loss scale (api/model/loss_scale.h).
// The data and the training and testing options are not saved: the restarted job gives its
// model the same data (in its original order) and its own options (a job resumed on another
// number of ranks sets its batch size to keep the step's rows).
//
// resume(m, path) makes model m continue from the checkpoint and returns its `epoch`: m's module
// must have the checkpoint's parameters and buffers (names and sizes, in order) and m's
// optimizer its kind, groups and parameters; m's training data, if it has any, is put in the
// checkpoint's order (it must have as many rows); its shuffle generator and the default CPU and
// CUDA generators continue where the checkpoint's were (the CUDA devices this process sees and
// the checkpoint has a state for; any other keeps its own); a checkpoint without a shuffle
// generator, saved before a shared one was made, leaves m without one too (its next epoch makes
// it from `shuffleseed`, as the saving model's would have); no epoch is left under way. Values
// keep m's devices and types. A data-parallel job calls resume on every rank before distribute
// (each rank reads the file; distribute then makes sure every rank holds rank 0's values).
//
// Resumed training follows the uninterrupted run: the same steps on the same batches, to
// float tolerance (exactly on the same number of ranks and threads). Exactness needs the
// randomness to come from the saved generators: a job of one process that shuffles or drops
// out, on the CPU or a GPU, resumes exactly as one process; a job bound to a group resumes
// exactly on any number of ranks when it draws only its shuffles (they come from the shared
// generator, saved with it): every rank resumes the default generators of rank 0's process, so
// a rank whose dropout drew from its own generator goes on with other draws than it would have.
//
// The file (api/model/checkpoint_file.h) is written to `path`.tmp and renamed, so a crash while
// saving leaves the previous checkpoint whole. Errors: kscope::Error naming checkpoint or resume —
// "checkpoint: an epoch is under way (batch 3): save between epochs", "resume: cannot read /x: No
// such file or directory", "resume: /x is not a kscope checkpoint", "resume: the checkpoint has
// parameter `0.weight of size 16 4, the module 8 4", "resume: the checkpoint's data order is of 54
// rows, the model's training data has 0: give the model its data before resume", the optimizer's
// ("opt: state of adam given, the optimizer is sgd"); on an error resume changes nothing.
// Thread-safety: as models (api/model/model.h); the file must not be written by two calls at once.
#ifndef KSCOPE_API_MODEL_CHECKPOINT_H_
#define KSCOPE_API_MODEL_CHECKPOINT_H_

#include <cstdint>
#include <string>

#include "runtime/handle.h"

namespace kscope {

void checkpoint(Handle m, const std::string& path, std::int64_t epoch);
std::int64_t resume(Handle m, const std::string& path);

}  // namespace kscope

#endif  // KSCOPE_API_MODEL_CHECKPOINT_H_
