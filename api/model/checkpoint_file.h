// CheckpointFile — what a checkpoint file holds (api/model/checkpoint.h: the model's side) and
// how it is written and read.
//
// The file is a PyTorch pickle archive (api/core/pickle_file.h; Python's `torch.load` reads it,
// with weights_only=False on PyTorch 2.6 and later: libtorch writes its lists of numbers through
// torch.jit._pickle, which the weights-only loader refuses) of one dictionary: `format` ("kscope
// checkpoint"), `version` (1), `epoch`, `parameters` and `buffers` (lists of (name, tensor)),
// `optimizer` ((kind, each group's options as (name, (type, value)), the parameter rows as (group,
// name, size), each parameter's buffers)), `permutation` (a long vector or None), `shuffle
// generator` ((device, state) or None), `cpu generator` (a state), `cuda generators` (a list of
// states, cuda:0's first) and `loss scale` (fp16 training's scale and good steps,
// api/model/loss_scale.h); files written before the last two were added lack them and read as an
// empty list and the initial scale. Tensors are written as host copies.
//
// WriteCheckpoint writes `path`.tmp and renames it to `path` (api/core/pickle_file.h), so a crash
// while writing leaves an earlier file at `path` whole; kscope::Error "checkpoint: cannot write
// <file>: <reason>".
// ReadCheckpoint: kscope::Error "resume: cannot read <path>: <reason>", "resume: <path> is not a
// kscope checkpoint (<what did not read>)", or one of another version. Thread-safety: any thread;
// one file must not be written by two calls at once.
#ifndef KSCOPE_API_MODEL_CHECKPOINT_FILE_H_
#define KSCOPE_API_MODEL_CHECKPOINT_FILE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

#include "api/model/loss_scale.h"
#include "api/nn/optimizer_state.h"

namespace kscope {

using NamedList = std::vector<std::pair<std::string, at::Tensor>>;

struct CheckpointFile {
  std::int64_t epoch = 0;
  NamedList parameters;
  NamedList buffers;
  OptimizerState optimizer;
  at::Tensor permutation;                 // undefined: the data in the order given
  std::optional<std::string> shuffle_on;  // the shared shuffle generator's device; none: none
  at::Tensor shuffle_state;
  at::Tensor cpu_state;                 // the default CPU generator's
  std::vector<at::Tensor> cuda_states;  // the default CUDA generators', cuda:0's first
  nn::LossScale loss_scale;             // fp16 training's
};

void WriteCheckpoint(const std::string& path, const CheckpointFile& contents);
CheckpointFile ReadCheckpoint(const std::string& path);

}  // namespace kscope

#endif  // KSCOPE_API_MODEL_CHECKPOINT_FILE_H_
