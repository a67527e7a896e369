// serialize.cc — b9, d9 and okx: q's IPC byte layout for the basic types, uncompressed.
//
// Header: endianness (1 = little), message type (0), mode byte (3 for the in-process mode -1,
// whose symbols are 8-byte interned pointers; 0 otherwise, with NUL-terminated text), 0, then the
// 32-bit total length. Then one object: a type byte; for atoms the value; for vectors an
// attribute byte, a 32-bit count and the items; dictionaries 99 keys values; tables 98, an
// attribute byte and the dictionary; `::` 101 and a byte; errors -128 and their text.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "q/convert/k_abi.h"
#include "tests/khost/errors.h"
#include "tests/khost/heap.h"
#include "tests/khost/kref.h"
#include "tests/khost/report.h"
#include "tests/khost/symbols.h"
#include "tests/khost/validate.h"

namespace khost::internal {
namespace {

constexpr std::uint8_t kInProcess = 3;
constexpr std::size_t kHeaderBytes = 8;

// The width of an atom's value on the wire (symbols excepted).
std::size_t AtomWidth(int t) { return t == -kabi::kGuid ? 16 : ItemWidth(-t); }

void* AtomValue(K x) { return x->t == -kabi::kGuid ? kabi::Payload(x) : static_cast<void*>(&x->g); }

class Writer {
 public:
  explicit Writer(bool pointers) : pointers_(pointers) {}

  // Appends x; false (with `error` set) if x has a type the format does not carry.
  bool Write(K x) {
    if (!CheckEntry(x, "b9", kAllowError)) return Unsupported("invalid object");
    Byte(static_cast<std::uint8_t>(x->t));
    if (x->t < 0 && x->t >= -19) {
      if (x->t == -kabi::kSymbol) return Symbol(x->s);
      Raw(AtomValue(x), AtomWidth(x->t));
      return true;
    }
    switch (x->t) {
      case kabi::kDictionary: return Write(kabi::DictKeys(x)) && Write(kabi::DictValues(x));
      case kabi::kTable: Byte(static_cast<std::uint8_t>(x->u)); return Write(x->k);
      case kabi::kUnaryPrimitive: Byte(x->g); return true;
      case kabi::kError: Text(x->s); return true;
      default: break;
    }
    if (!IsVectorType(x->t)) return Unsupported(absl::StrFormat("type %d", x->t));
    if (x->n > std::numeric_limits<std::int32_t>::max()) return Unsupported("limit");
    Byte(static_cast<std::uint8_t>(x->u));
    const std::int32_t n = static_cast<std::int32_t>(x->n);
    Raw(&n, sizeof n);
    if (x->t == kabi::kMixed) {
      for (std::int32_t i = 0; i < n; ++i) {
        if (!Write(kabi::Items(x)[i])) return false;
      }
      return true;
    }
    if (x->t == kabi::kSymbol) {
      for (std::int32_t i = 0; i < n; ++i) {
        if (!Symbol(kabi::Symbols(x)[i])) return false;
      }
      return true;
    }
    Raw(kabi::Payload(x), static_cast<std::size_t>(n) * ItemWidth(x->t));
    return true;
  }

  std::string bytes;
  std::string error;

 private:
  bool Unsupported(std::string why) {
    error = std::move(why);
    return false;
  }
  void Byte(std::uint8_t b) { bytes.push_back(static_cast<char>(b)); }
  void Raw(const void* p, std::size_t n) { bytes.append(static_cast<const char*>(p), n); }
  void Text(const char* s) { bytes.append(s, std::strlen(s) + 1); }
  bool Symbol(const char* s) {
    if (IsUnfilled(s)) return Unsupported("unfilled symbol slot");
    if (pointers_) {
      Raw(&s, sizeof s);
    } else {
      Text(s);
    }
    return true;
  }

  bool pointers_;
};

// Thrown inside the reader when the bytes do not form a valid message.
struct Malformed {};

class Reader {
 public:
  Reader(const std::uint8_t* p, std::size_t n, bool pointers)
      : p_(p), end_(p + n), pointers_(pointers) {}

  KRef Read() {
    const int t = static_cast<signed char>(Take<std::uint8_t>());
    if (t < 0 && t >= -19 && t != -3) return ReadAtom(t);
    switch (t) {
      case kabi::kDictionary: {
        KRef keys = Read();
        KRef values = Read();
        if (keys->t < 0 || values->t < 0 || Count(keys.get()) != Count(values.get()))
          throw Malformed{};
        return KRef(kabi::xD(keys.release(), values.release()));
      }
      case kabi::kTable: {
        const char attribute = static_cast<char>(Take<std::uint8_t>());
        K table = kabi::xT(Read().release());
        if (table == nullptr) {
          ClearError();
          throw Malformed{};
        }
        table->u = attribute;
        return KRef(table);
      }
      case kabi::kUnaryPrimitive: {
        KRef x(kabi::ka(kabi::kUnaryPrimitive));
        x->g = Take<std::uint8_t>();
        return x;
      }
      case kabi::kError: return KRef(MakeError(TakeText()));
      default:
        if (!IsVectorType(t)) throw Malformed{};
        return ReadVector(t);
    }
  }

  bool AtEnd() const { return p_ == end_; }

 private:
  template <typename T>
  T Take() {
    T v;
    TakeRaw(&v, sizeof v);
    return v;
  }
  void TakeRaw(void* to, std::size_t n) {
    if (static_cast<std::size_t>(end_ - p_) < n) throw Malformed{};
    std::memcpy(to, p_, n);
    p_ += n;
  }
  std::string TakeText() {
    const void* nul = std::memchr(p_, 0, static_cast<std::size_t>(end_ - p_));
    if (nul == nullptr) throw Malformed{};
    std::string text(reinterpret_cast<const char*>(p_), static_cast<const std::uint8_t*>(nul) - p_);
    p_ = static_cast<const std::uint8_t*>(nul) + 1;
    return text;
  }
  char* TakeSymbol() {
    if (!pointers_) return Intern(TakeText());
    char* s = Take<char*>();
    if (!IsInterned(s)) throw Malformed{};
    return s;
  }

  KRef ReadAtom(int t) {
    KRef x(kabi::ka(t));
    if (t == -kabi::kSymbol) {
      x->s = TakeSymbol();
    } else {
      TakeRaw(AtomValue(x.get()), AtomWidth(t));
    }
    return x;
  }

  KRef ReadVector(int t) {
    const char attribute = static_cast<char>(Take<std::uint8_t>());
    const std::int32_t n = Take<std::int32_t>();
    if (n < 0 ||
        (t != kabi::kMixed && t != kabi::kSymbol &&
         static_cast<std::size_t>(n) * ItemWidth(t) > static_cast<std::size_t>(end_ - p_))) {
      throw Malformed{};
    }
    if (t == kabi::kMixed) {
      std::vector<KRef> items;
      for (std::int32_t i = 0; i < n; ++i) items.push_back(Read());
      K x = kabi::ktn(t, n);
      for (std::int32_t i = 0; i < n; ++i) kabi::Items(x)[i] = items[i].release();
      x->u = attribute;
      return KRef(x);
    }
    if (t == kabi::kSymbol) {
      std::vector<char*> symbols;
      for (std::int32_t i = 0; i < n; ++i) symbols.push_back(TakeSymbol());
      K x = kabi::ktn(t, n);
      std::copy(symbols.begin(), symbols.end(), kabi::Symbols(x));  // none for an empty list
      x->u = attribute;
      return KRef(x);
    }
    KRef x(kabi::ktn(t, n));
    x->u = attribute;
    TakeRaw(kabi::Payload(x.get()), static_cast<std::size_t>(n) * ItemWidth(t));
    return x;
  }

  const std::uint8_t* p_;
  const std::uint8_t* end_;
  bool pointers_;
};

// Decodes a whole message; nullptr (nothing pending) if it is not one.
KRef Decode(K bytes) {
  if (bytes->t != kabi::kByte || bytes->n < static_cast<long long>(kHeaderBytes)) return KRef();
  const std::uint8_t* p = kabi::Bytes(bytes);
  std::uint32_t length;
  std::memcpy(&length, p + 4, sizeof length);
  if (p[0] != 1 || (p[2] != 0 && p[2] != kInProcess) ||
      length != static_cast<std::uint64_t>(bytes->n))
    return KRef();
  Reader reader(p + kHeaderBytes, length - kHeaderBytes, p[2] == kInProcess);
  try {
    KRef x = reader.Read();
    if (!reader.AtEnd()) return KRef();
    return x;
  } catch (const Malformed&) {
    return KRef();
  }
}

}  // namespace
}  // namespace khost::internal

kabi::K kabi::b9(int mode, K x) {
  if (mode != -1) {
    khost::Emit(khost::Check::kBadArgument,
                absl::StrFormat("b9(%d, ...): inside q the mode must be -1", mode));
  }
  if (mode < -1 || mode > 3) return khost::internal::Fail("domain");
  khost::internal::Writer writer(mode == -1);
  writer.bytes.assign(khost::internal::kHeaderBytes, '\0');
  if (!writer.Write(x)) return khost::internal::Fail(writer.error);
  std::string& bytes = writer.bytes;
  if (bytes.size() > std::numeric_limits<std::uint32_t>::max())
    return khost::internal::Fail("limit");
  bytes[0] = 1;
  bytes[2] = mode == -1 ? static_cast<char>(khost::internal::kInProcess) : 0;
  const std::uint32_t length = static_cast<std::uint32_t>(bytes.size());
  std::memcpy(&bytes[4], &length, sizeof length);
  K result = ktn(kByte, static_cast<long long>(bytes.size()));
  std::memcpy(Bytes(result), bytes.data(), bytes.size());
  return result;
}

kabi::K kabi::d9(K bytes) {
  if (!khost::internal::CheckEntry(bytes, "d9")) return khost::internal::Fail("type");
  khost::KRef x = khost::internal::Decode(bytes);
  if (!x) return khost::internal::Fail("badmsg");
  return x.release();
}

int kabi::okx(K bytes) {
  if (!khost::internal::CheckEntry(bytes, "okx")) return 0;
  return khost::internal::Decode(bytes) ? 1 : 0;
}
