// number_literal.cc — reading q's number-like tokens and building atoms and vectors from strands.
#include "tests/khost/number_literal.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tests/khost/heap.h"
#include "tests/khost/temporal.h"

namespace khost::internal {
namespace {

using kabi::K;

constexpr std::int64_t kNanosPerDay = 86400LL * 1000000000LL;

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

bool AllDigits(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

std::int64_t ToInt(absl::string_view digits) {
  return std::strtoll(std::string(digits).c_str(), nullptr, 10);
}

bool IsFloatType(int type) {
  return type == kabi::kReal || type == kabi::kFloat || type == kabi::kDatetime;
}

int LetterType(char letter) {
  for (int t = 1; t <= 19; ++t) {
    if (TypeLetter(t) == letter) return t;
  }
  return 0;
}

// hh:mm[:ss[.fraction]], hh of any length.
struct Clock {
  std::int64_t nanos = 0;
  int parts = 2;
  int fraction_digits = 0;
};

std::optional<Clock> ReadClock(absl::string_view s) {
  const std::size_t colon = s.find(':');
  if (colon == absl::string_view::npos || !AllDigits(s.substr(0, colon)) || s.size() < colon + 3)
    return std::nullopt;
  const absl::string_view minutes = s.substr(colon + 1, 2);
  if (!AllDigits(minutes)) return std::nullopt;
  Clock clock;
  std::int64_t seconds = ToInt(s.substr(0, colon)) * 3600 + ToInt(minutes) * 60;
  absl::string_view rest = s.substr(colon + 3);
  if (!rest.empty()) {
    if (rest.size() < 3 || rest[0] != ':' || !AllDigits(rest.substr(1, 2))) return std::nullopt;
    clock.parts = 3;
    seconds += ToInt(rest.substr(1, 2));
    rest.remove_prefix(3);
  }
  clock.nanos = seconds * 1000000000;
  if (!rest.empty()) {
    const absl::string_view fraction = rest.substr(1);
    if (rest[0] != '.' || fraction.size() > 9 || (!fraction.empty() && !AllDigits(fraction)))
      return std::nullopt;
    clock.fraction_digits = static_cast<int>(fraction.size());
    clock.nanos +=
        fraction.empty() ? 0 : ToInt(std::string(fraction) + std::string(9 - fraction.size(), '0'));
  }
  return clock;
}

std::optional<std::int64_t> ReadDate(absl::string_view s) {
  if (s.size() != 10 || s[4] != '.' || s[7] != '.' || !AllDigits(s.substr(0, 4)) ||
      !AllDigits(s.substr(5, 2)) || !AllDigits(s.substr(8, 2))) {
    return std::nullopt;
  }
  return DaysFromCivil(ToInt(s.substr(0, 4)), static_cast<int>(ToInt(s.substr(5, 2))),
                       static_cast<int>(ToInt(s.substr(8, 2))));
}

NumberToken Temporal(int type, std::int64_t value) {
  NumberToken t;
  t.type = type;
  t.explicit_type = true;
  t.i = value;
  return t;
}

// 0N 0Nh 0W 0Wi -0W 0n 0w -0w 0we ...
std::optional<NumberToken> ReadSpecial(absl::string_view body, bool negative) {
  NumberToken t;
  if (body == "0n") {
    t.type = kabi::kFloat, t.kind = NumberToken::kNull, t.is_float = true;
    return t;
  }
  const bool lower_inf = body.substr(0, 2) == "0w";
  if (body.size() > 3 || !(body.substr(0, 2) == "0N" || body.substr(0, 2) == "0W" || lower_inf))
    return std::nullopt;
  t.explicit_type = body.size() == 3;
  t.type = t.explicit_type ? LetterType(body[2]) : (lower_inf ? kabi::kFloat : kabi::kLong);
  const bool numeric = (t.type >= kabi::kShort && t.type <= kabi::kFloat) ||
                       (t.type >= kabi::kTimestamp && t.type <= kabi::kTime);
  if (!numeric || (lower_inf && !IsFloatType(t.type))) return std::nullopt;
  t.is_float = IsFloatType(t.type);
  t.kind = body[1] == 'N' ? NumberToken::kNull
           : negative     ? NumberToken::kMinusInf
                          : NumberToken::kPlusInf;
  return t;
}

// Dates, months, timestamps, datetimes, timespans, minutes, seconds and times.
std::optional<NumberToken> ReadTemporal(absl::string_view body, bool negative) {
  if (std::optional<std::int64_t> days = ReadDate(body.substr(0, 10)); days && !negative) {
    const absl::string_view rest = body.substr(10);
    if (rest.empty() || rest == "d") return Temporal(kabi::kDate, *days);
    std::optional<Clock> clock = ReadClock(rest.substr(1));
    if (!clock) return std::nullopt;
    if (rest[0] == 'D') return Temporal(kabi::kTimestamp, *days * kNanosPerDay + clock->nanos);
    if (rest[0] != 'T') return std::nullopt;
    NumberToken t = Temporal(kabi::kDatetime, 0);
    t.is_float = true;
    t.f = static_cast<double>(*days) + static_cast<double>(clock->nanos) / kNanosPerDay;
    return t;
  }
  const std::int64_t sign = negative ? -1 : 1;
  if (body.size() == 8 && body[4] == '.' && body[7] == 'm' && AllDigits(body.substr(0, 4)) &&
      AllDigits(body.substr(5, 2))) {
    return Temporal(kabi::kMonth,
                    (ToInt(body.substr(0, 4)) - 2000) * 12 + ToInt(body.substr(5, 2)) - 1);
  }
  const std::size_t d = body.find('D');
  if (d != absl::string_view::npos && AllDigits(body.substr(0, d))) {
    absl::string_view clock_text = body.substr(d + 1);
    if (!clock_text.empty() && clock_text.back() == 'n') clock_text.remove_suffix(1);
    std::optional<Clock> clock = ReadClock(clock_text);
    if (!clock) return std::nullopt;
    return Temporal(kabi::kTimespan,
                    sign * (ToInt(body.substr(0, d)) * kNanosPerDay + clock->nanos));
  }
  if (body.find(':') == absl::string_view::npos) return std::nullopt;
  char suffix = body.back();
  absl::string_view clock_text = body;
  if (std::isalpha(static_cast<unsigned char>(suffix))) {
    clock_text.remove_suffix(1);
  } else {
    suffix = 0;
  }
  std::optional<Clock> clock = ReadClock(clock_text);
  if (!clock) return std::nullopt;
  int type = clock->parts == 2             ? kabi::kMinute
             : clock->fraction_digits == 0 ? kabi::kSecond
                                           : kabi::kTime;
  if (suffix != 0) type = LetterType(suffix);
  switch (type) {
    case kabi::kMinute: return Temporal(type, sign * (clock->nanos / 60000000000LL));
    case kabi::kSecond: return Temporal(type, sign * (clock->nanos / 1000000000LL));
    case kabi::kTime: return Temporal(type, sign * (clock->nanos / 1000000LL));
    case kabi::kTimespan: return Temporal(type, sign * clock->nanos);
    default: return std::nullopt;
  }
}

// -?(digits[.digits]|.digits)(e[+-]digits)? then an optional h i j e f suffix.
std::optional<NumberToken> ReadPlain(absl::string_view token) {
  std::size_t i = token[0] == '-' ? 1 : 0;
  const std::size_t start = i;
  bool is_float = false;
  while (i < token.size() && IsDigit(token[i])) ++i;
  if (i < token.size() && token[i] == '.') {
    is_float = true;
    ++i;
    while (i < token.size() && IsDigit(token[i])) ++i;
  }
  if (i == start || (i == start + 1 && token[start] == '.')) return std::nullopt;
  const bool exponent = i + 1 < token.size() && token[i] == 'e' &&
                        (IsDigit(token[i + 1]) ||
                         ((token[i + 1] == '-' || token[i + 1] == '+') && i + 2 < token.size()));
  if (exponent) {
    is_float = true;
    i += 2;
    while (i < token.size() && IsDigit(token[i])) ++i;
  }
  const std::string mantissa(token.substr(0, i));
  NumberToken t;
  t.is_float = is_float;
  t.type = is_float ? kabi::kFloat : kabi::kLong;
  if (i + 1 == token.size()) {
    t.type = LetterType(token[i]);
    if (t.type != kabi::kShort && t.type != kabi::kInt && t.type != kabi::kLong &&
        t.type != kabi::kReal && t.type != kabi::kFloat) {
      return std::nullopt;
    }
    t.explicit_type = true;
  } else if (i != token.size()) {
    return std::nullopt;
  }
  if (t.is_float || IsFloatType(t.type)) {
    t.is_float = true;
    t.f = std::strtod(mantissa.c_str(), nullptr);
  } else {
    t.i = std::strtoll(mantissa.c_str(), nullptr, 10);
  }
  return t;
}

// The type of a strand: a suffix on the last token, else any explicit token's, else float if
// any token is a float, else long. 0 if explicit types disagree.
int StrandType(const std::vector<NumberToken>& tokens) {
  if (tokens.back().explicit_type) return tokens.back().type;
  int type = 0;
  bool any_float = false;
  for (const NumberToken& t : tokens) {
    any_float = any_float || t.is_float;
    if (!t.explicit_type) continue;
    if (type != 0 && type != t.type) return 0;
    type = t.type;
  }
  if (type != 0) return type;
  return any_float ? kabi::kFloat : kabi::kLong;
}

void Store(const NumberToken& t, int type, void* p) {
  if (IsFloatType(type)) {
    double v = t.is_float ? t.f : static_cast<double>(t.i);
    if (t.kind == NumberToken::kNull) v = kabi::kNullFloat;
    if (t.kind == NumberToken::kPlusInf) v = kabi::kInfFloat;
    if (t.kind == NumberToken::kMinusInf) v = -kabi::kInfFloat;
    if (type == kabi::kReal) {
      const float e = static_cast<float>(v);
      std::memcpy(p, &e, sizeof e);
    } else {
      std::memcpy(p, &v, sizeof v);
    }
    return;
  }
  const std::size_t width = ItemWidth(type);
  const std::int64_t null = width == 2   ? kabi::kNullShort
                            : width == 4 ? kabi::kNullInt
                                         : kabi::kNullLong;
  const std::int64_t inf = width == 2   ? kabi::kInfShort
                           : width == 4 ? kabi::kInfInt
                                        : kabi::kInfLong;
  std::int64_t v = t.is_float ? std::llround(t.f) : t.i;
  if (t.kind == NumberToken::kNull) v = null;
  if (t.kind == NumberToken::kPlusInf) v = inf;
  if (t.kind == NumberToken::kMinusInf) v = -inf;
  std::memcpy(p, &v, width);  // little-endian: the low bytes are the narrower integer
}

}  // namespace

bool StartsNumber(absl::string_view text) {
  if (text.empty()) return false;
  const auto digit_at = [&](std::size_t i) { return i < text.size() && IsDigit(text[i]); };
  if (IsDigit(text[0])) return true;
  if (text[0] == '.') return digit_at(1);
  return text[0] == '-' && (digit_at(1) || (text.size() > 1 && text[1] == '.' && digit_at(2)));
}

std::size_t TokenLength(absl::string_view text) {
  std::size_t i = 1;
  while (i < text.size()) {
    const char c = text[i];
    const bool exponent_sign =
        (c == '-' || c == '+') && text[i - 1] == 'e' && text.substr(0, 2) != "0x";
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == ':' || exponent_sign))
      break;
    ++i;
  }
  return i;
}

std::optional<NumberToken> ReadNumber(absl::string_view token) {
  if (token.empty()) return std::nullopt;
  const bool negative = token[0] == '-';
  const absl::string_view body = negative ? token.substr(1) : token;
  if (std::optional<NumberToken> special = ReadSpecial(body, negative)) return special;
  if (std::optional<NumberToken> temporal = ReadTemporal(body, negative)) return temporal;
  return ReadPlain(token);
}

K ReadBitsOrBytes(absl::string_view token) {
  if (token.size() >= 2 && token.substr(0, 2) == "0x") {
    const absl::string_view hex = token.substr(2);
    if (hex.size() % 2 != 0 ||
        hex.find_first_not_of("0123456789abcdefABCDEF") != absl::string_view::npos)
      return nullptr;
    const std::size_t n = hex.size() / 2;
    K x = n == 1 ? kabi::ka(-kabi::kByte) : kabi::ktn(kabi::kByte, static_cast<long long>(n));
    std::uint8_t* bytes = n == 1 ? &x->g : kabi::Bytes(x);
    for (std::size_t i = 0; i < n; ++i)
      bytes[i] =
          static_cast<std::uint8_t>(std::stoi(std::string(hex.substr(2 * i, 2)), nullptr, 16));
    return x;
  }
  if (token.size() < 2 || token.back() != 'b' || token.find_first_not_of("01") != token.size() - 1)
    return nullptr;
  const std::size_t n = token.size() - 1;
  K x = n == 1 ? kabi::ka(-kabi::kBoolean) : kabi::ktn(kabi::kBoolean, static_cast<long long>(n));
  std::uint8_t* bits = n == 1 ? &x->g : kabi::Bytes(x);
  for (std::size_t i = 0; i < n; ++i) bits[i] = token[i] == '1';
  return x;
}

K BuildStrand(const std::vector<NumberToken>& tokens) {
  const int type = StrandType(tokens);
  if (type == 0) return nullptr;
  if (tokens.size() == 1) {
    K atom = kabi::ka(-type);
    Store(tokens[0], type, &atom->g);
    return atom;
  }
  K vector = kabi::ktn(type, static_cast<long long>(tokens.size()));
  const std::size_t width = ItemWidth(type);
  for (std::size_t i = 0; i < tokens.size(); ++i)
    Store(tokens[i], type, kabi::Bytes(vector) + i * width);
  return vector;
}

}  // namespace khost::internal
