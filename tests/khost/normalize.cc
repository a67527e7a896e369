// normalize.cc — text normalisation for comparing host output with scraped q transcripts.
#include <cctype>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "tests/khost/format.h"

namespace khost {
namespace {

std::string CollapseSpaces(absl::string_view line) {
  std::string out;
  for (char c : absl::StripAsciiWhitespace(line)) {
    const bool blank = c == ' ' || c == '\t';
    if (blank && !out.empty() && out.back() == ' ') continue;
    out.push_back(blank ? ' ' : c);
  }
  return out;
}

bool IsRule(const std::string& line) {
  return line.find('-') != std::string::npos && line.find_first_not_of("-| ") == std::string::npos;
}

std::string CollapseRule(const std::string& line) {
  std::string out;
  for (char c : line) {
    if (c == '-' && !out.empty() && out.back() == '-') continue;
    out.push_back(c);
  }
  return out;
}

std::string ReplaceNumbers(const std::string& line, const NormalizeOptions& options) {
  std::string out;
  for (std::size_t i = 0; i < line.size();) {
    const bool starts =
        std::isdigit(static_cast<unsigned char>(line[i])) &&
        (i == 0 || !(std::isalnum(static_cast<unsigned char>(line[i - 1])) || line[i - 1] == '.'));
    if (!starts) {
      out.push_back(line[i++]);
      continue;
    }
    std::size_t end = i;
    while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]))) ++end;
    const std::string digits = line.substr(i, end - i);
    const bool fractional =
        end < line.size() &&
        (line[end] == '.' || std::isalpha(static_cast<unsigned char>(line[end])));
    const bool pointer =
        !fractional && ((options.replace_pointers &&
                         digits.size() >= static_cast<std::size_t>(options.pointer_digits)) ||
                        absl::c_linear_search(options.volatile_numbers, digits));
    out += pointer ? "<ptr>" : digits;
    i = end;
  }
  return out;
}

}  // namespace

std::string Normalize(absl::string_view text, const NormalizeOptions& options) {
  std::vector<std::string> lines;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    std::string line = options.collapse_spaces ? CollapseSpaces(raw) : std::string(raw);
    if (options.collapse_rules && IsRule(line)) line = CollapseRule(line);
    lines.push_back(ReplaceNumbers(line, options));
  }
  if (options.collapse_spaces) {
    while (!lines.empty() && lines.back().empty()) lines.pop_back();
  }
  return absl::StrJoin(lines, "\n");
}

}  // namespace khost
