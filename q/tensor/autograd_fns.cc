// Adapters for autograd: grad backward zerograd nograd detach gradflag, with ktorch's argument
// forms (api/tensor/autograd.h); in-place forms return null.
#include <string>
#include <vector>

#include "api/core/pointer.h"
#include "api/model/model_run.h"
#include "api/tensor/autograd.h"
#include "api/tensor/tensor.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/convert/k_model_data.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

BackwardMode ModeAt(const Args& a, std::size_t i) {
  const std::string name = a.SymbolAt(i);
  const auto mode = BackwardModeFromName(name);
  if (!mode)
    Fail("backward: unrecognized mode `%s, expecting one of free retain create createfree", name);
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
      return KFromTensor(model_backward(a.PointerAt(0), DataPartsFromK("backward", a[1]),
                                        DataPartsFromK("backward", a[2])));
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

// grad t -> k array, or null without a gradient | grad enlist t -> a new pointer to it
K Grad(K x) {
  return Guard([&] {
    if (IsPointer(x)) return KFromTensor(grad(HandleOf(x)));
    const Args a("grad", x);
    if (a.size() != 1 || !a.IsPointerAt(0))
      Fail("grad: expecting tensor or enlisted tensor, given %s", KName(x));
    return Pointer(gradtensor(a.PointerAt(0)));
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

// detach t -> a new tensor | detach(t;flag): in place (null) or new | detach v, detach d: in
// place | detach(v;inds), detach(d;keys): those elements in place
K Detach(K x) {
  return Guard([&] {
    const Args a("detach", x);
    if (!a.IsPointerAt(0))
      Fail("detach: expecting tensor, vector or dictionary pointer, given %s", KName(x));
    const Handle h = a.PointerAt(0);
    if (a.size() == 1) {
      if (class_(h) == ObjectClass::kTensor) return KFromResult(detach(h));
      detach_(h);
    } else if (a.size() != 2) {
      a.Unrecognized();
    } else if (a[1]->t == -kabi::kBoolean) {
      if (!a.BoolAt(1)) return KFromResult(detach(h));
      detach_(h);
    } else if (a.IsSymbolAt(1) || a[1]->t == kabi::kSymbol) {
      detach_(h, a.SymbolsAt(1));
    } else {
      detach_(h, a.LongsAt(1));
    }
    return K{nullptr};
  });
}

K Bools(const std::vector<bool>& flags) {
  K x = kabi::ktn(kabi::kBoolean, static_cast<long long>(flags.size()));
  for (std::size_t i = 0; i < flags.size(); ++i) kabi::Bytes(x)[i] = flags[i];
  return x;
}

// Flags as ktorch shapes them: an atom for a tensor (or one index or key), a boolean list for a
// vector, a dictionary of names -> booleans for a dictionary, module or model.
K KFromFlags(const PerElement<bool>& flags, bool atom) {
  if (atom && flags.is_list()) return kabi::kb(flags.list().at(0));
  if (atom && !flags.is_single()) return kabi::kb(flags.named().at(0).second);
  return KFromShaped(
      flags, [](bool b) { return kabi::kb(b); }, Bools);
}

// gradflag p -> flag(s) | gradflag(p;flag) | gradflag(v;inds[;flag]) | gradflag(d;keys[;flag])
K Gradflag(K x) {
  return Guard([&] {
    const Args a("gradflag", x);
    if (IsPointer(x)) return KFromFlags(gradflags(HandleOf(x)), false);
    const Handle p = a.PointerAt(0);
    if (a.size() == 2 && a[1]->t == -kabi::kBoolean) {
      gradflag(p, a.BoolAt(1));
      return K{nullptr};
    }
    if (a.size() != 2 && a.size() != 3) a.Unrecognized();
    const bool atom = a[1]->t < 0;
    const bool keys = a.IsSymbolAt(1) || a[1]->t == kabi::kSymbol;
    if (a.size() == 2) {
      return KFromFlags(keys ? gradflags(p, a.SymbolsAt(1)) : gradflags(p, a.LongsAt(1)), atom);
    }
    if (keys) {
      gradflag(p, a.SymbolsAt(1), a.BoolAt(2));
    } else {
      gradflag(p, a.LongsAt(1), a.BoolAt(2));
    }
    return K{nullptr};
  });
}

}  // namespace

std::vector<Export> AutogradExports() {
  return {Unary("backward", Backward), Unary("grad", Grad),     Unary("zerograd", Zerograd),
          Unary("nograd", Nograd),     Unary("detach", Detach), Unary("gradflag", Gradflag)};
}

}  // namespace kscope::q
