// temporal.cc — calendar arithmetic (Howard Hinnant's civil-date algorithms), temporal display,
// and the C functions ymd, dj and ver.
#include "tests/khost/temporal.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "q/convert/k_abi.h"

namespace khost::internal {
namespace {

constexpr std::int64_t kDaysTo2000 = 10957;  // 1970.01.01 -> 2000.01.01
constexpr std::int64_t kNanosPerDay = 86400LL * 1000000000LL;

std::int64_t FloorDiv(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

// "hh:mm:ss" plus the fraction of `fraction_digits` digits from `nanos` (nanoseconds of the day).
std::string ClockText(std::int64_t nanos, int fraction_digits) {
  const std::int64_t seconds = nanos / 1000000000;
  std::string text =
      absl::StrFormat("%02d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60);
  if (fraction_digits == 9) absl::StrAppendFormat(&text, ".%09d", nanos % 1000000000);
  if (fraction_digits == 3) absl::StrAppendFormat(&text, ".%03d", nanos % 1000000000 / 1000000);
  return text;
}

std::string DateText(std::int64_t days) {
  std::int64_t year;
  int month, day;
  CivilFromDays(days, &year, &month, &day);
  return absl::StrFormat("%04d.%02d.%02d", year, month, day);
}

// Date and time of day of `nanos` nanoseconds since 2000.01.01.
std::string Stamp(std::int64_t nanos, char separator, int fraction_digits) {
  const std::int64_t days = FloorDiv(nanos, kNanosPerDay);
  return DateText(days) + separator + ClockText(nanos - days * kNanosPerDay, fraction_digits);
}

}  // namespace

std::int64_t DaysFromCivil(std::int64_t year, int month, int day) {
  year -= month <= 2;
  const std::int64_t era = FloorDiv(year, 400);
  const std::int64_t year_of_era = year - era * 400;
  const std::int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const std::int64_t day_of_era =
      year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468 - kDaysTo2000;
}

void CivilFromDays(std::int64_t days, std::int64_t* year, int* month, int* day) {
  const std::int64_t z = days + kDaysTo2000 + 719468;
  const std::int64_t era = FloorDiv(z, 146097);
  const std::int64_t day_of_era = z - era * 146097;
  const std::int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const std::int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const std::int64_t mp = (5 * day_of_year + 2) / 153;
  *day = static_cast<int>(day_of_year - (153 * mp + 2) / 5 + 1);
  *month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *year = year_of_era + era * 400 + (*month <= 2);
}

std::string FormatTemporal(int type, std::int64_t value) {
  const absl::string_view sign = value < 0 ? "-" : "";
  const std::int64_t magnitude = value < 0 ? -value : value;
  switch (type) {
    case kabi::kTimestamp: return Stamp(value, 'D', 9);
    case kabi::kMonth: {
      const std::int64_t years = FloorDiv(value, 12);
      return absl::StrFormat("%04d.%02d", 2000 + years, value - years * 12 + 1);
    }
    case kabi::kDate: return DateText(value);
    case kabi::kTimespan:
      return absl::StrCat(sign, magnitude / kNanosPerDay, "D",
                          ClockText(magnitude % kNanosPerDay, 9));
    case kabi::kMinute: return absl::StrFormat("%s%02d:%02d", sign, magnitude / 60, magnitude % 60);
    case kabi::kSecond: return absl::StrCat(sign, ClockText(magnitude * 1000000000, 0));
    case kabi::kTime: return absl::StrCat(sign, ClockText(magnitude * 1000000, 3));
    default: return absl::StrCat(value);
  }
}

std::string FormatDatetime(double days) {
  return Stamp(static_cast<std::int64_t>(std::llround(days * 86400000.0)) * 1000000, 'T', 3);
}

}  // namespace khost::internal

int kabi::ymd(int year, int month, int day) {
  return static_cast<int>(khost::internal::DaysFromCivil(year, month, day));
}

int kabi::dj(int date) {
  std::int64_t year;
  int month, day;
  khost::internal::CivilFromDays(date, &year, &month, &day);
  return static_cast<int>(year * 10000 + month * 100 + day);
}

int kabi::ver() { return 20231122; }
