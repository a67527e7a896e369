#include "q/convert/convert.h"

#include <array>
#include <cstring>
#include <variant>

#include <ATen/EmptyTensor.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/view_as_real.h>
#include <c10/core/ScalarType.h>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/core/pointer.h"
#include "api/core/values.h"
#include "q/env/settings.h"
#include "runtime/errors.h"
#include "scope/scope_stack.h"

namespace kscope::q {
namespace {

using kabi::Items;

// k's basic types and the tensor types they convert to, both ways: the pairing once, indexed by
// k type (Undefined: no tensor type), and its reverse built from it at compile time.
constexpr std::array<c10::ScalarType, kabi::kChar + 1> kTorchTypes = {
    c10::ScalarType::Undefined, c10::ScalarType::Bool, c10::ScalarType::Undefined,
    c10::ScalarType::Undefined, c10::ScalarType::Byte, c10::ScalarType::Short,
    c10::ScalarType::Int,       c10::ScalarType::Long, c10::ScalarType::Float,
    c10::ScalarType::Double,    c10::ScalarType::Char};
constexpr auto kKTypes = [] {
  std::array<signed char, static_cast<std::size_t>(c10::ScalarType::NumOptions)> k{};
  for (std::size_t i = 0; i < kTorchTypes.size(); ++i) {
    if (kTorchTypes[i] != c10::ScalarType::Undefined)
      k[static_cast<std::size_t>(kTorchTypes[i])] = static_cast<signed char>(i);
  }
  return k;
}();

std::optional<c10::ScalarType> TorchType(signed char k) {
  if (k < 0 || static_cast<std::size_t>(k) >= kTorchTypes.size() ||
      kTorchTypes[k] == c10::ScalarType::Undefined)
    return std::nullopt;
  return kTorchTypes[k];
}

// The k type a tensor of `t` reads as in place, or 0.
signed char DirectKType(c10::ScalarType t) { return kKTypes[static_cast<std::size_t>(t)]; }

// The k type a (real) tensor of `t` converts to; half and bfloat16 come back as real.
signed char KType(c10::ScalarType t) {
  if (t == c10::ScalarType::Half || t == c10::ScalarType::BFloat16) return kabi::kReal;
  if (const signed char k = DirectKType(t)) return k;
  Fail("tensor: no k type for %s tensors", c10::toString(t));
}

constexpr std::array<const char*, 20> kTypeNames = {
    "",     "boolean",  "guid",     "",       "byte",   "short",     "int",
    "long", "real",     "float",    "char",   "symbol", "timestamp", "month",
    "date", "datetime", "timespan", "minute", "second", "time"};

}  // namespace

K Null() {
  K x = kabi::ka(kabi::kUnaryPrimitive);
  x->g = 0;
  return x;
}

bool IsPointerTo(K x, ObjectClass c) { return IsPointer(x) && class_if_mapped(HandleOf(x)) == c; }

K Pointer(Handle h) { return kabi::knk(1, kabi::kj(static_cast<long long>(h.id()))); }

std::string KName(K x) {
  if (x == nullptr) return "null";
  const int t = x->t;
  if (t < 0 && -t < static_cast<int>(kTypeNames.size()) && *kTypeNames[-t]) {
    return absl::StrCat(kTypeNames[-t], " scalar");
  }
  if (t > 0 && t < static_cast<int>(kTypeNames.size()) && *kTypeNames[t]) {
    return absl::StrCat(kTypeNames[t], " list");
  }
  switch (t) {
    case kabi::kMixed:
      if (IsPointer(x)) {
        const std::optional<ObjectClass> c = class_if_mapped(HandleOf(x));
        return c ? std::string(ClassName(*c)) : "stale pointer";
      }
      return "general list";
    case kabi::kTable: return "table";
    case kabi::kDictionary: return "kdictionary";
    case kabi::kLambda: return "lambda";
    case kabi::kUnaryPrimitive: return "null/unary primitive";
    case kabi::kDynamicLoad: return "dynamic load function";
    case kabi::kError: return "error";
    default: return absl::StrCat("type ", t);
  }
}

K Symbol(const std::string& s) { return kabi::ks(kabi::ss(const_cast<char*>(s.c_str()))); }

bool IsSymbol(K x) { return x != nullptr && x->t == -kabi::kSymbol; }

std::string SymbolText(K atom) { return atom->s; }

K Symbols(const std::vector<std::string>& names) {
  K v = kabi::ktn(kabi::kSymbol, static_cast<long long>(names.size()));
  for (std::size_t i = 0; i < names.size(); ++i) {
    kabi::Symbols(v)[i] = kabi::ss(const_cast<char*>(names[i].c_str()));
  }
  return v;
}

namespace {

// The dtype of a simple k value (an atom or a vector of a basic type); error otherwise.
inline c10::ScalarType SimpleType(const char* fn, K x) {
  const auto type = TorchType(static_cast<signed char>(x->t < 0 ? -x->t : x->t));
  if (!type) Fail("%s: unable to convert %s to a tensor", fn, KName(x));
  return *type;
}

// Where a simple k value's items are.
void* SimpleData(K x) { return x->t < 0 ? static_cast<void*>(&x->g) : kabi::Payload(x); }

// A k value's tensor shape, kept inline (no heap allocation per conversion) up to 8 dimensions.
using Shape = absl::InlinedVector<std::int64_t, 8>;
Shape SimpleShape(K x) { return x->t < 0 ? Shape{} : Shape{x->n}; }
at::IntArrayRef Sizes(const Shape& shape) { return at::IntArrayRef(shape.data(), shape.size()); }

// A new CPU tensor of `shape` and `type`, its memory unset. Straight to the CPU allocation
// at::empty's kernel makes, without the dispatcher's trip (a third of a small conversion's cost).
at::Tensor EmptyCpu(const Shape& shape, c10::ScalarType type) {
  return at::detail::empty_cpu(Sizes(shape), type);
}

}  // namespace

namespace {

// A rectangular nesting of general lists whose leaves are simple values of one type: its
// shape (lists' counts, then the leaves' own shape) and its first leaf, whose type and count
// every other leaf must have.
struct Nesting {
  Shape shape;
  K first_leaf = nullptr;
  std::size_t leaf_depth = 0;  // how many list levels lie above the leaves
};

[[noreturn]] void Ragged(const char* fn) {
  Fail("%s: general list items differ in type or shape, unable to make a tensor", fn);
}

// The nesting x's first items describe (checked against every item while copying).
Nesting NestingOf(const char* fn, K x) {
  Nesting n;
  while (x->t == kabi::kMixed) {
    if (x->n == 0 || IsPointer(x)) Fail("%s: unable to convert %s to a tensor", fn, KName(x));
    n.shape.push_back(x->n);
    ++n.leaf_depth;
    x = Items(x)[0];
  }
  n.first_leaf = x;
  if (x->t > 0) n.shape.push_back(x->n);
  return n;
}

// Copies the leaves under list x (list level `depth` of n) to *out in row-major order, each
// leaf `leaf_bytes` long; Ragged for an item that breaks the nesting.
void CopyLeaves(const char* fn, K x, const Nesting& n, std::size_t depth, std::size_t leaf_bytes,
                char** out) {
  if (x->t != kabi::kMixed || IsPointer(x) || x->n != n.shape[depth]) Ragged(fn);
  K* items = Items(x);
  if (depth + 1 < n.leaf_depth) {
    for (long long i = 0; i < x->n; ++i) CopyLeaves(fn, items[i], n, depth + 1, leaf_bytes, out);
    return;
  }
  const signed char type = n.first_leaf->t;
  for (long long i = 0; i < x->n; ++i) {
    K leaf = items[i];
    if (leaf->t != type || (type > 0 && leaf->n != n.first_leaf->n)) Ragged(fn);
    if (leaf_bytes > 0) std::memcpy(*out, SimpleData(leaf), leaf_bytes);  // empty: no data
    *out += leaf_bytes;
  }
}

}  // namespace

at::Tensor TensorViewOfK(const char* fn, K x) {
  if (x == nullptr) Fail("%s: expecting k array, given null", fn);
  if (x->t != kabi::kMixed)
    return at::from_blob(SimpleData(x), Sizes(SimpleShape(x)),
                         c10::TensorOptions().dtype(SimpleType(fn, x)));
  // A nesting of lists: copied at once into one tensor of its shape.
  const Nesting n = NestingOf(fn, x);
  const c10::ScalarType type = SimpleType(fn, n.first_leaf);
  at::Tensor out = EmptyCpu(n.shape, type);
  const std::size_t leaf_items = n.first_leaf->t < 0 ? 1 : n.first_leaf->n;
  char* cursor = static_cast<char*>(out.data_ptr());
  CopyLeaves(fn, x, n, 0, leaf_items * c10::elementSize(type), &cursor);
  return out;
}

at::Tensor TensorFromK(const char* fn, K x) {
  if (x == nullptr || x->t == kabi::kMixed) return TensorViewOfK(fn, x);  // stacked: new memory
  at::Tensor out = EmptyCpu(SimpleShape(x), SimpleType(fn, x));
  if (out.numel() > 0) std::memcpy(out.data_ptr(), SimpleData(x), out.numel() * out.element_size());
  return out;
}

namespace {

// Rows of a contiguous buffer as nested general lists, the last dimension as k vectors of type.
K NestedLists(const char* data, at::IntArrayRef sizes, std::size_t d, signed char type,
              std::size_t item_size) {
  if (d + 1 == sizes.size()) {
    K row = kabi::ktn(type, sizes[d]);
    if (sizes[d] > 0) std::memcpy(kabi::Payload(row), data, sizes[d] * item_size);
    return row;
  }
  std::size_t step = item_size;
  for (std::size_t i = d + 1; i < sizes.size(); ++i) step *= sizes[i];
  K x = kabi::ktn(kabi::kMixed, sizes[d]);
  for (std::int64_t i = 0; i < sizes[d]; ++i)
    Items(x)[i] = NestedLists(data + i * step, sizes, d + 1, type, item_size);
  return x;
}

// A CPU, contiguous tensor of k type `type`'s values as k: an atom, a vector, nested lists.
// libtorch lets an empty tensor carry a negative size (an empty tensor expanded to -3 0), which
// no k list can have: refused.
K KFromContiguous(const at::Tensor& t, signed char type) {
  if (t.dim() == 0) {
    K x = kabi::ka(-type);
    std::memcpy(&x->g, t.data_ptr(), t.element_size());
    return x;
  }
  for (const std::int64_t size : t.sizes()) {
    if (size < 0)
      Fail("tensor: sizes %s include a negative size, which no k value has",
           absl::StrJoin(t.sizes(), " "));
  }
  if (t.dim() == 1) {
    K x = kabi::ktn(type, t.size(0));
    if (t.numel() > 0) std::memcpy(kabi::Payload(x), t.data_ptr(), t.numel() * t.element_size());
    return x;
  }
  return NestedLists(static_cast<const char*>(t.data_ptr()), t.sizes(), 0, type, t.element_size());
}

}  // namespace

K KFromTensor(const at::Tensor& tensor) { return KFromTensorComplexFirst(tensor, ComplexFirst()); }

K KFromTensorComplexFirst(const at::Tensor& tensor, bool complex_first) {
  if (!tensor.defined()) return Null();
  // Only the values are read (copied into k), so no detach or clone: a CPU, contiguous tensor
  // of a k type (a result's usual form) is read in place.
  if (const signed char k = DirectKType(tensor.scalar_type());
      k != 0 && tensor.device().is_cpu() && tensor.is_contiguous())
    return KFromContiguous(tensor, k);
  at::Tensor t = tensor;
  if (t.is_complex()) {
    t = at::view_as_real(t.resolve_conj());
    if (complex_first) t = t.movedim(-1, 0);
  }
  const signed char type = KType(t.scalar_type());
  if (!t.device().is_cpu()) t = t.to(c10::kCPU);
  if (type == kabi::kReal && t.scalar_type() != c10::ScalarType::Float)
    t = t.to(c10::ScalarType::Float);
  if (!t.is_contiguous()) t = t.contiguous();
  return KFromContiguous(t, type);
}

K KFromValue(const Value& v) {
  if (const auto* t = std::get_if<at::Tensor>(&v)) return KFromTensor(*t);
  if (const auto* vec = std::get_if<TensorVector>(&v)) {
    K x = kabi::ktn(kabi::kMixed, static_cast<long long>(vec->size()));
    for (std::size_t i = 0; i < vec->size(); ++i) Items(x)[i] = KFromTensor((*vec)[i]);
    return CollapseAtoms(x);
  }
  const TensorDict& d = std::get<TensorDict>(v);
  K values = kabi::ktn(kabi::kMixed, static_cast<long long>(d.size()));
  for (std::size_t i = 0; i < d.size(); ++i) Items(values)[i] = KFromTensor(d[i].value());
  return kabi::xD(Symbols(d.keys()), CollapseAtoms(values));
}

Value ValueFromK(const char* fn, K x, ObjectClass as) {
  if (as == ObjectClass::kTensor) return TensorFromK(fn, x);
  if (as == ObjectClass::kVector) {
    if (x->t != kabi::kMixed) return TensorVector{TensorFromK(fn, x)};
    TensorVector v;
    for (long long i = 0; i < x->n; ++i) v.push_back(TensorFromK(fn, Items(x)[i]));
    return v;
  }
  if (x->t != kabi::kDictionary || kabi::DictKeys(x)->t != kabi::kSymbol) {
    Fail("%s: expecting a dictionary of symbols -> arrays, given %s", fn, KName(x));
  }
  K keys = kabi::DictKeys(x), values = kabi::DictValues(x);
  if (values->t != kabi::kMixed) Fail("%s: dictionary values must be a general list of arrays", fn);
  TensorDict d;
  for (long long i = 0; i < keys->n; ++i)
    d.insert(kabi::Symbols(keys)[i], TensorFromK(fn, Items(values)[i]));
  return d;
}

K KFromResult(const Result& r) {
  if (r.is_none()) return Null();
  if (r.is_handle()) return Pointer(r.handle());
  return KFromValue(r.value());
}

K PointerFromResult(const char* fn, const Result& r) {
  if (r.is_none() || r.is_handle()) return KFromResult(r);
  return Pointer(std::visit([&](const auto& v) { return Own(Object(v), fn); }, r.value()));
}

Operand OperandFromK(const char* fn, K x) {
  if (IsPointer(x)) return Operand(HandleOf(x));
  return Operand(TensorFromK(fn, x));
}

Operand InputFromK(const char* fn, K x) {
  if (IsPointer(x)) return Operand(HandleOf(x));
  return Operand(TensorViewOfK(fn, x));
}

void OwnDataBesideHandles(std::vector<Operand>* inputs) {
  bool any_handle = false;
  for (const Operand& in : *inputs) any_handle = any_handle || in.is_handle();
  if (!any_handle) return;
  for (Operand& in : *inputs) {
    if (!in.is_handle()) in = Operand(in.data().clone());
  }
}

K CollapseAtoms(K list) {
  if (list->t != kabi::kMixed || list->n == 0) return list;
  const signed char t = Items(list)[0]->t;
  constexpr int kWidth[12] = {0, 1, 0, 0, 1, 2, 4, 8, 4, 8, 1, 8};  // by type: boolean .. symbol
  if (t >= 0 || -t >= static_cast<int>(std::size(kWidth)) || kWidth[-t] == 0) return list;
  for (long long i = 0; i < list->n; ++i) {
    if (Items(list)[i]->t != t) return list;
  }
  K v = kabi::ktn(-t, list->n);
  for (long long i = 0; i < list->n; ++i) {
    std::memcpy(static_cast<char*>(kabi::Payload(v)) + i * kWidth[-t], &Items(list)[i]->g,
                kWidth[-t]);
  }
  kabi::r0(list);
  return v;
}

K KFromLongs(const std::vector<std::int64_t>& v) {
  K x = kabi::ktn(kabi::kLong, static_cast<long long>(v.size()));
  for (std::size_t i = 0; i < v.size(); ++i) kabi::Longs(x)[i] = v[i];
  return x;
}

K KFromPerElement(const PerElement<std::int64_t>& v) {
  return KFromShaped(
      v, [](std::int64_t j) { return kabi::kj(j); }, KFromLongs);
}

K KFromPerElement(const PerElement<std::string>& v) { return KFromShaped(v, Symbol, Symbols); }

K KFromPerElement(const PerElement<std::vector<std::int64_t>>& v) {
  return KFromShaped(v, KFromLongs, [](const std::vector<std::vector<std::int64_t>>& all) {
    K x = kabi::ktn(kabi::kMixed, static_cast<long long>(all.size()));
    for (std::size_t i = 0; i < all.size(); ++i) Items(x)[i] = KFromLongs(all[i]);
    return x;
  });
}

}  // namespace kscope::q
