// train_cases — the models and data of bench/train_bench.cc's epoch cases, each defined twice
// from the same seeds: as a kscope module definition (trained through `run`) and as the same
// network written directly with libtorch's modules (trained by a hand-written loop).
// bench/train_bench.py builds the same cases in PyTorch.
//
//   epoch        60000x784 randn rows, randint 10 targets, batch 1000, a 784->10 linear, sgd .01
//   mlp          5120 rows of the same, batch 64, 784-1024-1024-10 with relu, sgd .01
//   convnet      10240 28x28 one-channel randn images, batch 128: conv 1->32 3x3, relu, 2x2
//                max pool, conv 32->64 3x3, relu, 2x2 max pool, flatten, linear 1600->10; adam
//                .001
//   lstm         10240 sequences of 28 steps of 28 features (an image read row by row), batch 128:
//                an lstm of 128 (batch first), its last step through linear 128->10; adam .001
//   transformer  2048 sequences of 128 tokens of 1000, batch 32: an embedding of 256, 4 encoder
//                layers (8 heads, feed-forward 1024, no dropout), the first position through
//                linear 256->10; adam .001
// Every case classifies into 10 classes with cross-entropy. The data is made on the CPU from
// kDataSeed and moved to the device; each side's parameters are made right after seeding with
// kParameterSeed, in the same order, then moved.
//
// Errors: MakeCase throws std::invalid_argument for an unknown name. Not thread-safe (it seeds
// libtorch's default generator).
#ifndef KSCOPE_BENCH_TRAIN_CASES_H_
#define KSCOPE_BENCH_TRAIN_CASES_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <torch/nn/module.h>

#include "kscope/kscope.h"

namespace kscope::bench {

constexpr std::uint64_t kDataSeed = 0, kParameterSeed = 1;  // train_bench.py uses the same

// The network written directly: its module (for its parameters) and its forward.
struct LibtorchNet {
  std::shared_ptr<torch::nn::Module> module;
  std::function<at::Tensor(const at::Tensor&)> forward;
};

struct TrainCase {
  std::string name;
  at::Tensor x, y;  // every row, on the device
  std::int64_t batch;
  std::string optimizer;  // sgd or adam
  double lr;
  ModuleDefinition definition;  // kscope's module
  // libtorch's, made on the CPU (the caller seeds first and moves it).
  std::function<LibtorchNet()> make_libtorch;
};

// The case `name` with its data on `device`.
TrainCase MakeCase(const std::string& name, const c10::Device& device);
// Every case's name, in the order above.
const std::vector<std::string>& CaseNames();

}  // namespace kscope::bench

#endif  // KSCOPE_BENCH_TRAIN_CASES_H_
