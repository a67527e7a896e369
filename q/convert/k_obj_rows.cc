#include "q/convert/k_obj_rows.h"

#include <cstdint>
#include <string>

#include "q/convert/convert.h"
#include "runtime/names.h"

namespace kscope::q {
namespace {

using kabi::K;

K Column(const std::vector<ObjectRow>& rows, K (*cell)(const ObjectRow&)) {
  K column = kabi::ktn(kabi::kMixed, static_cast<long long>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) kabi::Items(column)[i] = cell(rows[i]);
  return column;
}

template <typename F>
K SymbolColumn(const std::vector<ObjectRow>& rows, F text) {
  std::vector<std::string> values;
  for (const ObjectRow& row : rows) values.push_back(text(row));
  return Symbols(values);
}

template <typename F>
K LongColumn(const std::vector<ObjectRow>& rows, F value) {
  std::vector<std::int64_t> values;
  for (const ObjectRow& row : rows) values.push_back(value(row));
  return KFromLongs(values);
}

}  // namespace

K KFromObjectRows(const std::vector<ObjectRow>& rows) {
  K names =
      Symbols({"ptr", "class", "device", "dtype", "size", "elements", "bytes", "scope", "origin"});
  K columns = kabi::knk(
      9, Column(rows, [](const ObjectRow& r) { return Pointer(r.ptr); }),
      SymbolColumn(rows, [](const ObjectRow& r) { return std::string(ClassName(r.object_class)); }),
      SymbolColumn(rows, [](const ObjectRow& r) { return r.device; }),
      SymbolColumn(rows, [](const ObjectRow& r) { return r.dtype; }),
      Column(rows,
             [](const ObjectRow& r) {
               // ktorch shows a tensor's size as its dims, any other object's as one count (a
               // vector's or dictionary's tensors, a module's, loss's, optimizer's or model's
               // parameters).
               return r.object_class == ObjectClass::kTensor ? KFromLongs(r.size)
                                                             : kabi::kj(r.size.at(0));
             }),
      LongColumn(rows, [](const ObjectRow& r) { return r.elements; }),
      LongColumn(rows, [](const ObjectRow& r) { return r.bytes; }),
      LongColumn(rows, [](const ObjectRow& r) { return static_cast<std::int64_t>(r.scope); }),
      SymbolColumn(rows, [](const ObjectRow& r) { return r.origin; }));
  return kabi::xT(kabi::xD(names, columns));
}

}  // namespace kscope::q
