// builders.h — kq::, short constructors of k values for tests.
//
// Every builder returns a new object the caller owns (wrap it in a KRef, or hand it to another
// builder or an API that takes it over). List, Dict, Table and Enlist take over the K values
// they are given. Symbols are interned.
//
//   KRef d(kq::Dict(kq::Syms({"a", "b"}), kq::List({kq::Bools({0, 1}), kq::Longs({1, 2, 3})})));
//
// Thread-safety: as the C API (any thread; symbols need setm(1) off the main thread).
#ifndef KSCOPE_TESTS_KHOST_BUILDERS_H_
#define KSCOPE_TESTS_KHOST_BUILDERS_H_

#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "q/convert/k_abi.h"

namespace kq {

using kabi::K;

// Atoms.
K Bool(bool value);
K Byte(std::uint8_t value);
K Short(std::int16_t value);
K Int(std::int32_t value);
K Long(std::int64_t value);
K Real(float value);
K Float(double value);
K Char(char value);
K Sym(absl::string_view text);
K Timestamp(std::int64_t nanos);  // since 2000.01.01
K Month(std::int32_t months);     // since 2000.01
K Date(std::int32_t days);        // since 2000.01.01
K Datetime(double days);          // since 2000.01.01
K Timespan(std::int64_t nanos);
K Minute(std::int32_t minutes);
K Second(std::int32_t seconds);
K Time(std::int32_t millis);
K Guid(const std::uint8_t (&bytes)[16]);

// The generic null `::`.
K Null();
// The null atom of a basic type 1..19 (0N, 0Nh, 0n, ` , " ", 0Nd, ...), and the positive
// infinity of a numeric or temporal type (0W, 0Wi, 0w, 0Wd, ...).
K NullOf(int type);
K InfOf(int type);

// Vectors.
K Bools(std::initializer_list<int> items);  // 0 or non-zero
K Bytes(std::initializer_list<std::uint8_t> items);
K Shorts(std::initializer_list<std::int16_t> items);
K Ints(std::initializer_list<std::int32_t> items);
K Longs(std::initializer_list<std::int64_t> items);
K Reals(std::initializer_list<float> items);
K Floats(std::initializer_list<double> items);
K Syms(std::initializer_list<absl::string_view> items);
K Str(absl::string_view text);
// A vector of an integer-stored type (1, 4..7, 12..14, 16..19) from raw values.
K Vector(int type, std::initializer_list<std::int64_t> items);

// General list; takes the items over.
K List(std::initializer_list<K> items);
K List(const std::vector<K>& items);
// A list as q builds (a;b;...) or collects `each` results: atoms of one basic type become a vector
// of that type, anything else a general list. Takes the items over.
K Collapse(const std::vector<K>& items);
// q's enlist; takes x over.
K Enlist(K x);
// keys!values; takes both over.
K Dict(K keys, K values);
// A table of named columns (each a vector); takes the columns over.
K Table(std::initializer_list<std::pair<absl::string_view, K>> columns);

}  // namespace kq

#endif  // KSCOPE_TESTS_KHOST_BUILDERS_H_
