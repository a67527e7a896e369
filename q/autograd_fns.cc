// Adapters for autograd: grad backward zerograd nograd detach gradflag.
#include "api/autograd.h"
#include "api/model_run.h"
#include "api/pointer.h"
#include "api/tensor.h"
#include "q/args.h"
#include "q/convert.h"
#include "q/exports.h"
#include "q/guard.h"
#include "q/model_data.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

BackwardMode ModeAt(const Args& a, std::size_t i) {
  const std::string name = a.SymbolAt(i);
  const auto mode = BackwardModeFromName(name);
  if (!mode) Fail("backward: unrecognized mode `%s, expecting one of free retain create createfree", name);
  return *mode;
}

// backward t | backward(t;mode) | backward(t;gradient) | backward(t;gradient;mode) |
// backward m | backward(m;x;y) -> the loss
K Backward(K x) {
  return Guard([&] {
    const Args a("backward", x);
    if (a.size() > 0 && a.IsPointerAt(0) && class_(a.PointerAt(0)) == ObjectClass::kModel) {
      if (a.size() == 1) return KFromTensor(model_backward(a.PointerAt(0)));
      if (a.size() != 3) a.Unrecognized();
      return KFromTensor(model_backward(a.PointerAt(0), DataPartsFromK("backward", a[1]), DataPartsFromK("backward", a[2])));
    }
    if (IsPointer(x)) {
      backward(HandleOf(x));
    } else if (a.size() == 2 && a.IsSymbolAt(1)) {
      backward(a.PointerAt(0), ModeAt(a, 1));
    } else if (a.size() == 2 || a.size() == 3) {
      backward(a.PointerAt(0), a.OperandAt(1), a.size() == 3 ? ModeAt(a, 2) : BackwardMode::kFree);
    } else {
      a.Unrecognized();
    }
    return K{nullptr};
  });
}

K Grad(K x) {
  return Guard([&] {
    if (!IsPointer(x)) Fail("grad: expecting tensor, given %s", KName(x));
    return KFromTensor(grad(HandleOf(x)));
  });
}

// f p for a tensor, vector or dictionary pointer, returning `::`: zerograd nograd
template <void (*Op)(Handle)>
K OnPointer(const char* fn, K x) {
  return Guard([&] {
    Op(Args(fn, x).PointerAt(0));
    return K{nullptr};
  });
}
K Zerograd(K x) { return OnPointer<kscope::zerograd>("zerograd", x); }
K Nograd(K x) { return OnPointer<kscope::nograd>("nograd", x); }

K Detach(K x) {
  return Guard([&] {
    if (!IsPointer(x)) Fail("detach: expecting tensor, given %s", KName(x));
    return KFromResult(detach(HandleOf(x)));
  });
}

// gradflag p -> bool | gradflag(p;flag)
K Gradflag(K x) {
  return Guard([&] {
    const Args a("gradflag", x);
    if (IsPointer(x)) return kabi::kb(gradflag(HandleOf(x)));
    if (a.size() != 2) a.Unrecognized();
    gradflag(a.PointerAt(0), a.BoolAt(1));
    return K{nullptr};
  });
}

}  // namespace

std::vector<Export> AutogradExports() {
  return {Unary("backward", Backward), Unary("grad", Grad),     Unary("zerograd", Zerograd),
          Unary("nograd", Nograd),     Unary("detach", Detach), Unary("gradflag", Gradflag)};
}

}  // namespace kscope::q
