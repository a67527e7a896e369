// module_bench — one training step of a 784-100-10 MLP (batch 1000, cross-entropy, sgd) driven
// through kscope handles, against the same libtorch calls written directly.
//
//   kscope: module/loss/opt handles; each step opens a Scope, zerograd, forward, loss,
//           backward, step, and the scope releases the step's handles;
//   raw:    torch::nn::Sequential(Linear, ReLU, Linear), zero_grad, forward,
//           torch::nn::functional::cross_entropy, backward, torch::optim::SGD::step.
// Both start from the same parameters and data. libtorch runs on one thread. After Google
// Benchmark's table the binary prints kscope time / raw time measured in the same run (target
// within 3%, printed, not enforced).
//
// Run:  ./build/bench/module_bench [--benchmark_repetitions=5]
#include <ATen/Parallel.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <benchmark/benchmark.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/sgd.h>

#include "absl/strings/str_format.h"
#include "bench/ratio_report.h"
#include "kscope/kscope.h"

namespace {

constexpr std::int64_t kBatch = 1000;

struct Data {
  at::Tensor x = at::randn({kBatch, 784});
  at::Tensor y = at::randint(10, {kBatch});
};

kscope::ModuleDefinition Mlp() {
  using kscope::ModuleDefinition;
  auto linear = [](std::int64_t in, std::int64_t out) {
    return ModuleDefinition{"linear", "", {in, out}, {}, {}};
  };
  return ModuleDefinition{
      "sequential", "", {}, {}, {linear(784, 100), {"relu", "", {}, {}, {}}, linear(100, 10)}};
}

void BM_KscopeMlpStep(benchmark::State& state) {
  const auto outer = kscope::Scope::Open();
  const Data data;
  const kscope::Handle x = kscope::tensor(data.x), y = kscope::tensor(data.y);
  const kscope::Handle q = kscope::module(Mlp());
  const kscope::Handle l = kscope::loss("ce");
  const kscope::Handle o = kscope::opt("sgd", q, {0.01});
  for (auto _ : state) {
    const auto step = kscope::Scope::Open();
    kscope::zerograd(o);
    kscope::backward(kscope::loss(l, kscope::forward(q, x), y));
    kscope::step(o);
  }
}
BENCHMARK(BM_KscopeMlpStep)->Unit(benchmark::kMillisecond);

void BM_RawMlpStep(benchmark::State& state) {
  const Data data;
  torch::nn::Sequential q(torch::nn::Linear(784, 100), torch::nn::ReLU(),
                          torch::nn::Linear(100, 10));
  torch::optim::SGD o(q->parameters(), torch::optim::SGDOptions(0.01));
  for (auto _ : state) {
    o.zero_grad();
    torch::nn::functional::cross_entropy(q->forward(data.x), data.y).backward();
    o.step();
  }
}
BENCHMARK(BM_RawMlpStep)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  at::set_num_threads(1);
  const int rc = kscope::bench::RunWithRatios(
      argc, argv, "kscope / raw libtorch, real time per training step:",
      {{"784-100-10 mlp step, batch 1000", "BM_KscopeMlpStep", "BM_RawMlpStep", 1, 1.03}});
  if (rc != 0) return rc;
  if (kscope::live_handles() != 0) {
    absl::FPrintF(stderr, "warning: %d handle(s) still live at exit\n", kscope::live_handles());
  }
  return 0;
}
