// Adapters for tensors, vectors and dictionaries: tensor vector dict.
//
// tensor's forms, told apart as ktorch tells them: () -> an empty float tensor; a pointer -> a
// tensor's values, or a vector's/dictionary's elements as new pointers; (`mode;..) -> a creation
// mode (api/tensor/tensor_creation.h), its _like form when arg 1 is an example (a pointer, or k
// data that cannot be a size), its out form when a trailing pointer is not one of its arguments;
// (pointer;..) -> selected values, or one element of a vector/dictionary; (x;options);
// (x;out pointer) -> x copied into out; any other k data -> a new tensor.
#include <optional>
#include <string>
#include <utility>

#include <ATen/ops/empty.h>

#include "api/core/pointer.h"
#include "api/tensor/container.h"
#include "api/tensor/tensor.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/env/settings.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"
#include "runtime/object_class.h"

namespace kscope::q {
namespace {

using kabi::K;

bool IsOptions(const Args& a, std::size_t i) {
  return a.IsSymbolAt(i) || (i < a.size() && a[i]->t == kabi::kSymbol);
}

bool IsIntegerAtom(K x) {
  return x->t == -kabi::kLong || x->t == -kabi::kInt || x->t == -kabi::kShort ||
         x->t == -kabi::kByte;
}
bool IsIntegers(K x) {
  return IsIntegerAtom(x) || x->t == kabi::kLong || x->t == kabi::kInt || x->t == kabi::kShort ||
         x->t == kabi::kByte;
}

// tensor(`mode; args...; [options | out]), decoded.
struct Creation {
  std::string mode;
  bool like = false;  // arg 1 is an example tensor (a pointer, or k data that is not a size)
  std::size_t n = 0;  // arguments after the mode, options and out excluded
  Options options;
  Handle out;
};

Creation Decode(const Args& a) {
  Creation c;
  c.mode = a.SymbolAt(0);
  const CreationMode* mode = &creation_mode(c.mode);
  // randint's first argument is an atom (low or high), the others' a size.
  c.like = mode->like_max > 0 && a.size() > 1 &&
           (a.IsPointerAt(1) || !(c.mode == "randint" ? IsIntegerAtom(a[1]) : IsIntegers(a[1])));
  std::size_t last = a.size() - 1;
  if (last >= 1 && IsOptions(a, last)) {
    c.options = Options::Parse("tensor", a.SymbolsAt(last--));
  }
  const std::size_t max = c.like ? mode->like_max : mode->max;
  if (last >= 2 && a.IsPointerAt(last) && !c.like && (!mode->takes_tensors || last > max)) {
    if (last + 1 < a.size()) Fail("tensor: options cannot be given with an output tensor");
    c.out = a.PointerAt(last--);
  }
  c.n = last;
  const std::size_t min = c.like ? mode->like_min : mode->min;
  if (c.n < min || c.n > max) {
    Fail("tensor: `%s%s expects %d to %d arguments after the mode, given %d", c.mode,
         c.like ? " (like an example tensor)" : "", min, max, c.n);
  }
  return c;
}

// The _like forms: arg 1 is the example.
Handle CreateLike(const Args& a, const Creation& c) {
  const Operand example = a.InputAt(1);
  const Options& o = c.options;
  if (c.mode == "empty") return empty_like(example, o);
  if (c.mode == "zeros") return zeros_like(example, o);
  if (c.mode == "ones") return ones_like(example, o);
  if (c.mode == "rand") return rand_like(example, o);
  if (c.mode == "randn") return randn_like(example, o);
  if (c.mode == "full") return full_like(example, a.ScalarAt(2), o);
  return c.n == 2 ? randint_like(example, 0, a.LongAt(2), o)
                  : randint_like(example, a.LongAt(2), a.LongAt(3), o);
}

// The modes whose only argument is a size.
struct SizeMode {
  const char* name;
  Handle (*make)(const Shape&, const Options&);
  void (*write)(Handle, const Shape&);
};
constexpr SizeMode kSizeModes[] = {
    {"empty", kscope::empty, kscope::empty_out}, {"zeros", kscope::zeros, kscope::zeros_out},
    {"ones", kscope::ones, kscope::ones_out},    {"rand", kscope::rand, kscope::rand_out},
    {"randn", kscope::randn, kscope::randn_out},
};

// Runs `make` (the new-tensor form) or `write` (the out form) as the call asks.
template <typename Make, typename Write>
K MakeOrWrite(const Creation& c, Make make, Write write) {
  if (c.out.is_null()) return Pointer(make(c.options));
  write(c.out);
  return K{nullptr};
}

K Create(const Args& a) {
  const Creation c = Decode(a);
  if (c.like) return Pointer(CreateLike(a, c));
  const std::string& m = c.mode;
  const std::size_t n = c.n;
  for (const SizeMode& mode : kSizeModes) {
    if (m != mode.name) continue;
    const Shape size = a.LongsAt(1);
    return MakeOrWrite(
        c, [&](const Options& o) { return mode.make(size, o); },
        [&](Handle out) { mode.write(out, size); });
  }
  if (m == "full") {
    const Shape size = a.LongsAt(1);
    const c10::Scalar value = a.ScalarAt(2);
    return MakeOrWrite(
        c, [&](const Options& o) { return full(size, value, o); },
        [&](Handle out) { full_out(out, size, value); });
  }
  if (m == "randint") {
    const std::int64_t low = n == 3 ? a.LongAt(1) : 0, high = a.LongAt(n - 1);
    const Shape size = a.LongsAt(n);
    return MakeOrWrite(
        c, [&](const Options& o) { return randint(low, high, size, o); },
        [&](Handle out) { randint_out(out, low, high, size); });
  }
  if (m == "randperm") {
    const std::int64_t count = a.LongAt(1);
    return MakeOrWrite(
        c, [&](const Options& o) { return randperm(count, o); },
        [&](Handle out) { randperm_out(out, count); });
  }
  if (m == "arange" || m == "range") {
    const c10::Scalar start = n == 1 ? c10::Scalar(0) : a.ScalarAt(1);
    const c10::Scalar end = a.ScalarAt(n == 1 ? 1 : 2);
    const c10::Scalar step = n == 3 ? a.ScalarAt(3) : c10::Scalar(1);
    if (m == "range") {
      return MakeOrWrite(
          c, [&](const Options& o) { return range(start, end, step, o); },
          [&](Handle out) { range_out(out, start, end, step); });
    }
    return MakeOrWrite(
        c, [&](const Options& o) { return arange(start, end, step, o); },
        [&](Handle out) { arange_out(out, start, end, step); });
  }
  if (m == "linspace" || m == "logspace") {
    const c10::Scalar start = a.ScalarAt(1), end = a.ScalarAt(2);
    const std::int64_t steps = n >= 3 ? a.LongAt(3) : kDefaultSpaceSteps;
    if (m == "linspace") {
      return MakeOrWrite(
          c, [&](const Options& o) { return linspace(start, end, steps, o); },
          [&](Handle out) { linspace_out(out, start, end, steps); });
    }
    const double base = n == 4 ? a.ScalarAt(4).toDouble() : 10.0;
    return MakeOrWrite(
        c, [&](const Options& o) { return logspace(start, end, steps, base, o); },
        [&](Handle out) { logspace_out(out, start, end, steps, base); });
  }
  if (m == "eye") {
    const std::int64_t rows = a.LongAt(1);
    const std::optional<std::int64_t> cols =
        n == 2 ? std::optional<std::int64_t>(a.LongAt(2)) : std::nullopt;
    return MakeOrWrite(
        c, [&](const Options& o) { return eye(rows, cols, o); },
        [&](Handle out) { eye_out(out, rows, cols); });
  }
  if (m == "complex") {
    const Operand real = a.InputAt(1), imag = a.InputAt(2);
    return MakeOrWrite(
        c, [&](const Options& o) { return complex(real, imag, o); },
        [&](Handle out) { complex_out(out, real, imag); });
  }
  // sparse: the new tensor keeps its indices and values, so k data is copied
  return Pointer(
      sparse_coo(a.OperandAt(1), a.OperandAt(2), n == 3 ? a.LongsAt(3) : Shape{}, c.options));
}

// tensor(t; [flag;] [[dim;] ind]): t's values, or those selected along dim (0 by default);
// flag overrides the complexfirst setting for complex values.
K Values(const Args& a) {
  const Handle t = a.PointerAt(0);
  std::size_t i = 1;
  const bool complex_first =
      a.size() > 1 && a[1]->t == -kabi::kBoolean ? a.BoolAt(i++) : ComplexFirst();
  const std::size_t rest = a.size() - i;
  if (rest == 0) return KFromTensorComplexFirst(tensor(t), complex_first);
  if (rest > 2) a.Unrecognized();
  const std::int64_t dim = rest == 2 ? a.LongAt(i++) : 0;
  const at::Tensor selected = i < a.size() && IsIntegerAtom(a[i]) ? tensor(t, dim, a.LongAt(i))
                                                                  : tensor(t, dim, a.LongsAt(i));
  return KFromTensorComplexFirst(selected, complex_first);
}

// tensor p for a pointer: a tensor's values; a vector's or dictionary's elements as new pointers.
K FromPointer(Handle h) {
  switch (class_(h)) {
    case ObjectClass::kTensor: return KFromTensor(tensor(h));
    case ObjectClass::kVector: {
      const std::vector<Handle> handles = element_handles(h);
      K x = kabi::ktn(kabi::kMixed, static_cast<long long>(handles.size()));
      for (std::size_t i = 0; i < handles.size(); ++i) kabi::Items(x)[i] = Pointer(handles[i]);
      return x;
    }
    case ObjectClass::kDictionary: return KDictionary(named_element_handles(h), Pointer);
    default: Fail("tensor: expecting tensor, vector or dictionary, given %s", ClassName(class_(h)));
  }
}

// tensor(v;i) / tensor(d;key): one element as a new pointer; tensor(t;...): values.
K FromPointerAndIndex(const Args& a) {
  const Handle h = a.PointerAt(0);
  switch (class_(h)) {
    case ObjectClass::kTensor: return Values(a);
    case ObjectClass::kVector:
      if (a.size() != 2) a.Unrecognized();
      return Pointer(element_handle(h, a.LongAt(1)));
    case ObjectClass::kDictionary:
      if (a.size() != 2) a.Unrecognized();
      return Pointer(element_handle(h, a.SymbolAt(1)));
    default: Fail("tensor: expecting tensor, vector or dictionary, given %s", ClassName(class_(h)));
  }
}

K Tensor(K x) {
  return Guard([&] {
    const Args a("tensor", x);
    if (a.empty()) return Pointer(tensor(at::empty({0}, at::kFloat)));  // ktorch: () is 0 floats
    if (IsPointer(x)) return FromPointer(HandleOf(x));
    if (a.size() > 1 && a.IsSymbolAt(0)) return Create(a);
    if (x->t == kabi::kMixed && a.IsPointerAt(0)) return FromPointerAndIndex(a);
    if (x->t == kabi::kMixed && a.size() == 2 && IsOptions(a, 1)) {
      return Pointer(tensor(TensorFromK("tensor", a[0]), Options::Parse("tensor", a.SymbolsAt(1))));
    }
    if (x->t == kabi::kMixed && a.size() == 2 && a.IsPointerAt(1)) {
      tensor_out(a.PointerAt(1), TensorViewOfK("tensor", a[0]));
      return K{nullptr};
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

K Vector(K x) {
  return Guard([&] {
    const Args a("vector", x);
    if (a.empty()) return Pointer(vector(std::vector<Operand>{}));
    if (IsPointer(x)) return KFromValue(Value(vector(HandleOf(x))));
    if ((a.size() == 2 || a.size() == 3) && IsPointerTo(a[0], ObjectClass::kVector)) {
      if (a.size() == 2 && a[1]->t > 0) {  // several indices: their values, as a list
        TensorVector picked;
        for (std::int64_t i : a.LongsAt(1)) picked.push_back(vector(a.PointerAt(0), i));
        return KFromValue(Value(std::move(picked)));
      }
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
    if (a.empty()) return Pointer(dict(NamedOperands{}));  // dict() -> an empty dictionary
    if (IsPointer(x)) return KFromValue(Value(dict(HandleOf(x))));
    if (x->t == kabi::kDictionary)
      return Pointer(dict(NamedFromK(kabi::DictKeys(x), kabi::DictValues(x))));
    if ((a.size() == 2 || a.size() == 3) && IsPointerTo(a[0], ObjectClass::kDictionary)) {
      if (a.size() == 2 && a[1]->t == kabi::kSymbol) {  // several keys: their values, as a list
        TensorVector picked;
        for (const std::string& key : a.SymbolsAt(1)) picked.push_back(dict(a.PointerAt(0), key));
        return KFromValue(Value(std::move(picked)));
      }
      if (a.size() == 2) return KFromTensor(dict(a.PointerAt(0), a.SymbolAt(1)));
      dict(a.PointerAt(0), a.SymbolAt(1), a.OperandAt(2));
      return K{nullptr};
    }
    if (a.size() == 2) return Pointer(dict(NamedFromK(a[0], a[1])));
    Fail("dict: not implemented for %s", KName(x));
  });
}

}  // namespace

std::vector<Export> TensorExports() {
  return {Unary("tensor", Tensor), Unary("vector", Vector), Unary("dict", Dict)};
}

}  // namespace kscope::q
