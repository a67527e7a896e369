// format.cc — the one-line form (S1), item tokens and the display settings.
#include "tests/khost/format.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tests/khost/heap.h"
#include "tests/khost/report.h"
#include "tests/khost/temporal.h"
#include "tests/khost/validate.h"

namespace khost {
namespace {

using kabi::K;

std::atomic<int> precision{7};
std::atomic<int> console_rows{25};
std::atomic<int> console_cols{80};

bool IsTemporal(int t) { return t >= kabi::kTimestamp && t <= kabi::kTime; }

// Integer storage of width 2, 4 or 8 with q's null and infinities.
std::string IntegerToken(const void* p, std::size_t width, int t) {
  std::int64_t v, null, inf;
  if (width == 2) {
    std::int16_t h;
    std::memcpy(&h, p, 2);
    v = h, null = kabi::kNullShort, inf = kabi::kInfShort;
  } else if (width == 4) {
    std::int32_t i;
    std::memcpy(&i, p, 4);
    v = i, null = kabi::kNullInt, inf = kabi::kInfInt;
  } else {
    std::memcpy(&v, p, 8);
    null = kabi::kNullLong, inf = kabi::kInfLong;
  }
  if (v == null) return "0N";
  if (v == inf) return "0W";
  if (v == -inf) return "-0W";
  return IsTemporal(t) ? internal::FormatTemporal(t, v) : absl::StrCat(v);
}

// The text of one item of vector type t at p, as it appears inside a vector (no suffix).
std::string Token(int t, const void* p) {
  const auto* bytes = static_cast<const std::uint8_t*>(p);
  switch (t) {
    case kabi::kBoolean: return *bytes ? "1" : "0";
    case kabi::kGuid:
      return absl::StrFormat("%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                             bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6],
                             bytes[7], bytes[8], bytes[9], bytes[10], bytes[11], bytes[12],
                             bytes[13], bytes[14], bytes[15]);
    case kabi::kByte: return absl::StrFormat("%02x", *bytes);
    case kabi::kReal: {
      float e;
      std::memcpy(&e, p, sizeof e);
      return std::isnan(e) ? "0N" : internal::FloatText(e);
    }
    case kabi::kFloat: {
      double f;
      std::memcpy(&f, p, sizeof f);
      return internal::FloatText(f);
    }
    case kabi::kDatetime: {
      double f;
      std::memcpy(&f, p, sizeof f);
      return std::isnan(f)   ? "0N"
             : std::isinf(f) ? internal::FloatText(f)
                             : internal::FormatDatetime(f);
    }
    case kabi::kChar: return std::string(1, static_cast<char>(*bytes));
    case kabi::kSymbol: {
      const char* s;
      std::memcpy(&s, p, sizeof s);
      return internal::IsUnfilled(s) ? "<unfilled>" : s;
    }
    default: return IntegerToken(p, internal::ItemWidth(t), t);
  }
}

bool IsSpecial(const std::string& token) {
  return token == "0N" || token == "0W" || token == "-0W" || token == "0w" || token == "-0w" ||
         token == "0n";
}

// A float token needs the f suffix unless something in it marks it as a float already.
bool LooksIntegral(const std::string& token) {
  return token.find_first_of(".enw") == std::string::npos;
}

void AppendQuoted(std::string* out, const char* chars, std::int64_t n) {
  out->push_back('"');
  for (std::int64_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(chars[i]);
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\t': out->append("\\t"); break;
      case '\r': out->append("\\r"); break;
      default:
        if (c < 32 || c == 127) {
          absl::StrAppendFormat(out, "\\%03o", c);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}

const void* AtomValue(K x) {
  return x->t == -kabi::kGuid ? kabi::Payload(x) : static_cast<const void*>(&x->g);
}

void AppendAtom(std::string* out, K x) {
  const int t = -x->t;
  std::string token = Token(t, AtomValue(x));
  switch (t) {
    case kabi::kBoolean: absl::StrAppend(out, token, "b"); return;
    case kabi::kByte: absl::StrAppend(out, "0x", token); return;
    case kabi::kShort: absl::StrAppend(out, token, "h"); return;
    case kabi::kInt: absl::StrAppend(out, token, "i"); return;
    case kabi::kReal: absl::StrAppend(out, token, "e"); return;
    case kabi::kFloat: absl::StrAppend(out, token, LooksIntegral(token) ? "f" : ""); return;
    case kabi::kChar: AppendQuoted(out, reinterpret_cast<const char*>(&x->g), 1); return;
    case kabi::kSymbol: absl::StrAppend(out, "`", token); return;
    default:
      if (IsTemporal(t) && IsSpecial(token)) {
        absl::StrAppend(out, token, std::string(1, internal::TypeLetter(t)));
      } else {
        absl::StrAppend(out, token, t == kabi::kMonth ? "m" : "");
      }
  }
}

void AppendSimpleVector(std::string* out, K x) {
  const int t = x->t;
  if (x->n == 0) {
    absl::StrAppend(out,
                    t == kabi::kChar ? "\"\"" : absl::StrCat("`", internal::TypeName(t), "$()"));
    return;
  }
  if (x->n == 1) out->push_back(',');
  if (t == kabi::kChar) return AppendQuoted(out, kabi::Chars(x), x->n);
  const std::size_t width = internal::ItemWidth(t);
  std::vector<std::string> tokens;
  tokens.reserve(static_cast<std::size_t>(x->n));
  for (std::int64_t i = 0; i < x->n; ++i) tokens.push_back(Token(t, kabi::Bytes(x) + i * width));
  switch (t) {
    case kabi::kBoolean: absl::StrAppend(out, absl::StrJoin(tokens, ""), "b"); return;
    case kabi::kByte: absl::StrAppend(out, "0x", absl::StrJoin(tokens, "")); return;
    case kabi::kSymbol:
      for (const std::string& token : tokens) absl::StrAppend(out, "`", token);
      return;
    default: break;
  }
  absl::StrAppend(out, absl::StrJoin(tokens, " "));
  bool all_special = true, all_integral = true;
  for (const std::string& token : tokens) {
    all_special = all_special && IsSpecial(token);
    all_integral = all_integral && LooksIntegral(token);
  }
  switch (t) {
    case kabi::kShort: out->push_back('h'); break;
    case kabi::kInt: out->push_back('i'); break;
    case kabi::kReal: out->push_back('e'); break;
    case kabi::kFloat:
      if (all_integral) out->push_back('f');
      break;
    case kabi::kMonth: out->push_back('m'); break;
    default:
      if (IsTemporal(t) && all_special) out->push_back(internal::TypeLetter(t));
  }
}

void AppendS1(std::string* out, K x);

void AppendDictionary(std::string* out, K x) {
  K keys = kabi::DictKeys(x);
  std::string key_text;
  AppendS1(&key_text, keys);
  const bool wrap =
      key_text.front() == ',' || (internal::Unrenderable(keys).empty() &&
                                  (keys->t == kabi::kTable || keys->t == kabi::kDictionary));
  absl::StrAppend(out, wrap ? "(" : "", key_text, wrap ? ")" : "", "!");
  AppendS1(out, kabi::DictValues(x));
}

void AppendS1(std::string* out, K x) {
  if (std::string placeholder = internal::Unrenderable(x); !placeholder.empty()) {
    out->append(placeholder);
    return;
  }
  if (x->t < 0 && x->t >= -19) return AppendAtom(out, x);
  if (x->t > 0 && x->t <= 19) return AppendSimpleVector(out, x);
  switch (x->t) {
    case kabi::kMixed:
      if (x->n == 1) out->push_back(',');
      if (x->n != 1) out->push_back('(');
      for (std::int64_t i = 0; i < x->n; ++i) {
        if (i > 0) out->push_back(';');
        AppendS1(out, kabi::Items(x)[i]);
      }
      if (x->n != 1) out->push_back(')');
      return;
    case kabi::kDictionary: return AppendDictionary(out, x);
    case kabi::kTable: out->push_back('+'); return AppendS1(out, x->k);
    case kabi::kUnaryPrimitive: out->append(x->g == 0 ? "::" : "<primitive>"); return;
    case kabi::kLambda: out->append("{host function}"); return;
    case kabi::kDynamicLoad: out->append("code"); return;
    case kabi::kError: absl::StrAppend(out, "'", x->s); return;
    default: absl::StrAppend(out, "<type ", x->t, ">");
  }
}

}  // namespace

std::string S1(K x) {
  if (x == nullptr) return "::";
  std::string out;
  AppendS1(&out, x);
  return out;
}

int SetPrecision(int digits) { return precision.exchange(digits); }

ConsoleSize SetConsoleSize(ConsoleSize size) {
  return ConsoleSize{console_rows.exchange(size.rows), console_cols.exchange(size.cols)};
}

namespace internal {

int Precision() { return precision.load() == 0 ? 17 : precision.load(); }

ConsoleSize CurrentConsoleSize() { return ConsoleSize{console_rows.load(), console_cols.load()}; }

std::string FloatText(double value) {
  if (std::isnan(value)) return "0n";
  if (std::isinf(value)) return value > 0 ? "0w" : "-0w";
  return absl::StrFormat("%.*g", Precision(), value);
}

std::string CellText(K x, std::int64_t i) {
  const std::size_t width = ItemWidth(x->t);
  std::string token = Token(x->t, kabi::Bytes(x) + i * width);
  if (token == "0N" || token == "0n") return "";
  return token;
}

std::string Unrenderable(K x) {
  if (IsUnfilled(x)) {
    Emit(Check::kUnfilledSlot, "rendering found a slot that was never filled");
    return "<unfilled>";
  }
  if (CheckEntry(x, "render", kAllowError)) return "";
  const Status s = Lookup(x);
  if (s.kind == Kind::kFreed || s.kind == Kind::kMoved)
    return absl::StrCat("<freed #", s.serial, ">");
  return "<bad pointer>";
}

}  // namespace internal
}  // namespace khost
