#include "api/model/batchnorm.h"

#include <algorithm>

#include <ATen/core/Tensor.h>
#include <torch/nn/modules/batchnorm.h>

#include "api/model/model_data.h"
#include "api/model/model_object.h"
#include "api/model/model_run.h"
#include "api/nn/module.h"
#include "api/nn/module_object.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "scope/scope.h"

namespace kscope {
namespace {

// A batchnorm layer that tracks running statistics: its name, options and statistics (sharing
// the module's buffers).
struct Layer {
  std::string name;
  torch::nn::BatchNormOptions* options;
  at::Tensor mean, var, count;
};

// Adds m to *layers if it is an Impl tracking running statistics; true if it is an Impl.
template <typename Impl>
bool AddIf(const std::string& name, torch::nn::Module& m, std::vector<Layer>* layers) {
  auto* norm = dynamic_cast<Impl*>(&m);
  if (norm == nullptr) return false;
  if (norm->options.track_running_stats()) {
    layers->push_back(Layer{name, &norm->options, norm->running_mean, norm->running_var,
                            norm->num_batches_tracked});
  }
  return true;
}

std::vector<Layer> LayersOf(torch::nn::Module& q) {
  std::vector<Layer> layers;
  for (const auto& item : q.named_modules()) {
    torch::nn::Module& m = *item.value();
    AddIf<torch::nn::BatchNorm1dImpl>(item.key(), m, &layers) ||
        AddIf<torch::nn::BatchNorm2dImpl>(item.key(), m, &layers) ||
        AddIf<torch::nn::BatchNorm3dImpl>(item.key(), m, &layers);
  }
  return layers;
}

// Copies of the layers' statistics, to put back if the pass over the data fails.
std::vector<Layer> Snapshot(const std::vector<Layer>& layers) {
  std::vector<Layer> copies;
  for (const Layer& l : layers)
    copies.push_back(Layer{l.name, l.options, l.mean.clone(), l.var.clone(), l.count.clone()});
  return copies;
}

void PutBack(const std::vector<Layer>& layers, const std::vector<Layer>& copies) {
  for (std::size_t i = 0; i < layers.size(); ++i) {
    layers[i].mean.copy_(copies[i].mean);
    layers[i].var.copy_(copies[i].var);
    layers[i].count.copy_(copies[i].count);
  }
}

void SetMomenta(const std::vector<Layer>& layers, const Momenta& momenta) {
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::optional<double>& m = momenta[i].second;
    layers[i].options->momentum(m ? c10::optional<double>(*m) : c10::nullopt);
  }
}

// A no-gradient training-mode forward on every training batch of model m's epoch.
void PassOverTrainingData(Handle m, torch::nn::Module& module) {
  const bool was_training = module.is_training();
  module.train(true);
  try {
    while (model_batch(m, nn::DataMode::kTrain)) {
      auto scope = Scope::Open();  // releases the output's handle
      model_forward(m, ForwardMode::kNoGrad);
    }
  } catch (...) {
    module.train(was_training);
    model_restore(m, nn::DataMode::kTrain);
    throw;
  }
  module.train(was_training);
}

}  // namespace

Momenta batchnorm(Handle q) {
  const std::shared_ptr<nn::ModuleObject> module = nn::ModuleOrModelsModule("batchnorm", q);
  const std::vector<Layer> layers = LayersOf(module->module());
  Momenta original;
  for (const Layer& l : layers) {
    const c10::optional<double> m = l.options->momentum();
    original.emplace_back(l.name, m ? std::optional<double>(*m) : std::nullopt);
  }
  if (layers.empty()) return original;
  const bool pass = HandleTable::Global().Info(q).object_class == ObjectClass::kModel &&
                    model_batchinit(q, nn::DataMode::kTrain) >= 0;
  const std::vector<Layer> copies = pass ? Snapshot(layers) : std::vector<Layer>{};
  for (const Layer& l : layers) {
    l.mean.zero_();
    l.var.fill_(1);
    l.count.zero_();
    l.options->momentum(c10::nullopt);
  }
  if (!pass) return original;
  try {
    PassOverTrainingData(q, module->module());
  } catch (...) {
    PutBack(layers, copies);
    SetMomenta(layers, original);
    throw;
  }
  SetMomenta(layers, original);
  return original;
}

void batchnorm(Handle q, const Momenta& momenta) {
  const std::shared_ptr<nn::ModuleObject> module = nn::ModuleOrModelsModule("batchnorm", q);
  const std::vector<Layer> all = LayersOf(module->module());
  std::vector<Layer> named;
  for (const auto& item : momenta) {
    auto it =
        std::find_if(all.begin(), all.end(), [&](const Layer& l) { return l.name == item.first; });
    if (it == all.end())
      Fail("batchnorm: no batchnorm layer `%s in %s module", item.first, module->spec().kind->name);
    named.push_back(*it);
  }
  SetMomenta(named, momenta);
}

}  // namespace kscope
