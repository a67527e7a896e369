// Must NOT compile: with_scope refuses a result type whose handles it cannot see (a struct
// holding a Handle, with no KeepHandles overload), instead of releasing them silently. The test
// `with_scope_refuses_unknown_results` builds this file and expects the static_assert's text.
#include "scope/scope.h"

namespace {

struct TwoHandles {
  kscope::Handle a, b;
};

}  // namespace

int main() {
  const TwoHandles both = kscope::with_scope([] { return TwoHandles{}; });
  return both.a.id() == 0 ? 0 : 1;
}
