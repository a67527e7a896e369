// format.h — q's display of k values: the one-line form and the console form.
//
// S1(x) is what -3!, .Q.s1 and 0N! print: `,68610912`, `(,48128768;,48129232)`, `` `a`b!1 2 ``,
// `0.6666667 1.333333 2`, `1 2 3f`, `0 0 0e`, `0101b`, `` `symbol$() ``, `+`a`b!(1 2;3 4)`.
// Show(x) is the console: a general list one item per line, a dictionary as `key| value` rows,
// a table as header, dashes and rows, `::` as nothing; lines wider than the console end in `..`
// and rows past its height end with a `..` line. Both follow \P (significant digits, default 7)
// and Show follows \c (default 25 rows, 80 columns).
//
// Unfilled slots, freed or foreign children are reported and shown as <unfilled>, <freed #n>,
// <bad pointer>. A 112 function shows as `code`, a host function as `{host function}`.
//
// Thread-safety: rendering is safe from any thread; the settings are process-wide and should
// be changed only while nothing renders.
#ifndef KSCOPE_TESTS_KHOST_FORMAT_H_
#define KSCOPE_TESTS_KHOST_FORMAT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "q/convert/k_abi.h"

namespace khost {

// One-line form; S1(nullptr) is "::".
std::string S1(kabi::K x);
// Console form, lines joined by '\n' with no final newline; Show(nullptr) is "".
std::string Show(kabi::K x);

// \P: significant digits of reals and floats (0 = 17). Returns the previous setting.
int SetPrecision(int digits);
// \c: console rows and columns for Show. Returns the previous setting.
struct ConsoleSize {
  int rows = 25;
  int cols = 80;
};
ConsoleSize SetConsoleSize(ConsoleSize size);

// For comparing with q transcripts (the seed pages), whose spacing is collapsed.
struct NormalizeOptions {
  bool collapse_spaces =
      true;  // runs of blanks -> one space; lines trimmed; trailing blank lines dropped
  bool collapse_rules = true;     // runs of '-' in lines of only '-', '|' and ' ' -> one '-'
  bool replace_pointers = false;  // digit runs of at least pointer_digits -> "<ptr>"
  int pointer_digits = 7;
  std::vector<std::string> volatile_numbers;  // digit runs equal to one of these -> "<ptr>"
};
std::string Normalize(absl::string_view text, const NormalizeOptions& options = {});

namespace internal {

// Significant digits in force (after SetPrecision).
int Precision();
ConsoleSize CurrentConsoleSize();
// A float as q shows it without suffix: 0n, 0w, -0w, 1, 1.5, 9.223372e+18.
std::string FloatText(double value);
// Item i of a simple vector as a table or dictionary cell: no type suffix, nulls blank,
// symbols without backtick, chars bare.
std::string CellText(kabi::K x, std::int64_t i);
// Checks x before rendering; returns the placeholder text if it cannot be rendered ("" if it can).
std::string Unrenderable(kabi::K x);

}  // namespace internal
}  // namespace khost

#endif  // KSCOPE_TESTS_KHOST_FORMAT_H_
