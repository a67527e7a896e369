#include "api/data/shuffle.h"

#include <mutex>
#include <vector>

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <ATen/ops/argsort.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/randperm.h>
#include <ATen/ops/set.h>
#include <c10/core/GradMode.h>

#include "api/data/batch_window.h"
#include "runtime/errors.h"
#include "runtime/torch_compat.h"

namespace kscope {
namespace {

// Re-indexes every tensor (restored to full size) along dim: all new tensors are computed
// before any is swapped in, so a failing index_select changes nothing.
void Reindex(absl::Span<const at::Tensor> tensors, const at::Tensor& permutation,
             std::int64_t dim) {
  c10::NoGradGuard no_grad;
  std::vector<at::Tensor> reordered;
  reordered.reserve(tensors.size());
  for (const auto& t : tensors)
    reordered.push_back(t.index_select(dim, permutation.to(t.device())));
  for (std::size_t i = 0; i < tensors.size(); ++i) tensors[i].set_(reordered[i]);
}

}  // namespace

at::Generator ShuffleGenerator(std::int64_t seed, const c10::Device& device) {
  // A new CPU generator rather than a clone: libtorch 1.13's GeneratorImpl::clone() leaks the
  // clone (it increfs the new object before reclaiming it). Other devices have no generator
  // constructor outside their own headers, so they clone (and leak one small object per call
  // on 1.13).
  if (device.is_cpu())
    return at::make_generator<at::CPUGeneratorImpl>(static_cast<std::uint64_t>(seed));
  at::Generator global = at::globalContext().defaultGenerator(device);
  at::Generator g;
  {
    std::lock_guard<std::mutex> lock(global.mutex());
    g = global.clone();
  }
  g.set_current_seed(static_cast<std::uint64_t>(seed));
  return g;
}

at::Tensor Shuffle(const char* fn, absl::Span<const at::Tensor> tensors, std::int64_t dim,
                   at::Generator generator) {
  const std::int64_t rows = RestoreFull(fn, tensors, dim);
  const c10::Device device = generator.defined() ? generator.device() : tensors[0].device();
  at::Tensor permutation = at::randperm(
      rows,
      generator.defined() ? AtOptional<at::Generator>(generator) : AtOptional<at::Generator>(),
      at::TensorOptions().dtype(at::kLong).device(device));
  Reindex(tensors, permutation, dim);
  return permutation;
}

void Permute(const char* fn, absl::Span<const at::Tensor> tensors, const at::Tensor& permutation,
             std::int64_t dim) {
  const std::int64_t rows = FullSize(fn, tensors, dim);
  if (!permutation.defined() || permutation.dim() != 1 || permutation.scalar_type() != at::kLong ||
      permutation.numel() != rows) {
    Fail("%s: expected a permutation of %d long indices", fn, rows);
  }
  RestoreFull(fn, tensors, dim);
  Reindex(tensors, permutation, dim);
}

at::Tensor ComposePermutations(const at::Tensor& first, const at::Tensor& then) {
  return first.defined() ? first.index_select(0, then.to(first.device())) : then;
}

void Unshuffle(const char* fn, absl::Span<const at::Tensor> tensors, const at::Tensor& cumulative,
               std::int64_t dim) {
  if (cumulative.defined()) Permute(fn, tensors, at::argsort(cumulative), dim);
}

}  // namespace kscope
