// scopes_example — how kscope's scopes own handles.
//
// Every handle belongs to the innermost scope open on its thread when it was created. When a
// scope closes it releases its handles, except the ones it keeps: those move out to the parent
// scope, keeping their id. The program computes y = sum(x*x) and its gradient 2x in nested
// scopes and prints the obj table (ktorch's obj[]) while the scopes are open and after each
// closes. The `scope` column is the depth of the owning scope (0 would be the root).
//
// Run: ./build/examples/scopes_example
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "kscope/kscope.h"

namespace {

// Prints kscope::obj() as the q console prints obj[].
void PrintObjects(const char* title) {
  absl::PrintF("\n%s\n%s", title, kscope::FormatObjects(kscope::obj()));
}

std::string Values(kscope::Handle h) { return absl::StrJoin(kscope::values<float>(h), " "); }

}  // namespace

int main() {
  {
    auto outer = kscope::Scope::Open();  // depth 1: owns what main creates from here on

    kscope::Options grad;
    grad.grad = true;
    const kscope::Handle x = kscope::tensor(std::vector<float>{1, 2, 3}, {}, grad);

    // with_scope runs the lambda in a scope of its own (depth 2): x*x is released when it
    // returns, and the handle it returns (in kscope::sum's Result) moves out to `outer`.
    const kscope::Handle y = kscope::with_scope([&] {
      const kscope::Handle squares = kscope::mul(x, x);
      return kscope::sum(squares);
    });
    kscope::backward(y);  // x's gradient is now dy/dx = 2x
    absl::PrintF("x = %s, y = sum(x*x) = %s\n", Values(x), Values(y));

    kscope::Handle step;
    {
      // A no-grad scope (depth 2) for an update step: x - 0.1 * dy/dx. Only `step` is kept.
      auto inner = kscope::Scope::Open(kscope::GradPolicy::kNoGrad);
      const kscope::Handle dx = kscope::tensor(kscope::grad(x));
      const kscope::Handle scaled = kscope::mul(dx, 0.1);
      absl::PrintF("dy/dx = %s\n", Values(dx));
      step = inner.keep(kscope::sub(x, scaled));
      PrintObjects(
          "inside the inner scope: x and y at depth 1 (x*x, ptr 2, closed with with_scope),\n"
          "dx, 0.1*dx and the step at depth 2");
    }
    PrintObjects("inner scope closed: dx and 0.1*dx are released, the kept step moved to depth 1");
    absl::PrintF("step = x - 0.1 * dy/dx = %s\n", Values(step));
  }
  PrintObjects("outer scope closed: no live handles");

  if (kscope::live_handles() != 0) {
    absl::FPrintF(stderr, "error: %d handle(s) still live\n", kscope::live_handles());
    return 1;
  }
  return 0;
}
