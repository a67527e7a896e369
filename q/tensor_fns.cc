// Adapters for tensors, vectors and dictionaries: tensor vector dict to.
#include <optional>

#include "api/container.h"
#include "api/pointer.h"
#include "api/tensor.h"
#include "q/args.h"
#include "q/convert.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// Trailing option symbols (`cuda`float`grad), if the last of at least `min_args` args is one.
Options TrailingOptions(const Args& a, std::size_t* count, std::size_t min_args) {
  *count = a.size();
  if (a.size() > min_args && (a.IsSymbolAt(a.size() - 1) || a[a.size() - 1]->t == kabi::kSymbol)) {
    *count = a.size() - 1;
    return Options::Parse(a.fn(), a.SymbolsAt(a.size() - 1));
  }
  return Options();
}

c10::Scalar ScalarAt(const Args& a, std::size_t i) {
  kabi::K x = i < a.size() ? a[i] : nullptr;
  if (x != nullptr && (x->t == -kabi::kFloat || x->t == -kabi::kReal)) {
    return c10::Scalar(x->t == -kabi::kFloat ? x->f : static_cast<double>(x->e));
  }
  if (x != nullptr && x->t == -kabi::kBoolean) return c10::Scalar(x->g != 0);
  return c10::Scalar(a.LongAt(i));
}

// tensor(`mode; ...; [options])
Handle Create(const Args& a) {
  const std::string mode = a.SymbolAt(0);
  std::size_t n = 0;
  const Options o = TrailingOptions(a, &n, 1);
  auto need = [&](std::size_t lo, std::size_t hi) {
    if (n - 1 < lo || n - 1 > hi) {
      Fail("tensor: `%s expects %d to %d arguments after the mode, given %d", mode, lo, hi, n - 1);
    }
  };
  if (mode == "empty" || mode == "zeros" || mode == "ones" || mode == "rand" || mode == "randn") {
    need(1, 1);
    const Shape size = a.LongsAt(1);
    if (mode == "empty") return empty(size, o);
    if (mode == "zeros") return zeros(size, o);
    if (mode == "ones") return ones(size, o);
    return mode == "rand" ? rand(size, o) : randn(size, o);
  }
  if (mode == "full") {
    need(2, 2);
    return full(a.LongsAt(1), ScalarAt(a, 2), o);
  }
  if (mode == "randint") {
    need(2, 3);
    return n == 3 ? randint(0, a.LongAt(1), a.LongsAt(2), o)
                  : randint(a.LongAt(1), a.LongAt(2), a.LongsAt(3), o);
  }
  if (mode == "arange") {
    need(1, 3);
    if (n == 2) return arange(0, ScalarAt(a, 1), 1, o);
    return arange(ScalarAt(a, 1), ScalarAt(a, 2), n == 4 ? ScalarAt(a, 3) : c10::Scalar(1), o);
  }
  if (mode == "linspace") {
    need(3, 3);
    return linspace(ScalarAt(a, 1), ScalarAt(a, 2), a.LongAt(3), o);
  }
  if (mode == "eye") {
    need(1, 2);
    return eye(a.LongAt(1), n == 3 ? std::optional<std::int64_t>(a.LongAt(2)) : std::nullopt, o);
  }
  Fail("tensor: unrecognized creation mode `%s", mode);
}

K Tensor(K x) {
  return Guard([&] {
    const Args a("tensor", x);
    if (a.empty()) return Pointer(tensor(at::Tensor()));
    if (IsPointer(x)) return KFromTensor(tensor(HandleOf(x)));
    if (a.size() > 1 && a.IsSymbolAt(0)) return Pointer(Create(a));
    if (x->t == kabi::kMixed && a.size() == 2 && (a.IsSymbolAt(1) || a[1]->t == kabi::kSymbol)) {
      return Pointer(tensor(TensorFromK("tensor", a[0]), Options::Parse("tensor", a.SymbolsAt(1))));
    }
    return Pointer(tensor(TensorFromK("tensor", x)));
  });
}

// Element handles or data for a consuming constructor.
std::vector<Operand> Operands(const char* fn, K list) {
  std::vector<Operand> items;
  if (list->t != kabi::kMixed) return {Operand(TensorFromK(fn, list))};
  for (long long i = 0; i < list->n; ++i) items.push_back(OperandFromK(fn, kabi::Items(list)[i]));
  return items;
}

bool IsClass(const Args& a, std::size_t i, ObjectClass c) {
  return a.IsPointerAt(i) && mapped(a.PointerAt(i)) && class_(a.PointerAt(i)) == c;
}

K Vector(K x) {
  return Guard([&] {
    const Args a("vector", x);
    if (a.empty()) return Pointer(vector(std::vector<Operand>{}));
    if (IsPointer(x)) return KFromValue(Value(vector(HandleOf(x))));
    if (IsClass(a, 0, ObjectClass::kVector) && (a.size() == 2 || a.size() == 3)) {
      if (a.size() == 2) return KFromTensor(vector(a.PointerAt(0), a.LongAt(1)));
      vector(a.PointerAt(0), a.LongAt(1), a.OperandAt(2));
      return K{nullptr};
    }
    return Pointer(vector(Operands("vector", x)));
  });
}

NamedOperands NamedFromK(K keys, K values) {
  if (keys->t != kabi::kSymbol || values->t != kabi::kMixed || keys->n != values->n) {
    Fail("dict: expecting symbols and a general list of values of the same count");
  }
  NamedOperands items;
  for (long long i = 0; i < keys->n; ++i) {
    items.emplace_back(kabi::Symbols(keys)[i], OperandFromK("dict", kabi::Items(values)[i]));
  }
  return items;
}

K Dict(K x) {
  return Guard([&] {
    const Args a("dict", x);
    if (IsPointer(x)) return KFromValue(Value(dict(HandleOf(x))));
    if (x->t == kabi::kDictionary) return Pointer(dict(NamedFromK(kabi::DictKeys(x), kabi::DictValues(x))));
    if (IsClass(a, 0, ObjectClass::kDictionary) && (a.size() == 2 || a.size() == 3)) {
      if (a.size() == 2) return KFromTensor(dict(a.PointerAt(0), a.SymbolAt(1)));
      dict(a.PointerAt(0), a.SymbolAt(1), a.OperandAt(2));
      return K{nullptr};
    }
    if (a.size() == 2) return Pointer(dict(NamedFromK(a[0], a[1])));
    a.Unrecognized();
  });
}

K To(K x) {
  return Guard([&] {
    const Args a("to", x);
    if (a.size() != 2) a.Unrecognized();
    to(a.PointerAt(0), Options::Parse("to", a.SymbolsAt(1)));
    return K{nullptr};
  });
}

}  // namespace

std::vector<Export> TensorExports() {
  return {Unary("tensor", Tensor), Unary("vector", Vector), Unary("dict", Dict), Unary("to", To)};
}

}  // namespace kscope::q
