#include "api/distributed/buckets.h"

#include <utility>

#include <ATen/core/grad_mode.h>
#include <ATen/ops/cat.h>

namespace kscope::distributed {

Buckets::Buckets(const std::vector<at::Tensor>& tensors) {
  std::vector<std::pair<c10::Device, c10::ScalarType>> keys;
  std::vector<std::vector<at::Tensor>> members;
  std::vector<std::int64_t> filled;
  for (const at::Tensor& t : tensors) {
    const std::pair<c10::Device, c10::ScalarType> key{t.device(), t.scalar_type()};
    std::size_t b = 0;
    while (b < keys.size() && keys[b] != key) ++b;
    if (b == keys.size()) {
      keys.push_back(key);
      members.emplace_back();
      filled.push_back(0);
    }
    slots_.push_back(Slot{b, filled[b]});
    shapes_.push_back(t.sizes().vec());
    filled[b] += t.numel();
    members[b].push_back(t.detach().reshape(-1));
  }
  for (const auto& m : members) flat_.push_back(at::cat(m));  // a new buffer even for one tensor
}

at::Tensor Buckets::Unpacked(std::size_t i) const {
  const Slot& s = slots_[i];
  std::int64_t numel = 1;
  for (std::int64_t d : shapes_[i]) numel *= d;
  return flat_[s.bucket].narrow(0, s.offset, numel).view(shapes_[i]);
}

void Buckets::CopyBack(const std::vector<at::Tensor>& tensors) const {
  at::NoGradGuard no_grad;
  for (std::size_t i = 0; i < tensors.size(); ++i) tensors[i].copy_(Unpacked(i));
}

}  // namespace kscope::distributed
