#include "api/model/batch_feed.h"

#include <memory>
#include <optional>
#include <utility>

#include "api/model/model_data.h"

#ifdef KSCOPE_WITH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace kscope {
namespace {

using nn::DataTensors;

bool HeldOn(const DataTensors& x, c10::Device device) {
  for (const at::Tensor& t : x.tensors) {
    if (t.device() != device) return false;
  }
  return true;
}

// A copy of x's tensors on `device`: from pinned memory with non_blocking from the host to a CUDA
// device (the tensor's own pages when pinned, else pinned ones from libtorch's caching host
// allocator), an ordinary copy otherwise. *reads_data: whether a copy still reads x's own pages.
DataTensors CopyTo(const DataTensors& x, c10::Device device, bool* reads_data) {
  DataTensors copy{x.form, {}, x.keys};
  copy.tensors.reserve(x.tensors.size());
  for (const at::Tensor& t : x.tensors) {
    const at::TensorOptions there = t.options().device(device);
    if (device.is_cuda() && t.is_cpu()) {
      const bool pinned = t.is_pinned();
      *reads_data |= pinned;
      copy.tensors.push_back((pinned ? t : t.pin_memory()).to(there, /*non_blocking=*/true));
    } else {
      copy.tensors.push_back(t.to(there, /*non_blocking=*/false, /*copy=*/true));
    }
  }
  return copy;
}

}  // namespace

// The copies of the batch handed out and of the one staged after it. To a CUDA device in a build
// with CUDA they are made on a side stream (its lane); the stream that takes a batch waits for
// its copy there.
class BatchFeed::Copier {
 public:
  explicit Copier(c10::Device device) : device_(device) {
#ifdef KSCOPE_WITH_CUDA
    if (device.is_cuda()) lane_.emplace(device);
#endif
  }

  // Waits for the last copy when it read the data's own pinned pages, which the host may change
  // once the epoch is over (the next epoch's shuffle).
  ~Copier() {
#ifdef KSCOPE_WITH_CUDA
    if (lane_ && reads_data_) lane_->ready.synchronize();
#endif
  }

  // Begins copying the batch the data shows now.
  void Begin(const nn::ModelData& data) {
#ifdef KSCOPE_WITH_CUDA
    if (lane_) {
      const c10::cuda::CUDAStreamGuard on_lane(lane_->stream);
      Copy(data);
      lane_->ready.record(lane_->stream);
      return;
    }
#endif
    Copy(data);
  }

  // The staged batch becomes the one handed out, ready for the calling thread's current stream.
  void Hand() {
    input_ = std::move(staged_input_);
    target_ = std::move(staged_target_);
#ifdef KSCOPE_WITH_CUDA
    if (!lane_) return;
    const c10::cuda::CUDAStream current = c10::cuda::getCurrentCUDAStream(device_.index());
    lane_->ready.block(current);
    for (const DataTensors* x : {&input_, &target_}) {
      for (const at::Tensor& t : x->tensors) t.record_stream(current);
    }
#endif
  }

  const DataTensors& input() const { return input_; }
  const DataTensors& target() const { return target_; }

 private:
  void Copy(const nn::ModelData& data) {
    staged_input_ = CopyTo(data.input, device_, &reads_data_);
    staged_target_ = CopyTo(data.target, device_, &reads_data_);
  }

  c10::Device device_;
  DataTensors input_, target_, staged_input_, staged_target_;
  bool reads_data_ = false;
#ifdef KSCOPE_WITH_CUDA
  struct Lane {
    explicit Lane(c10::Device device)
        : stream(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device.index())) {}
    c10::cuda::CUDAStream stream;
    at::cuda::CUDAEvent ready;
  };
  std::optional<Lane> lane_;
#endif
};

BatchFeed::BatchFeed(Handle m, const nn::Model& model, nn::DataMode mode, Copies copies)
    : m_(m), mode_(mode), data_(mode == nn::DataMode::kTrain ? model.train_data : model.test_data) {
  const std::optional<c10::Device> device = model.device();
  const c10::Device target = device.value_or(c10::Device(c10::kCPU));
  if (copies == Copies::kAlways ||
      (device && !(HeldOn(data_.input, target) && HeldOn(data_.target, target)))) {
    copier_ = std::make_unique<Copier>(target);
  }
}

BatchFeed::~BatchFeed() = default;

void BatchFeed::Stage() {
  staged_ = model_batch(m_, mode_);
  if (staged_) copier_->Begin(data_);
}

std::optional<BatchFeed::Batch> BatchFeed::Next() {
  if (ended_) return std::nullopt;
  if (!copier_) {  // windowed in place, when asked
    ended_ = !model_batch(m_, mode_);
    if (ended_) return std::nullopt;
    return Batch{data_.input, data_.target};
  }
  if (!started_) {
    started_ = true;
    Stage();
  }
  ended_ = !staged_;
  if (ended_) return std::nullopt;
  copier_->Hand();
  Stage();  // the next batch travels while this one is used
  return Batch{copier_->input(), copier_->target()};
}

const nn::DataTensors& OnDevice(const nn::DataTensors& x, std::optional<c10::Device> device,
                                nn::DataTensors* moved) {
  if (!device || HeldOn(x, *device)) return x;
  moved->form = x.form;
  moved->keys = x.keys;
  moved->tensors.clear();
  for (const at::Tensor& t : x.tensors) moved->tensors.push_back(t.to(*device));
  return *moved;
}

}  // namespace kscope
