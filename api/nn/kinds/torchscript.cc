// The `torchscript` module kind: a module saved by torch.jit.save (torch.jit.script or trace
// output) loaded from option `file, on the CPU (move it with `to`). Its libtorch module mirrors
// the TorchScript module's tree: each submodule a child of the same name holding the same
// tensors (the same TensorImpls, so optimizer steps, `to` and loaded values reach the
// TorchScript module, which forward runs), under PyTorch's names. Its forward takes one to three
// tensors and gives a tensor, or several for a tuple or list of tensors.

#include <torch/csrc/jit/serialization/import.h>

#include "absl/strings/strip.h"
#include "api/core/file_access.h"
#include "api/nn/kinds/torchscript.h"
#include "api/nn/module_families.h"
#include "runtime/errors.h"
#include "runtime/failure_text.h"

namespace kscope::nn {
namespace {

constexpr char kTorchScriptKind[] = "torchscript";

// A submodule of a TorchScript module, as a libtorch module sharing its tensors.
class ScriptPartImpl : public torch::nn::Module {};

// Registers script's parameters, buffers and (mirrored) submodules on `mirror`, by name.
void Mirror(const torch::jit::Module& script, torch::nn::Module& mirror) {
  for (const auto& p : script.named_parameters(/*recurse=*/false))
    mirror.register_parameter(p.name, p.value, p.value.requires_grad());
  for (const auto& b : script.named_buffers(/*recurse=*/false))
    mirror.register_buffer(b.name, b.value);
  for (const auto& c : script.named_children()) {
    auto part = std::make_shared<ScriptPartImpl>();
    Mirror(c.value, *part);
    mirror.register_module(c.name, part);
  }
}

torch::jit::Module Load(const std::string& path) {
  RequireReadable(kTorchScriptKind, path);
  try {
    return torch::jit::load(path, c10::Device(c10::kCPU));
  } catch (const std::exception& e) {  // c10::Error, or the compiler's torch::jit::ErrorReport
    Fail("%s: %s is not a TorchScript module (%s)", kTorchScriptKind, path, FailureText(e));
  }
}

class TorchScriptImpl : public torch::nn::Module {
 public:
  explicit TorchScriptImpl(const torch::jit::Module& script) : script_(script) {
    Mirror(script_, *this);
    torch::nn::Module::train(script_.is_training());
  }

  void train(bool on) override {
    script_.train(on);
    torch::nn::Module::train(on);
  }

  ModuleOutput Run(const std::vector<at::Tensor>& x) {
    const c10::IValue out = script_.forward(std::vector<c10::IValue>(x.begin(), x.end()));
    if (out.isTensor()) return out.toTensor();
    std::vector<at::Tensor> several;
    if (out.isTuple()) {
      for (const c10::IValue& v : out.toTupleRef().elements()) {
        if (!v.isTensor()) break;
        several.push_back(v.toTensor());
      }
      if (several.size() == out.toTupleRef().elements().size()) return several;
    } else if (out.isTensorList()) {
      return out.toTensorVector();
    }
    Fail("%s: forward returned %s, expecting a tensor, or a tuple or list of tensors",
         kTorchScriptKind, out.tagKind());
  }

  at::Tensor forward(const at::Tensor& x) { return SingleOutput(kTorchScriptKind, Run({x})); }

  torch::jit::Module& script() { return script_; }

 private:
  torch::jit::Module script_;
};

}  // namespace

torch::jit::Module* ScriptModuleOf(torch::nn::Module& m) {
  auto* impl = dynamic_cast<TorchScriptImpl*>(&m);
  return impl == nullptr ? nullptr : &impl->script();
}

ModuleKind TorchScriptKind() {
  return ModuleKind{kTorchScriptKind,
                    {Required("file", OptionType::kSymbol)},
                    [](const OptionSet& o) -> std::shared_ptr<torch::nn::Module> {
                      return std::make_shared<TorchScriptImpl>(
                          Load(std::string(absl::StripPrefix(o.Symbol("file"), ":"))));
                    },
                    [](torch::nn::Module& m, const std::vector<at::Tensor>& x) {
                      return dynamic_cast<TorchScriptImpl&>(m).Run(x);
                    },
                    1,
                    3,
                    [](const std::shared_ptr<torch::nn::Module>& m) {
                      return torch::nn::AnyModule(std::dynamic_pointer_cast<TorchScriptImpl>(m));
                    },
                    nullptr};
}

}  // namespace kscope::nn
