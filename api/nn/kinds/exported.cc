// The `pt2` module kind: a torch.export program compiled by AOTInductor into a `.pt2` package
// (torch._inductor.aoti_compile_and_package), loaded from option `file with libtorch's
// AOTIModelPackageLoader, as an inference-only module. The package holds its weights as
// compiled constants, so the module has no parameters or buffers; its forward moves the inputs
// to the device the package was compiled for (metadata AOTI_DEVICE_KEY) and returns the
// package's outputs (one tensor, or several). It refuses training: train(true) — `training`,
// run, a model's training epoch — fails, naming the kind. Only the libtorch 2.x line has the
// loader; on 1.13 making one fails, saying so.

#include <torch/version.h>

#include "absl/strings/strip.h"
#include "api/core/file_access.h"
#include "api/nn/module_families.h"
#include "runtime/errors.h"
#include "runtime/failure_text.h"

#if __has_include(<torch/csrc/inductor/aoti_package/model_package_loader.h>)
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#define KSCOPE_HAS_AOTI_PACKAGES 1
#endif

namespace kscope::nn {
namespace {

constexpr char kPt2Kind[] = "pt2";

#ifdef KSCOPE_HAS_AOTI_PACKAGES

class ExportedImpl : public torch::nn::Module {
 public:
  explicit ExportedImpl(const std::string& path) : package_(Load(path)) {
    const auto metadata = package_->get_metadata();
    const auto device = metadata.find("AOTI_DEVICE_KEY");
    if (device != metadata.end()) device_ = c10::Device(device->second);
    torch::nn::Module::train(false);
  }

  void train(bool on) override {
    if (on) {
      Fail(
          "%s: a torch.export package runs inference only: it has no parameters to train "
          "(use forward, nforward or evaluate)",
          kPt2Kind);
    }
    torch::nn::Module::train(false);
  }

  ModuleOutput Run(const std::vector<at::Tensor>& x) {
    std::vector<at::Tensor> inputs;
    for (const at::Tensor& t : x) inputs.push_back(t.to(device_));
    std::vector<at::Tensor> out = package_->run(inputs);
    if (out.size() == 1) return std::move(out[0]);
    return out;
  }

  at::Tensor forward(const at::Tensor& x) { return SingleOutput(kPt2Kind, Run({x})); }

 private:
  static std::unique_ptr<torch::inductor::AOTIModelPackageLoader> Load(const std::string& path) {
    RequireReadable(kPt2Kind, path);
    try {
      return std::make_unique<torch::inductor::AOTIModelPackageLoader>(path);
    } catch (const std::exception& e) {
      Fail("%s: %s is not a torch.export package compiled by AOTInductor (%s)", kPt2Kind, path,
           FailureText(e));
    }
  }

  std::unique_ptr<torch::inductor::AOTIModelPackageLoader> package_;
  c10::Device device_{c10::kCPU};
};

std::shared_ptr<torch::nn::Module> Make(const OptionSet& o) {
  return std::make_shared<ExportedImpl>(std::string(absl::StripPrefix(o.Symbol("file"), ":")));
}

ModuleOutput Forward(torch::nn::Module& m, const std::vector<at::Tensor>& x) {
  return dynamic_cast<ExportedImpl&>(m).Run(x);
}

torch::nn::AnyModule Wrap(const std::shared_ptr<torch::nn::Module>& m) {
  return torch::nn::AnyModule(std::dynamic_pointer_cast<ExportedImpl>(m));
}

#else  // libtorch 1.13: no AOTInductor

[[noreturn]] void Refuse() {
  Fail(
      "%s: torch.export packages need libtorch 2.x (AOTInductor's package loader); this kscope "
      "is built on libtorch %s",
      kPt2Kind, TORCH_VERSION);
}

std::shared_ptr<torch::nn::Module> Make(const OptionSet&) { Refuse(); }
ModuleOutput Forward(torch::nn::Module&, const std::vector<at::Tensor>&) { Refuse(); }
torch::nn::AnyModule Wrap(const std::shared_ptr<torch::nn::Module>&) { Refuse(); }

#endif

}  // namespace

ModuleKind ExportedKind() {
  return ModuleKind{kPt2Kind, {Required("file", OptionType::kSymbol)}, Make, Forward, 1, 3, Wrap,
                    nullptr};
}

}  // namespace kscope::nn
