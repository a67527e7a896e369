// Conversion between k values and kscope's C++ types: the one place the plugin decodes its
// arguments and encodes its results.
//
// Pointers are ktorch's: a 1-item general list holding a long (the handle id), so they survive
// (a;b) but not a,b. k arrays become CPU tensors (b bool, x byte, c char, h short, i int,
// j long, e float, f double; nested general lists of equal shape become higher dimensions) and
// tensors come back the same way (half as real, complex as real/imaginary pairs). Errors:
// kscope::Error naming the function. Every K returned is owned by the caller; K arguments are
// borrowed.
#ifndef KSCOPE_Q_CONVERT_CONVERT_H_
#define KSCOPE_Q_CONVERT_CONVERT_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

#include "api/core/operand.h"
#include "q/convert/k_abi.h"
#include "runtime/handle.h"
#include "runtime/object_class.h"
#include "runtime/per_element.h"

namespace kscope::q {

using kabi::K;

// `::`, the generic null (what f[] passes and what a null result reads as).
K Null();
inline bool IsNull(K x) { return x == nullptr || (x->t == kabi::kUnaryPrimitive && x->g == 0); }
// ktorch's pointer shape: a general list of one long atom. (Inline: every pointer argument's
// test.)
inline bool IsPointer(K x) {
  return x != nullptr && x->t == kabi::kMixed && x->n == 1 && kabi::Items(x)[0]->t == -kabi::kLong;
}
// A pointer to a live object of class c (one handle-table read; false for a stale pointer).
bool IsPointerTo(K x, ObjectClass c);
// The handle a pointer (IsPointer) names.
inline Handle HandleOf(K pointer) {
  return Handle(static_cast<std::uint64_t>(kabi::Items(pointer)[0]->j));
}
K Pointer(Handle h);

// ktorch's names of k types for messages: "long scalar", "long list", "general list",
// "kdictionary", "table", "null/unary primitive"; a live pointer names its class.
std::string KName(K x);

// Symbols: interned text in, std::string out.
K Symbol(const std::string& s);
std::string SymbolText(K atom);
bool IsSymbol(K x);
K Symbols(const std::vector<std::string>& names);

// k array -> CPU tensor (a copy). `fn` names the caller in errors.
at::Tensor TensorFromK(const char* fn, K x);
// k array -> CPU tensor reading x's memory in place where it can (a view, valid only while x
// lives and unchanged): for inputs that are only read during the call.
at::Tensor TensorViewOfK(const char* fn, K x);
// tensor -> k array: an atom for 0 dims, a vector for 1, nested general lists above; an
// undefined tensor is `::`. Half comes back as real; a complex tensor as its real and imaginary
// parts, as ktorch gives them: with setting `complexfirst (the default) a first dimension of 2
// ((real;imag)), else a last dimension of 2 (real,'imag pairs).
K KFromTensor(const at::Tensor& t);
// The same with complex_first given rather than read from the setting.
K KFromTensorComplexFirst(const at::Tensor& t, bool complex_first);
// Values out: a tensor as an array, a vector as a general list, a dictionary as a k dictionary;
// single values of one type make one simple list instead (vector(1;2) gives 1 2), as in ktorch.
K KFromValue(const Value& v);
// Host data of class `as` from k: an array for a tensor, a general list of arrays for a
// vector, a dictionary of symbols -> arrays for a dictionary.
Value ValueFromK(const char* fn, K x, ObjectClass as);
// A Result as k: a pointer, data, or `::`.
K KFromResult(const Result& r);
// A Result as a pointer, as ktorch's forward and loss objects answer whatever their inputs: a
// handle as it is, data registered as a new handle (origin fn); `::` for none.
K PointerFromResult(const char* fn, const Result& r);
// An operand: a pointer's handle, or a copy of a k array's data (safe to keep).
Operand OperandFromK(const char* fn, K x);
// An input only read during the call: a pointer's handle, or a view of a k array's data.
Operand InputFromK(const char* fn, K x);
// When any of a call's inputs is a handle, its result is a handle whose autograd graph may keep
// the inputs (ce keeps its target, mul its other factor) past the call, when q has freed the k
// data a view reads: such calls copy their data inputs first.
void OwnDataBesideHandles(std::vector<Operand>* inputs);

// ktorch's resolvedict: a general list (taken over) whose items are all atoms of one basic
// type becomes a simple vector of that type; anything else is returned as it is.
K CollapseAtoms(K list);

// The k form of a PerElement, as ktorch shapes attribute results: `one` of a single value,
// `many` of a list of them, and a dictionary of `many` under symbol keys for named values.
template <typename T, typename One, typename Many>
K KFromShaped(const PerElement<T>& v, One one, Many many) {
  if (v.is_single()) return one(v.single());
  if (v.is_list()) return many(v.list());
  std::vector<std::string> keys;
  std::vector<T> values;
  for (const auto& [key, value] : v.named()) {
    keys.push_back(key);
    values.push_back(value);
  }
  return kabi::xD(Symbols(keys), many(values));
}

// Attribute results shaped as ktorch shapes them.
K KFromLongs(const std::vector<std::int64_t>& v);
K KFromPerElement(const PerElement<std::int64_t>& v);
K KFromPerElement(const PerElement<std::string>& v);
K KFromPerElement(const PerElement<std::vector<std::int64_t>>& v);

// A dictionary of symbol keys and general-list values from (name, item) pairs, each item
// encoded by `encode` (Pointer for handles, KFromTensor for tensors).
template <typename Item, typename Encode>
K KDictionary(const std::vector<std::pair<std::string, Item>>& items, Encode encode) {
  std::vector<std::string> names;
  K values = kabi::ktn(kabi::kMixed, static_cast<long long>(items.size()));
  for (std::size_t i = 0; i < items.size(); ++i) {
    names.push_back(items[i].first);
    kabi::Items(values)[i] = encode(items[i].second);
  }
  return kabi::xD(Symbols(names), values);
}

}  // namespace kscope::q

#endif  // KSCOPE_Q_CONVERT_CONVERT_H_
