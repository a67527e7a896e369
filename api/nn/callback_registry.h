// Callback modules: the `callback` module kind runs a function the caller supplies instead of
// a fixed computation (ktorch's knn/callback.h, ktorch-api.md §3.6).
//
//   kscope::register_callback("double", [](kscope::Handle m, absl::Span<const kscope::Handle> x) {
//     return kscope::Handle(kscope::mul(x[0], 2.0));
//   });
//   kscope::Handle q = kscope::module({"callback", "", {std::string("double")}, {}, {}});
//
// The module's `fn option names the function: a C++ callable registered here under that name,
// or, for other names, the fallback the q plugin installs (it evaluates the name as q code with
// the host's k()). The function receives the callback module and its 1 to 3 inputs as new
// handles and returns a handle to a tensor or a vector of tensors. Every handle created during
// the call (the arguments, the result and anything else the function makes in the calling
// thread's innermost scope) lives in a scope that closes when the forward returns: a callback
// cannot leak handles, and must return a new handle rather than one it was given.
//
// Errors: the forward throws kscope::Error "callback: no function `name" when neither a
// registered callable nor a fallback knows it, "callback: `name returned a <class>, expecting a
// tensor or vector"; what the function throws passes through (after its handles are released).
// Thread-safety: registration is safe from any thread; a registered function may be called
// from any thread that runs the module.
#ifndef KSCOPE_API_NN_CALLBACK_REGISTRY_H_
#define KSCOPE_API_NN_CALLBACK_REGISTRY_H_

#include <functional>
#include <string>

#include "absl/types/span.h"
#include "runtime/handle.h"

namespace torch::nn {
class Module;
}  // namespace torch::nn

namespace kscope {

using CallbackFunction = std::function<Handle(Handle module, absl::Span<const Handle> inputs)>;
// The function run for names without a registered callable.
using CallbackFallback =
    std::function<Handle(const std::string& name, Handle module, absl::Span<const Handle> inputs)>;

// Registers (or replaces) the callable run by callback modules whose `fn is `name`.
void register_callback(const std::string& name, CallbackFunction f);
// Removes it; false if none was registered.
bool unregister_callback(const std::string& name);
// Installs (or, with null, removes) the fallback.
void set_callback_fallback(CallbackFallback f);

// Runs the function `name` on the module and inputs (used by the callback kind's forward).
Handle run_callback(const std::string& name, Handle module, absl::Span<const Handle> inputs);

// Whether `module` or a module under it is a callback module.
bool has_callback_module(const torch::nn::Module& module);

}  // namespace kscope

#endif  // KSCOPE_API_NN_CALLBACK_REGISTRY_H_
