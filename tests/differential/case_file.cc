#include "tests/differential/case_file.h"

#include <cctype>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace kscope::differential {
namespace {

bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The name at the start of s (letters, digits, _), possibly empty.
absl::string_view LeadingName(absl::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && IsNameChar(s[n])) ++n;
  return s.substr(0, n);
}

// The arguments of "[a;b;c]" (s starts at '['), split at the semicolons outside brackets,
// parentheses and strings; false if the closing ']' is missing or text follows it.
bool SplitBracketed(absl::string_view s, std::vector<std::string>* out) {
  int depth = 0;
  bool in_string = false;
  std::size_t start = 1;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) {
        if (!absl::StripAsciiWhitespace(s.substr(i + 1)).empty()) return false;
        const std::string last(absl::StripAsciiWhitespace(s.substr(start, i - start)));
        if (!last.empty() || !out->empty()) out->push_back(last);
        return true;
      }
    } else if (c == ';' && depth == 1) {
      out->emplace_back(absl::StripAsciiWhitespace(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  return false;
}

}  // namespace

std::vector<std::string> ReferencedNames(absl::string_view literal) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < literal.size(); ++i) {
    if (literal[i] == '@') names.emplace_back(LeadingName(literal.substr(i + 1)));
  }
  return names;
}

absl::StatusOr<std::vector<Case>> ParseCases(absl::string_view text) {
  std::vector<Case> cases;
  absl::flat_hash_set<std::string> bound;
  int line_number = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++line_number;
    absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (line.empty() || line.front() == '#') continue;
    const auto fail = [&](absl::string_view why) {
      return absl::InvalidArgumentError(
          absl::StrFormat("case line %d: %s: %s", line_number, why, line));
    };
    Case c;
    c.line = line_number;
    c.text = std::string(line);
    c.without_cuda_only = absl::ConsumePrefix(&line, "%");
    c.shape_only = absl::ConsumePrefix(&line, "~");
    const absl::string_view first = LeadingName(line);
    absl::string_view rest = line.substr(first.size());
    if (!first.empty() && absl::ConsumePrefix(&rest, ":")) {
      c.binding = std::string(first);
      line = absl::StripLeadingAsciiWhitespace(rest);
    }
    c.function = std::string(LeadingName(line));
    if (c.function.empty()) return fail("expected a function name");
    absl::string_view args = line.substr(c.function.size());
    if (!args.empty() && args.front() == '[') {
      c.bracketed = true;
      if (!SplitBracketed(args, &c.arguments)) return fail("expected f[a;b;...] with a closing ]");
    } else {
      args = absl::StripAsciiWhitespace(args);
      if (args.empty()) return fail("expected an argument, or f[] for none");
      c.arguments.emplace_back(args);
    }
    for (const std::string& argument : c.arguments) {
      for (const std::string& name : ReferencedNames(argument)) {
        if (!bound.contains(name)) return fail("@" + name + " is not bound above");
      }
    }
    if (!c.binding.empty()) bound.insert(c.binding);
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace kscope::differential
