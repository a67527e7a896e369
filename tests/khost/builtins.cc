// builtins.cc — enlist, ~, $ and 1: for the k(0, ...) registry and the literal parser.
#include "tests/khost/builtins.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <utility>
#include <vector>

#include "tests/khost/errors.h"
#include "tests/khost/heap.h"
#include "tests/khost/symbols.h"
#include "tests/khost/validate.h"
#include "tests/temp_directory.h"

namespace khost {
namespace {

using kabi::K;

// --- match -----------------------------------------------------------------------------------

bool SameItems(K a, K b) {
  const std::size_t width = internal::ItemWidth(a->t);
  if (a->t == kabi::kReal || a->t == kabi::kFloat || a->t == kabi::kDatetime) {
    for (std::int64_t i = 0; i < a->n; ++i) {
      const double x = a->t == kabi::kReal ? kabi::Reals(a)[i] : kabi::Floats(a)[i];
      const double y = b->t == kabi::kReal ? kabi::Reals(b)[i] : kabi::Floats(b)[i];
      if (!(x == y || (std::isnan(x) && std::isnan(y)))) return false;
    }
    return true;
  }
  return std::memcmp(kabi::Payload(a), kabi::Payload(b), static_cast<std::size_t>(a->n) * width) ==
         0;
}

bool SameAtom(K a, K b) {
  switch (a->t) {
    case -kabi::kReal: return a->e == b->e || (std::isnan(a->e) && std::isnan(b->e));
    case -kabi::kFloat:
    case -kabi::kDatetime: return a->f == b->f || (std::isnan(a->f) && std::isnan(b->f));
    case -kabi::kGuid: return std::memcmp(kabi::Payload(a), kabi::Payload(b), 16) == 0;
    case kabi::kError: return std::strcmp(a->s, b->s) == 0;
    case kabi::kLambda: return a == b;
    case kabi::kDynamicLoad: return std::memcmp(kabi::Payload(a), kabi::Payload(b), 16) == 0;
    default: {
      const std::size_t width = a->t < 0 && a->t >= -19 ? internal::ItemWidth(-a->t) : 1;
      return std::memcmp(&a->g, &b->g, width) == 0;
    }
  }
}

// --- cast ------------------------------------------------------------------------------------

// One number on its way between types.
struct Scalar {
  enum Kind { kValue, kNull, kPlusInf, kMinusInf } kind = kValue;
  bool is_float = false;
  std::int64_t i = 0;
  double f = 0;
};

bool IsIntegral(int t) {
  return t == 1 || t == 4 || t == 5 || t == 6 || t == 7 || t == 10 ||
         (t >= 12 && t <= 19 && t != 15);
}
bool IsFloating(int t) { return t == 8 || t == 9 || t == 15; }
bool IsCastable(int t) { return IsIntegral(t) || IsFloating(t); }

template <typename T>
Scalar ReadInteger(const void* p, T null, T inf) {
  T v;
  std::memcpy(&v, p, sizeof v);
  Scalar s;
  s.i = v;
  if (v == null)
    s.kind = Scalar::kNull;
  else if (v == inf)
    s.kind = Scalar::kPlusInf;
  else if (v == -inf)
    s.kind = Scalar::kMinusInf;
  return s;
}

Scalar Read(int t, const void* p) {
  switch (internal::ItemWidth(t)) {
    case 1: {
      Scalar s;
      s.i = *static_cast<const std::uint8_t*>(p);
      return s;
    }
    case 2: return ReadInteger<std::int16_t>(p, kabi::kNullShort, kabi::kInfShort);
    case 4:
      if (t == kabi::kReal) break;
      return ReadInteger<std::int32_t>(p, kabi::kNullInt, kabi::kInfInt);
    default:
      if (IsFloating(t)) break;
      return ReadInteger<std::int64_t>(p, kabi::kNullLong, kabi::kInfLong);
  }
  Scalar s;
  s.is_float = true;
  if (t == kabi::kReal) {
    float v;
    std::memcpy(&v, p, sizeof v);
    s.f = v;
  } else {
    std::memcpy(&s.f, p, sizeof s.f);
  }
  if (std::isnan(s.f))
    s.kind = Scalar::kNull;
  else if (std::isinf(s.f))
    s.kind = s.f > 0 ? Scalar::kPlusInf : Scalar::kMinusInf;
  return s;
}

template <typename T>
void WriteInteger(void* p, const Scalar& s, T null, T inf) {
  T v;
  switch (s.kind) {
    case Scalar::kNull: v = null; break;
    case Scalar::kPlusInf: v = inf; break;
    case Scalar::kMinusInf: v = static_cast<T>(-inf); break;
    default: v = static_cast<T>(s.is_float ? std::llround(s.f) : s.i); break;
  }
  std::memcpy(p, &v, sizeof v);
}

void Write(int t, const Scalar& s, void* p) {
  if (t == kabi::kBoolean) {
    *static_cast<std::uint8_t*>(p) = s.kind != Scalar::kValue || (s.is_float ? s.f != 0 : s.i != 0);
    return;
  }
  if (IsFloating(t)) {
    double v = s.is_float ? s.f : static_cast<double>(s.i);
    if (s.kind == Scalar::kNull)
      v = kabi::kNullFloat;
    else if (s.kind == Scalar::kPlusInf)
      v = kabi::kInfFloat;
    else if (s.kind == Scalar::kMinusInf)
      v = -kabi::kInfFloat;
    if (t == kabi::kReal) {
      const float e = static_cast<float>(v);
      std::memcpy(p, &e, sizeof e);
    } else {
      std::memcpy(p, &v, sizeof v);
    }
    return;
  }
  switch (internal::ItemWidth(t)) {
    case 1:
      *static_cast<std::uint8_t*>(p) =
          static_cast<std::uint8_t>(s.is_float ? std::llround(s.f) : s.i);
      return;
    case 2: return WriteInteger<std::int16_t>(p, s, kabi::kNullShort, kabi::kInfShort);
    case 4: return WriteInteger<std::int32_t>(p, s, kabi::kNullInt, kabi::kInfInt);
    default: return WriteInteger<std::int64_t>(p, s, kabi::kNullLong, kabi::kInfLong);
  }
}

// The target type of a cast, or 0 if `type` names none.
int TargetType(K type) {
  switch (type->t) {
    case -kabi::kShort: return type->h;
    case -kabi::kInt: return type->i;
    case -kabi::kLong: return static_cast<int>(type->j);
    case -kabi::kChar:
      for (int t = 1; t <= 19; ++t) {
        if (type->g != ' ' && internal::TypeLetter(t) == static_cast<char>(type->g)) return t;
      }
      return 0;
    case -kabi::kSymbol:
      for (int t = 1; t <= 19; ++t) {
        if (*type->s != '\0' && std::strcmp(internal::TypeName(t), type->s) == 0) return t;
      }
      return 0;
    default: return 0;
  }
}

K CastTo(int t, K x);

// `$"abc"` and `$("ab";"cd")`.
K ToSymbol(K x) {
  if (x->t == kabi::kChar)
    return kabi::ks(internal::Intern(absl::string_view(kabi::Chars(x), x->n)));
  if (x->t == -kabi::kChar)
    return kabi::ks(internal::Intern(absl::string_view(reinterpret_cast<char*>(&x->g), 1)));
  if (x->t != kabi::kMixed) return internal::Fail("type");
  for (std::int64_t i = 0; i < x->n; ++i) {
    if (kabi::Items(x)[i]->t != kabi::kChar) return internal::Fail("type");
  }
  K symbols = kabi::ktn(kabi::kSymbol, x->n);
  for (std::int64_t i = 0; i < x->n; ++i) {
    K item = kabi::Items(x)[i];
    kabi::Symbols(symbols)[i] = internal::Intern(absl::string_view(kabi::Chars(item), item->n));
  }
  return symbols;
}

K CastList(int t, K x) {
  std::vector<KRef> items;
  for (std::int64_t i = 0; i < x->n; ++i) {
    items.emplace_back(CastTo(t, kabi::Items(x)[i]));
    if (!items.back()) return nullptr;
  }
  return internal::Collapse(std::move(items));
}

K CastTo(int t, K x) {
  if (x->t == t || x->t == -t) return kabi::r1(x);
  if (t == kabi::kSymbol) return ToSymbol(x);
  if (x->t == kabi::kMixed) return CastList(t, x);
  if (!IsCastable(t) || !IsCastable(x->t < 0 ? -x->t : x->t)) return internal::Fail("type");
  if (x->t < 0) {
    K atom = kabi::ka(-t);
    Write(t, Read(-x->t, &x->g), &atom->g);
    return atom;
  }
  K vector = kabi::ktn(t, x->n);
  const std::size_t from = internal::ItemWidth(x->t);
  const std::size_t to = internal::ItemWidth(t);
  for (std::int64_t i = 0; i < x->n; ++i) {
    Write(t, Read(x->t, kabi::Bytes(x) + i * from), kabi::Bytes(vector) + i * to);
  }
  return vector;
}

// --- 1: --------------------------------------------------------------------------------------

// Removed, with the files in it, at exit.
const kscope::testing::TempDirectory& TempDirectory() {
  static const kscope::testing::TempDirectory directory("khost.");
  return directory;
}

}  // namespace

bool Match(K a, K b) {
  if (a == b) return true;
  if (a == nullptr || b == nullptr || a->t != b->t) return false;
  if (a->t < 0 || a->t >= kabi::kLambda || a->t == kabi::kError) return SameAtom(a, b);
  if (a->t == kabi::kTable) return Match(a->k, b->k);
  if (a->t == kabi::kDictionary)
    return Match(kabi::DictKeys(a), kabi::DictKeys(b)) &&
           Match(kabi::DictValues(a), kabi::DictValues(b));
  if (a->n != b->n) return false;
  if (a->t != kabi::kMixed) return SameItems(a, b);
  for (std::int64_t i = 0; i < a->n; ++i) {
    if (!Match(kabi::Items(a)[i], kabi::Items(b)[i])) return false;
  }
  return true;
}

std::string TempPath(absl::string_view q_path) {
  while (!q_path.empty() && (q_path.front() == ':' || q_path.front() == '/'))
    q_path.remove_prefix(1);
  return TempDirectory().Join(q_path);
}

namespace internal {

K ItemAtom(K x, std::int64_t i) {
  if (x->t == kabi::kMixed) return kabi::r1(kabi::Items(x)[i]);
  K atom = kabi::ka(-x->t);
  const std::size_t width = ItemWidth(x->t);
  void* to = x->t == kabi::kGuid ? kabi::Payload(atom) : static_cast<void*>(&atom->g);
  std::memcpy(to, kabi::Bytes(x) + i * width, width);
  return atom;
}

K Enlist(K x) {
  if (x->t < 0 && x->t >= -19) {
    K vector = kabi::ktn(-x->t, 1);
    const void* from = x->t == -kabi::kGuid ? kabi::Payload(x) : static_cast<const void*>(&x->g);
    std::memcpy(kabi::Payload(vector), from, ItemWidth(-x->t));
    return vector;
  }
  if (x->t == kabi::kDictionary && kabi::DictKeys(x)->t == kabi::kSymbol) {
    K values = kabi::DictValues(x);
    K columns = kabi::ktn(kabi::kMixed, Count(values));
    for (std::int64_t i = 0; i < columns->n; ++i) {
      K item = values->t == kabi::kMixed ? kabi::r1(kabi::Items(values)[i]) : ItemAtom(values, i);
      kabi::Items(columns)[i] = Enlist(item);
      kabi::r0(item);
    }
    K table = kabi::xT(kabi::xD(kabi::r1(kabi::DictKeys(x)), columns));
    if (table != nullptr) return table;
    ClearError();
  }
  return kabi::knk(1, kabi::r1(x));
}

K Collapse(std::vector<KRef> items) {
  const int type = items.empty() ? 0 : -items[0]->t;
  bool uniform = type > 0 && type <= 19;
  for (const KRef& item : items) uniform = uniform && item->t == -type;
  K x = kabi::ktn(uniform ? type : kabi::kMixed, static_cast<long long>(items.size()));
  const std::size_t width = ItemWidth(type);
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (uniform) {
      K atom = items[i].get();
      const void* value =
          type == kabi::kGuid ? kabi::Payload(atom) : static_cast<const void*>(&atom->g);
      std::memcpy(kabi::Bytes(x) + i * width, value, width);
    } else {
      kabi::Items(x)[i] = items[i].release();
    }
  }
  return x;
}

K Cast(K type, K x) {
  const int t = TargetType(type);
  if (t <= 0 || t > 19 || t == 3) return Fail("type");
  return CastTo(t, x);
}

K WriteBytes(K path, K data) {
  if (path->t != -kabi::kSymbol || !IsVectorType(data->t) || data->t == kabi::kMixed ||
      data->t == kabi::kSymbol) {
    return Fail("type");
  }
  const std::string file = TempPath(path->s);
  kscope::testing::MakeParentDirectories(file);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(kabi::Chars(data), static_cast<std::streamsize>(data->n * ItemWidth(data->t)));
  if (!out) return Fail(path->s);
  return kabi::ks(path->s);
}

}  // namespace internal
}  // namespace khost
