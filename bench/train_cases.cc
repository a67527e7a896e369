#include "bench/train_cases.h"

#include <stdexcept>
#include <tuple>
#include <utility>

#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/pooling.h>
#include <torch/nn/modules/rnn.h>
#include <torch/nn/modules/transformercoder.h>
#include <torch/nn/modules/transformerlayer.h>

namespace kscope::bench {
namespace {

constexpr std::int64_t kFeatures = 784, kClasses = 10;
constexpr std::int64_t kImage = 28, kHidden = 128;
constexpr std::int64_t kVocabulary = 1000, kSequence = 128, kWidth = 256, kHeads = 8,
                       kFeedForward = 1024, kLayers = 4;

ModuleDefinition Kind(const char* kind, std::vector<nn::OptionValue> positional = {},
                      nn::NamedValues named = {}) {
  return {kind, "", std::move(positional), std::move(named), {}};
}
ModuleDefinition Sequential(std::vector<ModuleDefinition> children) {
  return {"sequential", "", {}, {}, std::move(children)};
}

// A module whose forward is a function of its registered children.
class Net : public torch::nn::Module {
 public:
  template <typename M>
  M Add(const std::string& name, M m) {
    return register_module(name, m);
  }
};

// epoch and mlp: 784 -> hidden... -> 10 with relu after each hidden layer.
TrainCase Mlp(std::string name, std::int64_t rows, std::int64_t batch,
              std::vector<std::int64_t> hidden) {
  TrainCase c{std::move(name),
              at::randn({rows, kFeatures}),
              at::randint(kClasses, {rows}),
              batch,
              "sgd",
              0.01,
              {},
              nullptr};
  std::vector<ModuleDefinition> layers;
  std::int64_t width = kFeatures;
  for (std::int64_t h : hidden) {
    layers.push_back(Kind("linear", {width, h}));
    layers.push_back(Kind("relu"));
    width = h;
  }
  layers.push_back(Kind("linear", {width, kClasses}));
  c.definition = hidden.empty() ? layers.front() : Sequential(layers);
  c.make_libtorch = [hidden] {
    torch::nn::Sequential mlp;
    std::int64_t width = kFeatures;
    for (std::int64_t h : hidden) {
      mlp->push_back(torch::nn::Linear(width, h));
      mlp->push_back(torch::nn::ReLU());
      width = h;
    }
    mlp->push_back(torch::nn::Linear(width, kClasses));
    return LibtorchNet{mlp.ptr(), [mlp](const at::Tensor& x) mutable { return mlp->forward(x); }};
  };
  return c;
}

TrainCase Convnet() {
  const std::int64_t rows = 10240;
  TrainCase c{"convnet",
              at::randn({rows, 1, kImage, kImage}),
              at::randint(kClasses, {rows}),
              128,
              "adam",
              0.001,
              {},
              nullptr};
  c.definition = Sequential({Kind("conv2d", {1, 32, 3}), Kind("relu"), Kind("maxpool2d", {2}),
                             Kind("conv2d", {32, 64, 3}), Kind("relu"), Kind("maxpool2d", {2}),
                             Kind("flatten"), Kind("linear", {64 * 5 * 5, kClasses})});
  c.make_libtorch = [] {
    torch::nn::Sequential net(torch::nn::Conv2d(1, 32, 3), torch::nn::ReLU(),
                              torch::nn::MaxPool2d(2), torch::nn::Conv2d(32, 64, 3),
                              torch::nn::ReLU(), torch::nn::MaxPool2d(2), torch::nn::Flatten(),
                              torch::nn::Linear(64 * 5 * 5, kClasses));
    return LibtorchNet{net.ptr(), [net](const at::Tensor& x) mutable { return net->forward(x); }};
  };
  return c;
}

TrainCase Lstm() {
  const std::int64_t rows = 10240;
  TrainCase c{"lstm",
              at::randn({rows, kImage, kImage}),
              at::randint(kClasses, {rows}),
              128,
              "adam",
              0.001,
              {},
              nullptr};
  // ktorch's recur: the lstm's output, then the last step through the linear layer.
  c.definition = ModuleDefinition{
      "recur",
      "",
      {},
      {},
      {Kind("lstm", {kImage, kHidden}, {{"batchfirst", true}}),
       Sequential({Kind("select", {1, -1}), Kind("linear", {kHidden, kClasses})})}};
  c.make_libtorch = [] {
    auto net = std::make_shared<Net>();
    auto lstm = net->Add(
        "lstm", torch::nn::LSTM(torch::nn::LSTMOptions(kImage, kHidden).batch_first(true)));
    auto linear = net->Add("linear", torch::nn::Linear(kHidden, kClasses));
    return LibtorchNet{net, [lstm, linear](const at::Tensor& x) mutable {
                         return linear->forward(std::get<0>(lstm->forward(x)).select(1, -1));
                       }};
  };
  return c;
}

TrainCase Transformer() {
  const std::int64_t rows = 2048;
  TrainCase c{"transformer",
              at::randint(kVocabulary, {rows, kSequence}),
              at::randint(kClasses, {rows}),
              32,
              "adam",
              0.001,
              {},
              nullptr};
  // libtorch's encoder takes (sequence, batch, width).
  c.definition =
      Sequential({Kind("embed", {kVocabulary, kWidth}), Kind("transpose", {0, 1}),
                  Kind("encoder", {nn::NestedDefinition("encoderlayer", {kWidth, kHeads},
                                                        {{"dim", kFeedForward}, {"dropout", 0.0}}),
                                   kLayers}),
                  Kind("select", {0, 0}), Kind("linear", {kWidth, kClasses})});
  c.make_libtorch = [] {
    auto net = std::make_shared<Net>();
    auto embed = net->Add("embed", torch::nn::Embedding(kVocabulary, kWidth));
    auto encoder =
        net->Add("encoder", torch::nn::TransformerEncoder(torch::nn::TransformerEncoderOptions(
                                torch::nn::TransformerEncoderLayerOptions(kWidth, kHeads)
                                    .dim_feedforward(kFeedForward)
                                    .dropout(0.0),
                                kLayers)));
    auto linear = net->Add("linear", torch::nn::Linear(kWidth, kClasses));
    return LibtorchNet{net, [embed, encoder, linear](const at::Tensor& x) mutable {
                         const at::Tensor h = encoder->forward(embed->forward(x).transpose(0, 1));
                         return linear->forward(h.select(0, 0));
                       }};
  };
  return c;
}

}  // namespace

const std::vector<std::string>& CaseNames() {
  static const auto* const names =
      new std::vector<std::string>{"epoch", "mlp", "convnet", "lstm", "transformer"};
  return *names;
}

TrainCase MakeCase(const std::string& name, const c10::Device& device) {
  at::manual_seed(kDataSeed);
  TrainCase c = name == "epoch"         ? Mlp("epoch", 60000, 1000, {})
                : name == "mlp"         ? Mlp("mlp", 5120, 64, {1024, 1024})
                : name == "convnet"     ? Convnet()
                : name == "lstm"        ? Lstm()
                : name == "transformer" ? Transformer()
                                        : throw std::invalid_argument("unknown case " + name);
  c.x = c.x.to(device);
  c.y = c.y.to(device);
  return c;
}

}  // namespace kscope::bench
