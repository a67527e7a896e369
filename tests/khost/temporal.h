// temporal.h — q's calendar: dates as days since 2000.01.01, and the text of temporal values.
//
// Thread-safety: pure functions.
#ifndef KSCOPE_TESTS_KHOST_TEMPORAL_H_
#define KSCOPE_TESTS_KHOST_TEMPORAL_H_

#include <cstdint>
#include <string>

namespace khost::internal {

// Days since 2000.01.01 of a proleptic Gregorian date, and back.
std::int64_t DaysFromCivil(std::int64_t year, int month, int day);
void CivilFromDays(std::int64_t days, std::int64_t* year, int* month, int* day);

// The text of a non-null, finite temporal value of type 12..19 (q's display without type
// suffix): 2000.01.01D00:00:00.000000000, 2000.01, 2000.01.01, 0D00:00:00.000000000, 00:00,
// 00:00:00, 00:00:00.000. `value` is the raw integer (months, days, ns, ms, ...).
std::string FormatTemporal(int type, std::int64_t value);
// A datetime (fractional days): 2000.01.01T00:00:00.000.
std::string FormatDatetime(double days);

}  // namespace khost::internal

#endif  // KSCOPE_TESTS_KHOST_TEMPORAL_H_
