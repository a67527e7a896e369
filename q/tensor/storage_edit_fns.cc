// Adapters for editing a tensor's storage in place (api/tensor/storage_edit.h): amend reset resize
// filldiagonal. A pointer in -> edited in place, null out; k data in (resize, filldiagonal) ->
// the edited k array out.
#include <string>
#include <vector>

#include "api/core/pointer.h"
#include "api/tensor/storage_edit.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// The values for a vector's indices or a dictionary's keys: one value for an atom selection,
// a general list of `count` values for a list.
std::vector<Operand> ValuesFor(const Args& a, bool atom, std::size_t count) {
  if (atom) return {a.InputAt(2)};
  K values = a[2];
  if (values->t != kabi::kMixed || IsPointer(values) ||
      static_cast<std::size_t>(values->n) != count) {
    Fail("amend: expecting a general list of %d values, one per index or key, given %s", count,
         KName(values));
  }
  std::vector<Operand> operands;
  for (long long i = 0; i < values->n; ++i)
    operands.push_back(InputFromK("amend", kabi::Items(values)[i]));
  return operands;
}

// amend(t;vals[;async]) | amend(v;i;vals[;async]) | amend(d;key;vals[;async]) -> null
K Amend(K x) {
  return Guard([&] {
    const Args a("amend", x);
    const Handle p = a.PointerAt(0);
    const ObjectClass c = class_(p);
    const std::size_t values_at = c == ObjectClass::kTensor ? 1 : 2;
    if (a.size() != values_at + 1 && a.size() != values_at + 2) a.Unrecognized();
    const bool async = a.size() == values_at + 2 && a.BoolAt(values_at + 1);
    const bool atom = a[1]->t < 0;
    if (c == ObjectClass::kTensor) {
      amend(p, a.InputAt(1), async);
    } else if (c == ObjectClass::kDictionary) {
      const std::vector<std::string> keys = a.SymbolsAt(1);
      amend(p, keys, ValuesFor(a, atom, keys.size()), async);
    } else if (c == ObjectClass::kVector) {
      const std::vector<std::int64_t> indices = a.LongsAt(1);
      amend(p, indices, ValuesFor(a, atom, indices.size()), async);
    } else {
      Fail("amend: expected tensor, vector or dictionary, given %s", ClassName(c));
    }
    return K{nullptr};
  });
}

// reset(t;offset[;sizes[;strides]]) -> null
K Reset(K x) {
  return Guard([&] {
    const Args a("reset", x);
    if (a.size() < 2 || a.size() > 4) a.Unrecognized();
    reset(a.PointerAt(0), a.LongAt(1), a.size() > 2 ? std::optional(a.LongsAt(2)) : std::nullopt,
          a.size() > 3 ? std::optional(a.LongsAt(3)) : std::nullopt);
    return K{nullptr};
  });
}

// resize(x;size)
K Resize(K x) {
  return Guard([&] {
    const Args a("resize", x);
    if (a.size() != 2) a.Unrecognized();
    return KFromResult(resize(a.InputAt(0), a.LongsAt(1)));
  });
}

// filldiagonal(x;value[;wrap])
K Filldiagonal(K x) {
  return Guard([&] {
    const Args a("filldiagonal", x);
    if (a.size() != 2 && a.size() != 3) a.Unrecognized();
    if (a[1]->t >= 0 || IsSymbol(a[1]))
      Fail("filldiagonal: arg[1] expected numeric scalar, given %s", KName(a[1]));
    const c10::Scalar value = TensorFromK("filldiagonal", a[1]).item();
    return KFromResult(filldiagonal(a.InputAt(0), value, a.size() == 3 && a.BoolAt(2)));
  });
}

}  // namespace

std::vector<Export> StorageEditExports() {
  return {Unary("amend", Amend), Unary("reset", Reset), Unary("resize", Resize),
          Unary("filldiagonal", Filldiagonal)};
}

}  // namespace kscope::q
