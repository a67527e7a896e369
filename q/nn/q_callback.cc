#include "q/nn/q_callback.h"

#include <string>

#include "api/nn/callback_registry.h"
#include "q/convert/convert.h"
#include "q/convert/k_abi.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// k(0, fn, m, x..): the handle of the pointer q returns. kscope::Error for a q error or a
// result that is not a pointer.
Handle RunQ(const std::string& fn, Handle module, absl::Span<const Handle> inputs) {
  K m = Pointer(module);
  K r = nullptr;
  switch (inputs.size()) {
    case 1: r = kabi::k(0, fn.c_str(), m, Pointer(inputs[0]), K{nullptr}); break;
    case 2:
      r = kabi::k(0, fn.c_str(), m, Pointer(inputs[0]), Pointer(inputs[1]), K{nullptr});
      break;
    default:
      r = kabi::k(0, fn.c_str(), m, Pointer(inputs[0]), Pointer(inputs[1]), Pointer(inputs[2]),
                  K{nullptr});
  }
  if (r == nullptr) Fail("callback: `%s returned nothing", fn);
  if (r->t == kabi::kError) {
    const std::string error = r->s != nullptr ? r->s : "";
    kabi::r0(r);
    Fail("callback: `%s failed: %s", fn, error);
  }
  if (!IsPointer(r)) {
    const std::string given = KName(r);
    kabi::r0(r);
    Fail("callback: `%s returned a %s, expecting a tensor or vector pointer", fn, given);
  }
  const Handle h = HandleOf(r);
  kabi::r0(r);
  return h;
}

}  // namespace

void InstallCallbackFallback() { set_callback_fallback(RunQ); }

}  // namespace kscope::q
