// Shuffling tensors together along a dimension, in place, and undoing it: the machinery behind
// shuffle on tensors, vectors and dictionaries, and behind a model's shuffle/unshuffle.
//
// Every tensor is first restored to its full size (batch windows removed, api/data/batch_window.h;
// the tensors must be batchable as described there), then re-indexed along `dim` by one
// permutation: tensor.set_(tensor.index_select(dim, permutation)) with autograd off. The
// TensorImpl is kept, so every reference to the tensor (other handles, vector elements, a
// model's data) sees the new order; index_select allocates the new storage (as in ktorch).
//
// Permutations: after Shuffle, row j holds what row permutation[j] held before. A model keeps
// the cumulative permutation across epochs to undo them all:
//   at::Tensor p;                                       // undefined: data in original order
//   p = ComposePermutations(p, Shuffle(fn, tensors, 0, generator));   // each epoch
//   Unshuffle(fn, tensors, p); p = at::Tensor();        // back to the original order
// With several tasks, every task draws the same sequence from ShuffleGenerator(shuffleseed).
//
// Errors: kscope::Error naming fn (see batch_window.h; "tensor size mismatch, n vs m"), or for
// a permutation of the wrong length; all tensors are validated before any changes.
// Thread-safety: the tensors are mutated in place and a generator is advanced: callers must
// not share them across threads meanwhile.
#ifndef KSCOPE_API_DATA_SHUFFLE_H_
#define KSCOPE_API_DATA_SHUFFLE_H_

#include <cstdint>

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "absl/types/span.h"

namespace kscope {

// A private generator for shuffles, seeded with `seed`: a new CPU generator, or a clone of a
// CUDA device's default generator; the same seed gives the same sequence of permutations.
at::Generator ShuffleGenerator(std::int64_t seed,
                               const c10::Device& device = c10::Device(c10::kCPU));

// Restores full size, draws a random permutation of the full size along dim — from
// `generator` (on its device) if defined, else from the global generator on the first
// tensor's device — and applies it to every tensor. Returns the permutation (long, on the
// device it was drawn).
at::Tensor Shuffle(const char* fn, absl::Span<const at::Tensor> tensors, std::int64_t dim = 0,
                   at::Generator generator = at::Generator());

// Restores full size and applies a given permutation (long, of the full size along dim).
void Permute(const char* fn, absl::Span<const at::Tensor> tensors, const at::Tensor& permutation,
             std::int64_t dim = 0);

// The permutation equivalent to `first` followed by `then`: first[then], or `then` if `first`
// is undefined.
at::Tensor ComposePermutations(const at::Tensor& first, const at::Tensor& then);

// Puts rows back in the order they had before the shuffles whose composed permutation is
// `cumulative` (applies its inverse); nothing to do if `cumulative` is undefined.
void Unshuffle(const char* fn, absl::Span<const at::Tensor> tensors, const at::Tensor& cumulative,
               std::int64_t dim = 0);

}  // namespace kscope

#endif  // KSCOPE_API_DATA_SHUFFLE_H_
