#include "api/nn/callback_registry.h"

#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "runtime/errors.h"

namespace kscope {
namespace {

struct Registry {
  absl::Mutex mu;
  absl::flat_hash_map<std::string, std::shared_ptr<const CallbackFunction>> functions
      ABSL_GUARDED_BY(mu);
  std::shared_ptr<const CallbackFallback> fallback ABSL_GUARDED_BY(mu);
};

Registry& Callbacks() {
  static Registry* const registry = new Registry;  // never destroyed: callbacks may run at exit
  return *registry;
}

}  // namespace

void register_callback(const std::string& name, CallbackFunction f) {
  auto shared = std::make_shared<const CallbackFunction>(std::move(f));
  absl::MutexLock lock(&Callbacks().mu);
  Callbacks().functions[name] = std::move(shared);
}

bool unregister_callback(const std::string& name) {
  absl::MutexLock lock(&Callbacks().mu);
  return Callbacks().functions.erase(name) > 0;
}

void set_callback_fallback(CallbackFallback f) {
  auto shared = f ? std::make_shared<const CallbackFallback>(std::move(f)) : nullptr;
  absl::MutexLock lock(&Callbacks().mu);
  Callbacks().fallback = std::move(shared);
}

Handle run_callback(const std::string& name, Handle module, absl::Span<const Handle> inputs) {
  std::shared_ptr<const CallbackFunction> f;
  std::shared_ptr<const CallbackFallback> fallback;
  {
    absl::MutexLock lock(&Callbacks().mu);
    if (auto it = Callbacks().functions.find(name); it != Callbacks().functions.end())
      f = it->second;
    fallback = Callbacks().fallback;
  }
  // Called without the lock: the function may register others or run other callbacks.
  if (f) return (*f)(module, inputs);
  if (fallback) return (*fallback)(name, module, inputs);
  Fail("callback: no function `%s (register one with kscope::register_callback)", name);
}

}  // namespace kscope
