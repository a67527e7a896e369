#include "api/distributed/gradient_reducer.h"

#include <utility>

#include <ATen/core/grad_mode.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/zeros.h>

#include "api/distributed/model_sync.h"

namespace kscope::distributed {

GradientReducer::GradientReducer(std::shared_ptr<const GroupObject> group,
                                 std::vector<at::Tensor> parameters,
                                 std::int64_t first_bucket_bytes, std::int64_t bucket_bytes)
    : group_(std::move(group)), parameters_(std::move(parameters)) {
  places_.resize(parameters_.size());
  // DDP's rule: a bucket takes parameters until it holds at least its size, then closes.
  std::int64_t bytes = 0;
  bool open = false;
  for (std::size_t k = parameters_.size(); k-- > 0;) {  // last first: backward's order
    const at::Tensor& p = parameters_[k];
    if (!open) {
      buckets_.emplace_back();
      bytes = 0;
      open = true;
    }
    Bucket& b = buckets_.back();
    places_[k] = Place{buckets_.size() - 1, bytes / static_cast<std::int64_t>(p.element_size())};
    b.members.push_back(k);
    bytes += p.numel() * static_cast<std::int64_t>(p.element_size());
    open = bytes < (buckets_.size() == 1 ? first_bucket_bytes : bucket_bytes);
  }
  for (Bucket& b : buckets_) {
    std::int64_t numel = 0;
    for (std::size_t k : b.members) numel += parameters_[k].numel();
    // The last bucket also carries the step's numbers: loss, weight (1, then scaled by rows
    // with the gradients) and the ranks' failure flags.
    if (&b == &buckets_.back()) numel += StepNumberCount(*group_);
    b.flat = at::empty({numel}, parameters_.front().options().requires_grad(false));
  }
  hooks_.resize(parameters_.size(), 0);
  for (std::size_t k = 0; k < parameters_.size(); ++k) {
    if (!parameters_[k].requires_grad()) continue;
    places_[k].hooked = true;
    ++buckets_[places_[k].bucket].hooked;
    hooks_[k] = parameters_[k].register_hook([this, k](const at::Tensor& g) { Arrived(k, g); });
  }
}

GradientReducer::~GradientReducer() {
  for (std::size_t k = 0; k < parameters_.size(); ++k) {
    if (places_[k].hooked) parameters_[k].remove_hook(hooks_[k]);
  }
}

bool GradientReducer::Applies(const std::vector<at::Tensor>& parameters) {
  if (parameters.empty()) return false;
  for (const at::Tensor& p : parameters) {
    if (p.device() != parameters.front().device() ||
        p.scalar_type() != parameters.front().scalar_type())
      return false;
  }
  return true;
}

bool GradientReducer::Serves(const std::vector<at::Tensor>& parameters) const {
  if (parameters.size() != parameters_.size()) return false;
  const at::Tensor& flat = buckets_.front().flat;
  for (std::size_t k = 0; k < parameters.size(); ++k) {
    if (!parameters[k].is_same(parameters_[k]) || parameters[k].device() != flat.device() ||
        parameters[k].scalar_type() != flat.scalar_type() ||
        parameters[k].requires_grad() != places_[k].hooked)
      return false;  // another parameter, the module moved or (un)frozen since
  }
  return true;
}

void GradientReducer::Prepare(const char* fn, std::int64_t rows) {
  const std::lock_guard<std::mutex> lock(mu_);
  for (Place& p : places_) p.arrived = false;
  for (Bucket& b : buckets_) b.waiting = b.hooked;
  next_bucket_ = 0;
  sums_ = GroupObject::Sums();  // any a failed step left
  fn_ = fn;
  rows_ = rows;
  armed_ = true;
}

at::Tensor GradientReducer::Slot(std::size_t k) const {
  const Place& p = places_[k];
  return buckets_[p.bucket].flat.narrow(0, p.offset, parameters_[k].numel());
}

void GradientReducer::Arrived(std::size_t k, const at::Tensor& gradient) {
  const std::lock_guard<std::mutex> lock(mu_);
  if (!armed_ || !gradient.defined()) return;  // a backward outside a step
  const at::NoGradGuard no_grad;
  Place& p = places_[k];
  at::Tensor slot = Slot(k).view(gradient.sizes());
  // Scaled by this rank's rows as it is copied in: one pass over the gradient.
  if (p.arrived) {  // a second backward in the same step
    slot.add_(gradient, rows_);
    return;
  }
  at::mul_out(slot, gradient, rows_);
  p.arrived = true;
  if (--buckets_[p.bucket].waiting == 0) StartReady(at::Tensor(), false);
}

at::Tensor GradientReducer::Numbers() const {
  const at::Tensor& flat = buckets_.back().flat;
  const std::int64_t n = StepNumberCount(*group_);
  return flat.narrow(0, flat.numel() - n, n);
}

void GradientReducer::StartReady(const at::Tensor& loss, bool failed) {
  for (; next_bucket_ < buckets_.size(); ++next_bucket_) {
    Bucket& b = buckets_[next_bucket_];
    const bool last = next_bucket_ + 1 == buckets_.size();
    if (!loss.defined() && (last || b.waiting > 0)) return;  // the last waits for Finish
    if (rows_ == 0) {
      b.flat.zero_();
    } else {
      for (std::size_t k : b.members) {
        if (!places_[k].arrived) Slot(k).zero_();  // no gradient this step: zeros
      }
      if (last) {
        WriteStepNumbers(Numbers(), loss);
        Numbers().mul_(static_cast<double>(rows_));  // as the gradients were, on arrival
      }
    }
    if (last && failed) FlagStepFailure(*group_, Numbers());
    group_->StartSum(fn_, b.flat, sums_);
  }
}

at::Tensor GradientReducer::Finish(const char* fn, const at::Tensor& loss,
                                   const std::exception_ptr& failure) {
  const at::NoGradGuard no_grad;
  const c10::TensorOptions like = parameters_.front().options().requires_grad(false);
  {
    const std::lock_guard<std::mutex> lock(mu_);
    armed_ = false;
    if (failure) rows_ = 0;  // the buckets not yet under way carry zeros
    const at::Tensor mine = rows_ > 0 ? loss.detach().to(like) : at::zeros({}, like);
    Joining(failure, [&] { StartReady(mine, failure != nullptr); });
  }
  Joining(failure, [&] { group_->FinishSums(fn, sums_); });
  const at::Tensor total = SummedRows(fn, *group_, Numbers(), failure);
  for (std::size_t k = 0; k < parameters_.size(); ++k) {
    WriteAveragedGradient(parameters_[k], Slot(k).view(parameters_[k].sizes()), total);
  }
  return Numbers()[0].div(total);
}

}  // namespace kscope::distributed
