// kscope — scope-based RAII handles over libtorch, with ktorch's API.
//
// The one header C++ callers include. Everything lives in namespace kscope:
//   - Scope, with_scope, GradPolicy (scope/scope.h): the guards that own handles;
//   - Handle (runtime/handle.h): the name of a live object;
//   - the pointer API (api/pointer.h): obj/objects, free, return_, use, mapped, ptr, class_,
//     device, dtype, size, elements, bytes, tensorcount, ref, addref, str, and FormatObjects
//     (api/obj_table.h) to print obj rows;
//   - tensors (api/tensor.h, api/tensor_creation.h, api/info.h), vectors and dictionaries
//     (api/container.h), math (api/math.h; every function of ktorch's math catalogue by name:
//     api/math_catalogue.h, kscope::math::Run), reshaping (api/shape.h), autograd
//     (api/autograd.h), moving and converting (api/move.h: to, copyto), editing storage in
//     place (api/storage_edit.h: amend, reset, resize, filldiagonal), complex parts and sparse
//     tensors (api/complex_parts.h, api/sparse.h), random fills (api/random_fill.h) and images
//     (api/image.h: png, makegrid);
//   - initializing tensors and parameters in place (api/init.h: kscope::init::zeros ... gain);
//   - functional forms of layers (api/functional.h: relu, softmax, maxpool2d, linear, pdist, ...);
//   - modules (api/module.h) and optimizers (api/optimizer.h: opt, step, lr, describe_opt;
//     api/optimizer_state.h: opt_state; api/clip.h: clip, clipv, clip_by_options);
//   - models (api/model.h: model, model_module/model_loss/model_opt, describe_model,
//     model_state, train/test options; api/model_data.h: model data and batching;
//     api/model_run.h: forward, loss, backward, step, backstep, run and testrun on models;
//     api/batchnorm.h: batchnorm statistics recomputed over a model's training data);
//   - module buffers, submodules, freezing and parameter copies (api/module_parameters.h), and
//     module state, recreation and clone (api/module_state.h);
//   - batching and shuffling tensors, vectors and dictionaries in place without copies
//     (api/batch.h: batch, batch_at, restore, shuffle), and the tensor-level machinery a model
//     reuses (api/batch_window.h, api/shuffle.h);
//   - process groups and their collectives across processes (api/distributed/group.h: group;
//     api/distributed/collectives.h: allreduce, broadcast, allgather, barrier) and models
//     trained over them (api/distributed/distribute.h: distribute, undistribute);
//   - the environment (api/environment.h): seeds per device, CUDA devices (cuda_device_count,
//     set_cuda_device), sync, libtorch's version and build features;
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

#include "api/autograd.h"
#include "api/batch.h"
#include "api/batch_window.h"
#include "api/batchnorm.h"
#include "api/clip.h"
#include "api/complex_parts.h"
#include "api/container.h"
#include "api/distributed/collectives.h"
#include "api/distributed/distribute.h"
#include "api/distributed/group.h"
#include "api/environment.h"
#include "api/functional.h"
#include "api/image.h"
#include "api/info.h"
#include "api/init.h"
#include "api/loss.h"
#include "api/math.h"
#include "api/math_catalogue.h"
#include "api/model.h"
#include "api/model_data.h"
#include "api/model_run.h"
#include "api/module.h"
#include "api/module_parameters.h"
#include "api/module_state.h"
#include "api/move.h"
#include "api/obj_table.h"
#include "api/operand.h"
#include "api/optimizer.h"
#include "api/optimizer_state.h"
#include "api/pointer.h"
#include "api/shape.h"
#include "api/shuffle.h"
#include "api/sparse.h"
#include "api/storage_edit.h"
#include "api/tensor.h"
#include "runtime/errors.h"
#include "runtime/handle.h"
#include "runtime/names.h"
#include "runtime/object_class.h"
#include "scope/scope.h"
#include "scope/scope_stack.h"

#endif  // KSCOPE_KSCOPE_H_
