#include "api/model/checkpoint.h"

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <c10/core/GradMode.h>
#include <torch/nn/module.h>

#include "absl/strings/str_join.h"
#include "api/data/batch_window.h"
#include "api/data/shuffle.h"
#include "api/env/environment.h"
#include "api/model/checkpoint_file.h"
#include "api/model/model.h"
#include "api/model/model_object.h"
#include "api/nn/optimizer_state.h"
#include "runtime/errors.h"
#include "scope/scope.h"

namespace kscope {
namespace {

NamedList NamedOf(const torch::OrderedDict<std::string, at::Tensor>& tensors) {
  NamedList named;
  for (const auto& item : tensors) named.emplace_back(item.key(), item.value());
  return named;
}

at::Tensor StateOf(at::Generator g) {
  std::lock_guard<std::mutex> lock(g.mutex());
  return g.get_state();
}

void SetState(at::Generator g, const at::Tensor& state) {
  std::lock_guard<std::mutex> lock(g.mutex());
  g.set_state(state);
}

c10::Device Cuda(std::size_t index) {
  return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(index));
}

// The default generator of CUDA device `index` (what dropout on it draws from).
at::Generator CudaGenerator(std::size_t index) {
  return at::globalContext().defaultGenerator(Cuda(index));
}

// Checks that the module holds the checkpoint's tensors of one kind (parameter or buffer).
void CheckSame(const char* what, const NamedList& saved, const NamedList& held) {
  if (saved.size() != held.size())
    Fail("resume: the checkpoint has %d %ss, the module %d", saved.size(), what, held.size());
  for (std::size_t i = 0; i < saved.size(); ++i) {
    const auto& [name, value] = saved[i];
    const auto& [held_name, held_value] = held[i];
    if (name != held_name) {
      Fail("resume: the checkpoint's %s %d is `%s, the module's `%s", what, i, name, held_name);
    }
    if (value.sizes() != held_value.sizes()) {
      Fail("resume: the checkpoint has %s `%s of size %s, the module %s", what, name,
           absl::StrJoin(value.sizes(), " "), absl::StrJoin(held_value.sizes(), " "));
    }
  }
}

// A generator on `device` (as the model's shuffles make them) continuing from `state`.
at::Generator GeneratorAt(const c10::Device& device, const at::Tensor& state) {
  at::Generator g = ShuffleGenerator(0, device);
  SetState(g, state);
  return g;
}

}  // namespace

void checkpoint(Handle m, const std::string& path, std::int64_t epoch) {
  const nn::Model& model = nn::ModelOf("checkpoint", m)->model();
  if (model.train_data.next >= 0) {
    Fail("checkpoint: an epoch is under way (batch %d): save between epochs",
         model.train_data.next);
  }
  CheckpointFile s;
  s.epoch = epoch;
  const torch::nn::Module& module = model.module->module();
  s.parameters = NamedOf(module.named_parameters());
  s.buffers = NamedOf(module.named_buffers());
  {
    auto scope = Scope::Open();  // model_opt's handle lives only here
    s.optimizer = opt_state(model_opt(m));
  }
  s.permutation = model.train_data.permutation;
  if (model.train_data.generator.defined()) {
    s.shuffle_on = model.train_data.generator.device().str();
    s.shuffle_state = StateOf(model.train_data.generator);
  }
  s.cpu_state = StateOf(at::detail::getDefaultCPUGenerator());
  for (std::int64_t i = 0; i < cuda_device_count(); ++i)
    s.cuda_states.push_back(StateOf(CudaGenerator(i)));
  s.loss_scale = model.loss_scale;
  WriteCheckpoint(path, s);
}

std::int64_t resume(Handle m, const std::string& path) {
  nn::Model& model = nn::ModelOf("resume", m)->model();
  const CheckpointFile s = ReadCheckpoint(path);

  // Every check before any change.
  const torch::nn::Module& module = model.module->module();
  const NamedList parameters = NamedOf(module.named_parameters());
  const NamedList buffers = NamedOf(module.named_buffers());
  CheckSame("parameter", s.parameters, parameters);
  CheckSame("buffer", s.buffers, buffers);
  const std::vector<at::Tensor> data = model.train_data.tensors();
  if (s.permutation.defined()) {
    const std::int64_t rows = data.empty() ? 0 : FullSize("resume", data);
    if (rows != s.permutation.numel()) {
      Fail(
          "resume: the checkpoint's data order is of %d rows, the model's training data has %d: "
          "give the model its data before resume",
          s.permutation.numel(), rows);
    }
  }
  at::Generator shuffle;
  if (s.shuffle_on) shuffle = GeneratorAt(c10::Device(*s.shuffle_on), s.shuffle_state);
  GeneratorAt(c10::Device(c10::kCPU), s.cpu_state);  // checks the states
  // The CUDA devices this process sees and the checkpoint has a state for.
  const std::size_t cuda_restored =
      std::min(s.cuda_states.size(), static_cast<std::size_t>(cuda_device_count()));
  for (std::size_t i = 0; i < cuda_restored; ++i) GeneratorAt(Cuda(i), s.cuda_states[i]);

  // The optimizer checks its state, then changes; nothing below fails.
  {
    auto scope = Scope::Open();
    opt_load(model_opt(m), s.optimizer);
  }
  {
    const c10::NoGradGuard no_grad;
    for (std::size_t i = 0; i < parameters.size(); ++i)
      parameters[i].second.copy_(s.parameters[i].second);
    for (std::size_t i = 0; i < buffers.size(); ++i) buffers[i].second.copy_(s.buffers[i].second);
  }
  nn::ModelData& d = model.train_data;
  if (!data.empty()) {
    Unshuffle("resume", data, d.permutation);
    if (s.permutation.defined()) Permute("resume", data, s.permutation);
  }
  d.permutation = s.permutation;
  d.generator = shuffle;
  d.next = -1;
  d.hidden.clear();
  SetState(at::detail::getDefaultCPUGenerator(), s.cpu_state);
  for (std::size_t i = 0; i < cuda_restored; ++i) SetState(CudaGenerator(i), s.cuda_states[i]);
  model.loss_scale = s.loss_scale;
  return s.epoch;
}

}  // namespace kscope
