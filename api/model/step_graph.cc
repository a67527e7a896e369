#include "api/model/step_graph.h"

#include <memory>
#include <optional>

#ifdef KSCOPE_WITH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace kscope {

#ifdef KSCOPE_WITH_CUDA
namespace {

// Makes `waiting` wait for the work queued on `done` so far.
void Follow(const c10::cuda::CUDAStream& waiting, const c10::cuda::CUDAStream& done) {
  at::cuda::CUDAEvent event;
  event.record(done);
  event.block(waiting);
}

class CudaStepGraph final : public StepGraph {
 public:
  explicit CudaStepGraph(c10::Device device)
      : device_guard_(device),
        caller_(c10::cuda::getCurrentCUDAStream(device.index())),
        own_(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device.index())) {
    Follow(own_, caller_);
    stream_guard_.emplace(own_);
  }

  ~CudaStepGraph() override {
    stream_guard_.reset();  // the caller's stream is current again
    Follow(caller_, own_);
  }

  void Capture(const std::function<void()>& step) override {
    graph_.capture_begin();
    try {
      step();
    } catch (...) {
      // The stream must leave capture mode; what ending it says is secondary to the error.
      try {
        graph_.capture_end();
      } catch (...) {
      }
      throw;
    }
    graph_.capture_end();
  }

  void Replay() override { graph_.replay(); }

 private:
  c10::cuda::CUDAGuard device_guard_;
  c10::cuda::CUDAStream caller_, own_;
  std::optional<c10::cuda::CUDAStreamGuard> stream_guard_;
  at::cuda::CUDAGraph graph_;
};

}  // namespace

bool StepGraphsOn(c10::Device device) { return device.is_cuda(); }

std::unique_ptr<StepGraph> MakeStepGraph(c10::Device device) {
  if (!StepGraphsOn(device)) return nullptr;
  return std::make_unique<CudaStepGraph>(device);
}

#else

bool StepGraphsOn(c10::Device) { return false; }

std::unique_ptr<StepGraph> MakeStepGraph(c10::Device) { return nullptr; }

#endif

}  // namespace kscope
