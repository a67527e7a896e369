// builders.cc — kq:: builders, all expressed through the C API.
#include "tests/khost/builders.h"

#include <cstring>
#include <utility>

#include "tests/khost/builtins.h"
#include "tests/khost/heap.h"
#include "tests/khost/symbols.h"

namespace kq {
namespace {

template <typename T>
K Fill(int type, std::initializer_list<T> items) {
  K x = kabi::ktn(type, static_cast<long long>(items.size()));
  std::size_t i = 0;
  for (const T& item : items) static_cast<T*>(kabi::Payload(x))[i++] = item;
  return x;
}

// The bit pattern of a null or infinity of integer storage `width`.
std::int64_t Special(std::size_t width, bool null) {
  switch (width) {
    case 2: return null ? kabi::kNullShort : kabi::kInfShort;
    case 4: return null ? kabi::kNullInt : kabi::kInfInt;
    default: return null ? kabi::kNullLong : kabi::kInfLong;
  }
}

// An atom of type -type whose value is the null (or infinity) of that type.
K SpecialAtom(int type, bool null) {
  K x = kabi::ka(-type);
  switch (type) {
    case kabi::kReal: x->e = static_cast<float>(null ? kabi::kNullFloat : kabi::kInfFloat); break;
    case kabi::kFloat:
    case kabi::kDatetime: x->f = null ? kabi::kNullFloat : kabi::kInfFloat; break;
    case kabi::kChar: x->g = ' '; break;
    case kabi::kSymbol: x->s = khost::internal::Intern(""); break;
    case kabi::kShort: x->h = static_cast<std::int16_t>(Special(2, null)); break;
    case kabi::kInt:
    case kabi::kMonth:
    case kabi::kDate:
    case kabi::kMinute:
    case kabi::kSecond:
    case kabi::kTime: x->i = static_cast<std::int32_t>(Special(4, null)); break;
    case kabi::kLong:
    case kabi::kTimestamp:
    case kabi::kTimespan: x->j = Special(8, null); break;
    default: break;  // boolean, byte and guid: zero
  }
  return x;
}

}  // namespace

K Bool(bool value) { return kabi::kb(value); }
K Byte(std::uint8_t value) { return kabi::kg(value); }
K Short(std::int16_t value) { return kabi::kh(value); }
K Int(std::int32_t value) { return kabi::ki(value); }
K Long(std::int64_t value) { return kabi::kj(value); }
K Real(float value) { return kabi::ke(value); }
K Float(double value) { return kabi::kf(value); }
K Char(char value) { return kabi::kc(static_cast<unsigned char>(value)); }
K Sym(absl::string_view text) { return kabi::ks(khost::internal::Intern(text)); }
K Timestamp(std::int64_t nanos) { return kabi::ktj(-kabi::kTimestamp, nanos); }
K Month(std::int32_t months) {
  K x = kabi::ka(-kabi::kMonth);
  x->i = months;
  return x;
}
K Date(std::int32_t days) { return kabi::kd(days); }
K Datetime(double days) { return kabi::kz(days); }
K Timespan(std::int64_t nanos) { return kabi::ktj(-kabi::kTimespan, nanos); }
K Minute(std::int32_t minutes) {
  K x = kabi::ka(-kabi::kMinute);
  x->i = minutes;
  return x;
}
K Second(std::int32_t seconds) {
  K x = kabi::ka(-kabi::kSecond);
  x->i = seconds;
  return x;
}
K Time(std::int32_t millis) { return kabi::kt(millis); }
K Guid(const std::uint8_t (&bytes)[16]) {
  kabi::GuidValue guid;
  std::memcpy(guid.g, bytes, sizeof guid.g);
  return kabi::ku(guid);
}

K Null() { return kabi::ka(kabi::kUnaryPrimitive); }
K NullOf(int type) { return SpecialAtom(type, true); }
K InfOf(int type) { return SpecialAtom(type, false); }

K Bools(std::initializer_list<int> items) {
  K x = kabi::ktn(kabi::kBoolean, static_cast<long long>(items.size()));
  std::size_t i = 0;
  for (int item : items) kabi::Bytes(x)[i++] = item != 0;
  return x;
}
K Bytes(std::initializer_list<std::uint8_t> items) { return Fill(kabi::kByte, items); }
K Shorts(std::initializer_list<std::int16_t> items) { return Fill(kabi::kShort, items); }
K Ints(std::initializer_list<std::int32_t> items) { return Fill(kabi::kInt, items); }
K Longs(std::initializer_list<std::int64_t> items) { return Fill(kabi::kLong, items); }
K Reals(std::initializer_list<float> items) { return Fill(kabi::kReal, items); }
K Floats(std::initializer_list<double> items) { return Fill(kabi::kFloat, items); }

K Syms(std::initializer_list<absl::string_view> items) {
  K x = kabi::ktn(kabi::kSymbol, static_cast<long long>(items.size()));
  std::size_t i = 0;
  for (absl::string_view item : items) kabi::Symbols(x)[i++] = khost::internal::Intern(item);
  return x;
}

K Str(absl::string_view text) {
  return kabi::kpn(const_cast<char*>(text.data()), static_cast<long long>(text.size()));
}

K Vector(int type, std::initializer_list<std::int64_t> items) {
  const std::size_t width = khost::internal::ItemWidth(type);
  K x = kabi::ktn(type, static_cast<long long>(items.size()));
  std::size_t i = 0;
  for (std::int64_t item : items) {
    // Little-endian: the low `width` bytes are the narrower integer.
    std::memcpy(kabi::Bytes(x) + width * i++, &item, width);
  }
  return x;
}

K List(std::initializer_list<K> items) { return List(std::vector<K>(items)); }

K List(const std::vector<K>& items) {
  K x = kabi::ktn(kabi::kMixed, static_cast<long long>(items.size()));
  for (std::size_t i = 0; i < items.size(); ++i) kabi::Items(x)[i] = items[i];
  return x;
}

K Collapse(const std::vector<K>& items) {
  std::vector<khost::KRef> owned;
  for (K item : items) owned.emplace_back(item);
  return khost::internal::Collapse(std::move(owned));
}

K Enlist(K x) {
  K list = khost::internal::Enlist(x);
  kabi::r0(x);
  return list;
}

K Dict(K keys, K values) { return kabi::xD(keys, values); }

K Table(std::initializer_list<std::pair<absl::string_view, K>> columns) {
  K names = kabi::ktn(kabi::kSymbol, static_cast<long long>(columns.size()));
  K values = kabi::ktn(kabi::kMixed, static_cast<long long>(columns.size()));
  std::size_t i = 0;
  for (const auto& [name, column] : columns) {
    kabi::Symbols(names)[i] = khost::internal::Intern(name);
    kabi::Items(values)[i++] = column;
  }
  return kabi::xT(kabi::xD(names, values));
}

}  // namespace kq
