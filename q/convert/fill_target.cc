#include "q/convert/fill_target.h"

#include "api/core/pointer.h"
#include "q/convert/convert.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

bool IsIntegerType(K x) {
  const int t = x->t < 0 ? -x->t : x->t;
  return t == kabi::kShort || t == kabi::kInt || t == kabi::kLong;
}

}  // namespace

bool NoOptionSymbols(const std::string&) { return false; }

FillTarget FillTargetOf(const Args& a, std::size_t required,
                        bool (*is_option)(const std::string&)) {
  if (a.empty()) a.Unrecognized();
  if (!a.IsPointerAt(0)) return FillTarget{init::Target(TensorFromK(a.fn(), a[0])), 1, true};
  const Handle h = a.PointerAt(0);
  if (a.size() < 2 + required) return FillTarget{init::Target(h), 1, false};
  const ObjectClass c = class_(h);
  K s = a[1];
  if (c == ObjectClass::kVector && IsIntegerType(s))
    return FillTarget{init::Target(h, a.LongsAt(1)), 2, false};
  const bool names = s->t == kabi::kSymbol || (s->t == -kabi::kSymbol && !is_option(a.SymbolAt(1)));
  if ((c == ObjectClass::kDictionary || c == ObjectClass::kModule || c == ObjectClass::kModel) &&
      names) {
    return FillTarget{init::Target(h, a.SymbolsAt(1)), 2, false};
  }
  return FillTarget{init::Target(h), 1, false};
}

}  // namespace kscope::q
