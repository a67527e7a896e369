// The `callback` module kind (api/nn/callback_registry.h): options `fn (the function's name or q
// text), `in (the input types, `tensor each, 1 to 3 of them), `out (`tensor or `vector), and `parms
// and `buffers, tensors by name registered on the module (ktorch-api.md §2.1). Its
// forward opens a scope, gives the function the module and its inputs as new handles, reads
// the tensor(s) behind the handle it returns, and closes the scope, releasing every handle
// made during the call.
#include "api/nn/callback_registry.h"
#include "api/nn/module_families.h"
#include "api/nn/module_object.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "scope/scope.h"

namespace kscope::nn {
namespace {

class CallbackImpl : public torch::nn::Module {
 public:
  explicit CallbackImpl(OptionSet options) : options_(std::move(options)) {
    RegisterNamedTensors(*this, options_);
  }

  ModuleOutput Run(const std::vector<at::Tensor>& x) {
    const std::string& fn = options_.Symbol("fn");
    auto scope = Scope::Open();
    auto spec =
        std::make_shared<ModuleSpec>(ModuleSpec{FindModuleKind("callback"), options_, "", {}});
    const Handle self = Own(Object(std::make_shared<ModuleObject>(
                                ObjectClass::kModule, std::move(spec), shared_from_this())),
                            "callback");
    std::vector<Handle> inputs;
    for (const at::Tensor& t : x) inputs.push_back(Own(Object(t), "callback"));
    const Handle result = run_callback(fn, self, inputs);
    ModuleOutput out;
    bool found = false;
    HandleTable::Global().Read(result, [&](const Object& o) {
      if (const at::Tensor* t = o.tensor()) {
        out = *t;
        found = true;
      } else if (const TensorVector* v = o.vector()) {
        out = *v;
        found = true;
      }
    });
    if (!found) {
      Fail("callback: `%s returned a %s, expecting a tensor or vector", fn,
           ClassName(HandleTable::Global().Info(result).object_class));
    }
    return out;
  }

  at::Tensor forward(const at::Tensor& x) { return SingleOutput("callback", Run({x})); }

 private:
  OptionSet options_;
};

}  // namespace

ModuleKind CallbackKind() {
  std::vector<OptionSpec> options{Required("fn", OptionType::kSymbol),
                                  {"in", OptionType::kSymbols, std::vector<std::string>{"tensor"}},
                                  {"out", OptionType::kSymbol, std::string("tensor")}};
  for (OptionSpec& named : NamedTensorOptions()) options.push_back(std::move(named));
  return ModuleKind{
      "callback",
      std::move(options),
      [](const OptionSet& o) -> std::shared_ptr<torch::nn::Module> {
        for (const std::string& in : o.Symbols("in")) {
          Check(in == "tensor", o, "unrecognized input type `%s, expecting tensor", in);
        }
        Check(!o.Symbols("in").empty() && o.Symbols("in").size() <= 3, o,
              "expecting 1 to 3 inputs, given %d", o.Symbols("in").size());
        Check(o.Symbol("out") == "tensor" || o.Symbol("out") == "vector", o,
              "unrecognized output type `%s, expecting tensor or vector", o.Symbol("out"));
        return std::make_shared<CallbackImpl>(o);
      },
      [](torch::nn::Module& m, const std::vector<at::Tensor>& x) {
        return dynamic_cast<CallbackImpl&>(m).Run(x);
      },
      1,
      3,
      [](const std::shared_ptr<torch::nn::Module>& m) {
        return torch::nn::AnyModule(std::dynamic_pointer_cast<CallbackImpl>(m));
      },
      nullptr};
}

}  // namespace kscope::nn

namespace kscope {

bool has_callback_module(const torch::nn::Module& module) {
  if (dynamic_cast<const nn::CallbackImpl*>(&module) != nullptr) return true;
  for (const auto& child : module.children()) {
    if (has_callback_module(*child)) return true;
  }
  return false;
}

}  // namespace kscope
