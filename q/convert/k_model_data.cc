#include "q/convert/k_model_data.h"

#include <string>
#include <utility>
#include <vector>

#include "api/core/pointer.h"
#include "api/core/selection.h"
#include "api/tensor/container.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

bool IsContainerPointer(K x) {
  if (!IsPointer(x)) return false;
  const ObjectClass c = class_(HandleOf(x));
  return c == ObjectClass::kVector || c == ObjectClass::kDictionary;
}

DataPart SelectionFromK(const char* fn, K x) {
  const Args a(fn, x);
  const int t = a[1]->t;
  if (t == -kabi::kSymbol || t == kabi::kSymbol) return DataPart(a.PointerAt(0), a.SymbolsAt(1));
  return DataPart(a.PointerAt(0), a.LongsAt(1));
}

DataPart PartFromK(const char* fn, K x) {
  if (IsPointer(x)) return DataPart(HandleOf(x));
  if (IsSelection(x)) return SelectionFromK(fn, x);
  return DataPart(TensorFromK(fn, x));
}

// A general list that is one k array: items all of one type and, for lists, one count.
bool IsOneArray(K x) {
  K* items = kabi::Items(x);
  for (long long i = 0; i < x->n; ++i) {
    if (IsPointer(items[i]) || IsSelection(items[i])) return false;
    if (items[i]->t != items[0]->t || (items[i]->t >= 0 && items[i]->n != items[0]->n))
      return false;
  }
  return true;
}

}  // namespace

bool IsSelection(K x) {
  if (x->t != kabi::kMixed || x->n != 2 || !IsContainerPointer(kabi::Items(x)[0])) return false;
  const int t = kabi::Items(x)[1]->t;
  return t == -kabi::kLong || t == kabi::kLong || t == -kabi::kSymbol || t == kabi::kSymbol;
}

bool AddContainerInputs(const char* fn, K x, std::vector<Operand>* inputs) {
  if (IsPointer(x) && class_(HandleOf(x)) == ObjectClass::kVector) {
    for (const at::Tensor& t : vector(HandleOf(x))) inputs->emplace_back(t);
    return true;
  }
  if (!IsSelection(x)) return false;
  const DataPart part = SelectionFromK(fn, x);
  const Handle h = part.source().handle();
  if (part.keys()) {
    for (auto& [key, t] : DictElements(fn, h, *part.keys())) inputs->emplace_back(std::move(t));
  } else {
    for (const at::Tensor& t : VectorElements(fn, h, *part.indices())) inputs->emplace_back(t);
  }
  return true;
}

DataParts DataPartsFromK(const char* fn, K x) {
  if (x->t != kabi::kMixed || IsPointer(x) || IsSelection(x) || (x->n > 0 && IsOneArray(x))) {
    return DataParts(PartFromK(fn, x));
  }
  std::vector<DataPart> parts;
  for (long long i = 0; i < x->n; ++i) parts.push_back(PartFromK(fn, kabi::Items(x)[i]));
  return DataParts(std::move(parts));
}

K KFromDataTensors(const nn::DataTensors& data) {
  using Form = nn::DataTensors::Form;
  if (data.form == Form::kNone) return Null();
  if (data.form == Form::kTensor) return KFromTensor(data.tensors.front());
  K values = kabi::knk(0);
  for (const at::Tensor& t : data.tensors) kabi::jk(&values, KFromTensor(t));
  return data.form == Form::kVector ? values : kabi::xD(Symbols(data.keys), values);
}

}  // namespace kscope::q
