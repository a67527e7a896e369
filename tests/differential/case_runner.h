// RunCases — runs differential cases (case_file.h) through a loaded plugin and writes down what
// each returned, in a form that compares across plugins.
//
// An outcome is the result's one-line q text (khost::S1) with every pointer (a one-item general
// list holding a long, ktorch's form) written `<ptr>`, since pointer values differ between
// plugins and runs; a failed call is its error text after a quote ('unrecognized arg(s)); a `~`
// case gives only the types and counts ("9h#3", "(-7h;0h#2)"); `::` is "::".
//
// Each case's literals are parsed with kq::Parse after @name is replaced by the value bound to
// name; a case whose literal does not parse, or that names a binding whose call failed, has
// the outcome "!<why>" and calls nothing.
// Bound values are released when RunCases returns; pointers in them are not freed (the cases
// free what they make).
//
// Thread-compatible: call from the thread that loaded the plugin.
#ifndef KSCOPE_TESTS_DIFFERENTIAL_CASE_RUNNER_H_
#define KSCOPE_TESTS_DIFFERENTIAL_CASE_RUNNER_H_

#include <string>
#include <vector>

#include "tests/differential/case_file.h"
#include "tests/khost/library.h"

namespace kscope::differential {

// One outcome per case, in order.
std::vector<std::string> RunCases(const khost::Library& plugin, const std::vector<Case>& cases);

// The outcome text of a value (as RunCases writes it).
std::string Outcome(kabi::K x, bool shape_only);

}  // namespace kscope::differential

#endif  // KSCOPE_TESTS_DIFFERENTIAL_CASE_RUNNER_H_
