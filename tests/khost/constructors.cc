// constructors.cc — ktn, knk, ka, the typed atoms, kp/kpn, xD and xT.
#include <cstring>

#include "absl/strings/str_format.h"
#include "q/convert/k_abi.h"
#include "tests/khost/errors.h"
#include "tests/khost/heap.h"
#include "tests/khost/report.h"
#include "tests/khost/symbols.h"
#include "tests/khost/validate.h"

namespace khost::internal {
namespace {

using kabi::K;

// The payload bytes an atom needs beyond the header: a guid atom keeps its 16 bytes there.
std::size_t AtomPayload(int type) { return type == -kabi::kGuid ? 16 : 0; }

// Atom-shaped types: the basic atoms, a table (which holds a dictionary) and functions.
bool IsAtomType(int type) {
  return (type <= -1 && type >= -19 && type != -3) || type == kabi::kTable ||
         (type >= kabi::kLambda && type <= 111);
}

K Atom(int type) {
  if (!IsAtomType(type))
    Emit(Check::kBadArgument, absl::StrFormat("ka(%d): not an atom type", type));
  return Allocate(type, AtomPayload(type));
}

// Why xT rejects `d` (nullptr if it makes a valid table).
const char* TableError(K d) {
  if (d->t != kabi::kDictionary) return "nyi";
  K names = kabi::DictKeys(d);
  K columns = kabi::DictValues(d);
  if (!CheckEntry(names, "xT (keys)") || !CheckEntry(columns, "xT (values)")) return "type";
  if (names->t != kabi::kSymbol || columns->t != kabi::kMixed) return "type";
  if (names->n != columns->n) return "length";
  for (std::int64_t i = 0; i < columns->n; ++i) {
    K column = kabi::Items(columns)[i];
    if (!CheckEntry(column, "xT (column)")) return "type";
    if (column->t < 0 || column->t > 19) return "type";
    if (column->n != kabi::Items(columns)[0]->n) return "length";
  }
  return nullptr;
}

}  // namespace
}  // namespace khost::internal

using khost::internal::Atom;

kabi::K kabi::ktn(int type, long long n) {
  if (!khost::internal::IsVectorType(type) || n < 0) {
    khost::Emit(khost::Check::kBadArgument,
                absl::StrFormat("ktn(%d, %d): not a vector type and count", type, n));
    return nullptr;
  }
  const std::size_t width = khost::internal::ItemWidth(type);
  K x = khost::internal::Allocate(type, static_cast<std::size_t>(n) * width);
  x->n = n;
  if (type == kMixed || type == kSymbol) {
    for (long long i = 0; i < n; ++i) Items(x)[i] = static_cast<K>(khost::internal::UnfilledSlot());
  }
  return x;
}

kabi::K kabi::vaknk(int n, va_list args) {
  K x = ktn(kMixed, n);
  for (int i = 0; i < n; ++i) {
    K item = va_arg(args, K);
    khost::internal::CheckEntry(item, "knk");
    Items(x)[i] = item;
  }
  return x;
}

kabi::K kabi::knk(int n, ...) {
  va_list args;
  va_start(args, n);
  K x = vaknk(n, args);
  va_end(args);
  return x;
}

kabi::K kabi::ka(int type) { return Atom(type); }

kabi::K kabi::kb(int value) {
  K x = Atom(-kBoolean);
  x->g = value != 0;
  return x;
}

kabi::K kabi::kg(int value) {
  K x = Atom(-kByte);
  x->g = static_cast<std::uint8_t>(value);
  return x;
}

kabi::K kabi::kh(int value) {
  K x = Atom(-kShort);
  x->h = static_cast<std::int16_t>(value);
  return x;
}

kabi::K kabi::ki(int value) {
  K x = Atom(-kInt);
  x->i = value;
  return x;
}

kabi::K kabi::kj(long long value) {
  K x = Atom(-kLong);
  x->j = value;
  return x;
}

kabi::K kabi::ke(double value) {
  K x = Atom(-kReal);
  x->e = static_cast<float>(value);
  return x;
}

kabi::K kabi::kf(double value) {
  K x = Atom(-kFloat);
  x->f = value;
  return x;
}

kabi::K kabi::kc(int value) {
  K x = Atom(-kChar);
  x->g = static_cast<std::uint8_t>(value);
  return x;
}

kabi::K kabi::ks(char* text) {
  K x = Atom(-kSymbol);
  x->s = ss(text);
  return x;
}

kabi::K kabi::kpn(char* text, long long n) {
  if (text == nullptr && n > 0) {
    khost::Emit(khost::Check::kBadPointer, "kpn: NULL text");
    n = 0;
  }
  K x = ktn(kChar, n < 0 ? 0 : n);
  if (x->n > 0) std::memcpy(Chars(x), text, static_cast<std::size_t>(x->n));
  return x;
}

kabi::K kabi::kp(char* text) {
  return kpn(text, text == nullptr ? 0 : static_cast<long long>(std::strlen(text)));
}

kabi::K kabi::kd(int days) {
  K x = Atom(-kDate);
  x->i = days;
  return x;
}

kabi::K kabi::kt(int milliseconds) {
  K x = Atom(-kTime);
  x->i = milliseconds;
  return x;
}

kabi::K kabi::kz(double days) {
  K x = Atom(-kDatetime);
  x->f = days;
  return x;
}

kabi::K kabi::ktj(int type, long long value) {
  if (type != -kTimestamp && type != -kTimespan) {
    khost::Emit(khost::Check::kBadArgument,
                absl::StrFormat("ktj(%d, ...): type must be -12 or -16", type));
  }
  K x = Atom(type);
  x->j = value;
  return x;
}

kabi::K kabi::ku(GuidValue guid) {
  K x = Atom(-kGuid);
  std::memcpy(Bytes(x), guid.g, sizeof guid.g);
  return x;
}

kabi::K kabi::xD(K keys, K values) {
  if (values == nullptr) {
    r0(keys);
    return nullptr;
  }
  const bool keys_usable = khost::internal::CheckEntry(keys, "xD");
  const bool values_usable = khost::internal::CheckEntry(values, "xD");
  if (keys_usable && values_usable && keys->t >= 0 && keys->t <= 19 && values->t >= 0 &&
      values->t <= 19 && keys->n != values->n) {
    khost::Emit(khost::Check::kMalformed,
                absl::StrFormat("xD: %d keys, %d values", keys->n, values->n),
                khost::internal::Lookup(keys).serial, keys->t);
  }
  K x = khost::internal::Allocate(kDictionary, 2 * sizeof(K));
  x->n = 2;
  Items(x)[0] = keys;
  Items(x)[1] = values;
  return x;
}

kabi::K kabi::xT(K dictionary) {
  if (!khost::internal::CheckEntry(dictionary, "xT")) return krr("type");
  if (const char* error = khost::internal::TableError(dictionary)) {
    r0(dictionary);
    return krr(error);
  }
  K x = khost::internal::Allocate(kTable, 0);
  x->k = dictionary;
  return x;
}
