// Differential case files: ktorch calls, one per line, run in order through a plugin by
// tests/differential/case_runner.h, so the same calls can go through the real ktorch and kscope.
//
//   # a comment; blank lines are skipped
//   q: module (`linear;2;3)       name: binds the result for the lines below (until bound again)
//   size @q                       @name stands for the value bound to name
//   ~ptr @q                       ~: compare the result's types and counts, not its values
//   %cudadevice 1 2 3             %: the outcome where there is no CUDA device (ktorch checks
//                                 for one first); compared only on such machines
//   use[@a;@b]                    f[a;b;...]: several arguments (a rank-n function)
//   obj[]                         no argument: the function receives ::
//   fns[]                         the dictionary the plugin's fns gave when it was loaded
//   tensor (1 2 3;`double)        anything else after the name is one q literal (kq::Parse)
//
// Names are letters, digits and _; a literal is whatever kq::Parse reads, with @name allowed
// wherever a value may stand.
//
// Errors: ParseCases returns InvalidArgument naming the line for a malformed line (no function
// name, an unclosed [, a @name before name is bound). Thread-compatible.
#ifndef KSCOPE_TESTS_DIFFERENTIAL_CASE_FILE_H_
#define KSCOPE_TESTS_DIFFERENTIAL_CASE_FILE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kscope::differential {

struct Case {
  int line = 0;                        // in the file, from 1
  std::string text;                    // the line as written, without surrounding blanks
  std::string binding;                 // the name the result is bound to, or ""
  bool without_cuda_only = false;      // %: compared only where there is no CUDA device
  bool shape_only = false;             // ~: compare types and counts only
  std::string function;                // the plugin function's name
  bool bracketed = false;              // f[...]: arguments listed, each one argument
  std::vector<std::string> arguments;  // q literals; f x has one, f[] none
};

absl::StatusOr<std::vector<Case>> ParseCases(absl::string_view text);

// The names a literal refers to with @name, in order.
std::vector<std::string> ReferencedNames(absl::string_view literal);

}  // namespace kscope::differential

#endif  // KSCOPE_TESTS_DIFFERENTIAL_CASE_FILE_H_
