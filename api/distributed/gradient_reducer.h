// GradientReducer — a model's gradients averaged over the ranks of its process group while
// backward still runs (PyTorch DDP's reducer, in kscope's terms): what AverageGradients
// (api/distributed/model_sync.h) does after backward, overlapped with it.
//
// The parameters are laid out, last first (the order backward reaches them), in buckets: flat
// buffers that each take parameters until they hold at least `bucket_bytes` (the first
// `first_bucket_bytes`, so that communication starts early), as DDP's buckets do (for
// 784-1024-1024-10: the last layer and the middle one's 4.2 MB, then the first layer's 3.2 MB). A
// hook on each parameter copies its gradient, scaled by this rank's rows, into its bucket as
// backward produces it (one pass over it, as DDP's copy that divides); a bucket whose
// every gradient has arrived begins its sum over the ranks (GroupObject::StartSum) while backward
// goes on, buckets always in the same order on every rank.
// Finish, after backward, begins the buckets not yet under way (a parameter backward did not reach
// counts as zeros), the last one (the first parameters', which backward reaches last) carrying the
// rank's loss, rows and failure flag too, so that a model of one bucket costs one collective per
// step, waits for all, and writes each parameter's gradient (into its .grad in place where backward
// made one): the sum of the ranks' gradients weighted by their rows, divided by the rows of all
// ranks, exactly as AverageGradients does (equal to float tolerance: the sums are split
// differently).
//
// Use: Prepare(fn, rows) before each step's backward, Finish(...) after it (also when backward
// failed: `failure` then carries this rank's error, which every other rank hears of, as with
// AverageGradients). The hooks do nothing outside Prepare..Finish, so a backward of the model's
// own (`backward m`) stays local. Reduces only when the parameters share one device and type
// (Applies() says whether they do; AverageGradients serves the rest).
//
// Ownership: holds the parameters and their hooks (removed on destruction) and shares the group.
// Errors: those of AverageGradients, naming fn. Thread-safety: one step at a time; the hooks run
// on autograd's threads (a mutex guards the buckets).
#ifndef KSCOPE_API_DISTRIBUTED_GRADIENT_REDUCER_H_
#define KSCOPE_API_DISTRIBUTED_GRADIENT_REDUCER_H_

#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <vector>

#include <ATen/core/Tensor.h>

#include "api/distributed/group_object.h"

namespace kscope::distributed {

class GradientReducer {
 public:
  static constexpr std::int64_t kFirstBucketBytes = 1 << 20;  // DDP's: 1 MiB
  static constexpr std::int64_t kBucketBytes = 25 << 20;      // DDP's: 25 MiB

  GradientReducer(std::shared_ptr<const GroupObject> group, std::vector<at::Tensor> parameters,
                  std::int64_t first_bucket_bytes = kFirstBucketBytes,
                  std::int64_t bucket_bytes = kBucketBytes);
  ~GradientReducer();
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  // Whether the parameters share one device and type (and there is at least one).
  static bool Applies(const std::vector<at::Tensor>& parameters);
  // Whether this reducer was made for exactly these parameters, still where they were and as
  // they were frozen (the optimizer's may change, the module may move, a parameter may be frozen
  // or unfrozen: the steps then average after backward).
  bool Serves(const std::vector<at::Tensor>& parameters) const;

  // Before backward: this step's rows (0: no batch on this rank); fn names the step's call in
  // errors.
  void Prepare(const char* fn, std::int64_t rows);
  // After backward (`loss` this rank's, undefined without a batch): see above. Returns the loss
  // averaged over the ranks' rows, a scalar of the parameters' type.
  at::Tensor Finish(const char* fn, const at::Tensor& loss, const std::exception_ptr& failure);

  std::size_t bucket_count() const { return buckets_.size(); }

 private:
  struct Bucket {
    at::Tensor flat;
    std::vector<std::size_t> members;  // parameter indices, in bucket order
    std::size_t hooked = 0;            // members that require a gradient
    std::size_t waiting = 0;           // hooked gradients not yet in, this step
  };
  struct Place {
    std::size_t bucket = 0;
    std::int64_t offset = 0;  // in elements
    bool hooked = false;      // requires a gradient: backward reaches it
    bool arrived = false;     // its gradient is in the bucket this step
  };

  // Parameter k's values in its bucket.
  at::Tensor Slot(std::size_t k) const;
  // The hook: parameter k's gradient.
  void Arrived(std::size_t k, const at::Tensor& gradient);
  // The last bucket's step numbers (api/distributed/model_sync.h), after its gradients.
  at::Tensor Numbers() const;
  // Starts, in order, every bucket that is complete but the last; from Finish (`loss` defined:
  // this rank's, zero without rows), every one left, the last with the step's numbers. Under
  // mu_.
  void StartReady(const at::Tensor& loss, bool failed);

  std::shared_ptr<const GroupObject> group_;
  std::vector<at::Tensor> parameters_;
  std::vector<unsigned> hooks_;  // each parameter's hook (parameters without one: none)
  std::vector<Bucket> buckets_;
  std::vector<Place> places_;
  std::mutex mu_;
  bool armed_ = false;  // between Prepare and Finish
  const char* fn_ = "";
  std::int64_t rows_ = 0;
  std::size_t next_bucket_ = 0;  // the first bucket not started
  GroupObject::Sums sums_;
};

}  // namespace kscope::distributed

#endif  // KSCOPE_API_DISTRIBUTED_GRADIENT_REDUCER_H_
