#include "q/convert/math_args.h"

#include "q/convert/convert.h"

namespace kscope::q {

bool IsWholeInput(kabi::K x) { return IsPointer(x) || x->t != kabi::kMixed; }

Operand SoleInput(const Args& a, kabi::K x) {
  if (a.empty()) a.Unrecognized();
  return IsWholeInput(x) ? InputFromK(a.fn(), x) : a.InputAt(0);
}

Handle OutputAt(const Args& a, std::size_t inputs) {
  if (a.size() == inputs) return Handle();
  if (a.size() == inputs + 1 && a.IsPointerAt(inputs)) return a.PointerAt(inputs);
  a.Unrecognized();
}

}  // namespace kscope::q
