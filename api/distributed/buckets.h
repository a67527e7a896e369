// Buckets — the tensors of one collective packed into flat buffers, one per (device, dtype) in
// order of first appearance, so that a vector or dictionary costs one collective per bucket, and
// so that the tensors given are written only after every collective succeeded.
//
// Construction copies the values (the tensors given are not touched); Unpacked(i) is tensor i's
// slice of its bucket, shaped as tensor i (a view: it shares the bucket's storage). Every rank
// giving tensors of the same shapes, dtypes and devices in the same order gets the same buckets.
// Thread-compatible.
#ifndef KSCOPE_API_DISTRIBUTED_BUCKETS_H_
#define KSCOPE_API_DISTRIBUTED_BUCKETS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>

namespace kscope::distributed {

class Buckets {
 public:
  explicit Buckets(const std::vector<at::Tensor>& tensors);

  // The flat buffers, for the collectives to work on in place.
  std::vector<at::Tensor>& flat() { return flat_; }
  // Tensor i's values in its bucket.
  at::Tensor Unpacked(std::size_t i) const;
  // Copies every tensor's values from the buckets back into `tensors` (the ones given at
  // construction), with autograd off so that leaves requiring gradients can be written.
  void CopyBack(const std::vector<at::Tensor>& tensors) const;

 private:
  struct Slot {
    std::size_t bucket;
    std::int64_t offset;
  };
  std::vector<at::Tensor> flat_;
  std::vector<Slot> slots_;
  std::vector<std::vector<std::int64_t>> shapes_;
};

}  // namespace kscope::distributed

#endif  // KSCOPE_API_DISTRIBUTED_BUCKETS_H_
