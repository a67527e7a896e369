// StepGraph — a device's record of one training step's work, replayed without the host: a CUDA
// graph (at::cuda::CUDAGraph) on CUDA devices, in builds with CUDA (KSCOPE_WITH_CUDA).
//
// While a StepGraph lives, the device work of the calling thread goes to a stream of its own
// (CUDA graphs are captured off the default stream, and warm-up steps run on the stream that
// captures, as PyTorch's recipe does); the stream the thread had waits for that work when the
// StepGraph is destroyed. Capture runs `step` once with its device work recorded, not done; each
// Replay does that work again, on the same memory (tensors made during capture belong to the
// graph's pool and are overwritten by every replay). Host code in `step` runs at capture only.
//
// Errors: libtorch's (c10::Error) when capture fails (an operation that waits for the device or
// allocates outside the graph's pool); the graph is then unusable. Not thread-safe: one thread,
// which must not change its current device while the StepGraph lives.
#ifndef KSCOPE_API_MODEL_STEP_GRAPH_H_
#define KSCOPE_API_MODEL_STEP_GRAPH_H_

#include <functional>
#include <memory>

#include <c10/core/Device.h>

namespace kscope {

class StepGraph {
 public:
  virtual ~StepGraph() = default;
  virtual void Capture(const std::function<void()>& step) = 0;
  virtual void Replay() = 0;
};

// Whether this build can capture on `device`: a CUDA device, kscope built with CUDA.
bool StepGraphsOn(c10::Device device);

// A StepGraph for `device`; null where StepGraphsOn(device) is false.
std::unique_ptr<StepGraph> MakeStepGraph(c10::Device device);

}  // namespace kscope

#endif  // KSCOPE_API_MODEL_STEP_GRAPH_H_
