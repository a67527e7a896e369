// kscope — scope-based RAII handles over libtorch, with ktorch's API.
//
// The one header C++ callers include. Everything lives in namespace kscope:
//   - Scope, with_scope, GradPolicy (scope/scope.h): the guards that own handles;
//   - Handle (runtime/handle.h): the name of a live object;
//   - the pointer API (api/core/pointer.h): obj/objects, free, return_, use, mapped, ptr, class_,
//     device, dtype, size, elements, bytes, tensorcount, ref, addref, str, and FormatObjects
//     (api/core/obj_table.h) to print obj rows, and LeakCheck (api/core/leak_check.h): what
//     was created since a checkpoint and is still alive (kscope::testing runs it per test);
//   - tensors (api/tensor/tensor.h, api/tensor/tensor_creation.h, api/tensor/info.h), vectors and
//   dictionaries
//     (api/tensor/container.h), math (api/math/math.h; every function of ktorch's math catalogue by
//     name: api/math/math_catalogue.h, kscope::math::Run), reshaping (api/tensor/shape.h), autograd
//     (api/tensor/autograd.h), moving and converting (api/core/move.h: to, copyto), editing storage
//     in place (api/tensor/storage_edit.h: amend, reset, resize, filldiagonal), complex parts and
//     sparse tensors (api/tensor/complex_parts.h, api/tensor/sparse.h), random fills
//     (api/tensor/random_fill.h) and images (api/tensor/image.h: png, makegrid);
//   - initializing tensors and parameters in place (api/nn/init.h: kscope::init::zeros ... gain);
//   - functional forms of layers (api/nn/functional.h: relu, softmax, maxpool2d, linear, pdist,
//   ...);
//   - modules (api/nn/module.h) and optimizers (api/nn/optimizer.h: opt, step, lr, describe_opt;
//     api/nn/optimizer_state.h: opt_state, opt_load; api/nn/clip.h: clip, clipv, clip_by_options);
//   - models (api/model/model.h: model, model_module/model_loss/model_opt, describe_model,
//     model_state, train/test options; api/model/model_data.h: model data and batching;
//     api/model/model_run.h: forward, loss, backward, step, backstep, run and testrun on models;
//     api/model/batchnorm.h: batchnorm statistics recomputed over a model's training data;
//     api/model/checkpoint.h: checkpoint and resume, a model's training saved to a file);
//   - module buffers, submodules, freezing and parameter copies (api/nn/module_parameters.h), and
//     module state, recreation and clone (api/nn/module_state.h); PyTorch state dicts in and
//     out (api/nn/state_dict.h: save_state_dict, load_state_dict), TorchScript modules
//     (api/nn/torchscript.h: torchscript, save_torchscript) and torch.export packages (the `pt2`
//     module kind, libtorch 2.x);
//   - batching and shuffling tensors, vectors and dictionaries in place without copies
//     (api/data/batch.h: batch, batch_at, restore, shuffle), and the tensor-level machinery a model
//     reuses (api/data/batch_window.h, api/data/shuffle.h);
//   - process groups and their collectives across processes (api/distributed/group.h: group,
//     group_from_environment, placed_by_launcher; api/distributed/launch_environment.h: what
//     torchrun, srun, mpirun or examples/launch.sh told this rank; api/distributed/collectives.h:
//     allreduce, broadcast, allgather, barrier) and models trained over them
//     (api/distributed/distribute.h: distribute, undistribute);
//   - the environment (api/env/environment.h): seeds per device, CUDA devices (cuda_device_count,
//     set_cuda_device), sync, libtorch's version and build features; keep_freed_memory
//     (api/env/freed_memory.h): the C heap keeps what training frees for the next step;
//   - SetStrict/Strict, OpenScope/CloseScope (scope/scope_stack.h) for non-RAII front ends.
//
// Names follow ktorch's. Where C++ reserves a word or the name reads as the standard
// namespace, the C++ name has a trailing underscore: return_ (ktorch `return`), class_
// (`class`), std_ (`std`). kscope::free is spelled with its namespace so it is never taken for
// the C library's free().
//
// Call kscope functions qualified (kscope::add(x, y)) when passing at::Tensor data: argument-
// dependent lookup would otherwise find libtorch's at::add for at::Tensor arguments.
//
// This header does not include <torch/torch.h>: only <ATen/core/Tensor.h> and c10 headers.
#ifndef KSCOPE_KSCOPE_H_
#define KSCOPE_KSCOPE_H_

#include "api/core/leak_check.h"
#include "api/core/move.h"
#include "api/core/obj_table.h"
#include "api/core/operand.h"
#include "api/core/pointer.h"
#include "api/data/batch.h"
#include "api/data/batch_window.h"
#include "api/data/shuffle.h"
#include "api/distributed/collectives.h"
#include "api/distributed/distribute.h"
#include "api/distributed/group.h"
#include "api/distributed/launch_environment.h"
#include "api/env/environment.h"
#include "api/env/freed_memory.h"
#include "api/env/memory.h"
#include "api/math/math.h"
#include "api/math/math_catalogue.h"
#include "api/model/batchnorm.h"
#include "api/model/checkpoint.h"
#include "api/model/model.h"
#include "api/model/model_data.h"
#include "api/model/model_run.h"
#include "api/nn/clip.h"
#include "api/nn/functional.h"
#include "api/nn/init.h"
#include "api/nn/loss.h"
#include "api/nn/module.h"
#include "api/nn/module_parameters.h"
#include "api/nn/module_state.h"
#include "api/nn/optimizer.h"
#include "api/nn/optimizer_state.h"
#include "api/nn/state_dict.h"
#include "api/nn/torchscript.h"
#include "api/tensor/autograd.h"
#include "api/tensor/complex_parts.h"
#include "api/tensor/container.h"
#include "api/tensor/image.h"
#include "api/tensor/info.h"
#include "api/tensor/shape.h"
#include "api/tensor/sparse.h"
#include "api/tensor/storage_edit.h"
#include "api/tensor/tensor.h"
#include "runtime/errors.h"
#include "runtime/handle.h"
#include "runtime/names.h"
#include "runtime/object_class.h"
#include "runtime/out_of_memory.h"
#include "scope/scope.h"
#include "scope/scope_stack.h"

#endif  // KSCOPE_KSCOPE_H_
