// show.cc — the console form: lists by line, dictionaries as key| value, tables with a header,
// and the \c truncation of wide lines and long outputs.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/khost/format.h"
#include "tests/khost/validate.h"

namespace khost {
namespace {

using kabi::K;
using Lines = std::vector<std::string>;

bool IsSimpleVector(K x) { return x->t > 0 && x->t <= 19; }

// The display cells of a list: simple vectors cell by cell, general lists item by item in S1.
std::vector<std::string> Cells(K list) {
  std::vector<std::string> cells;
  for (std::int64_t i = 0; i < list->n; ++i) {
    cells.push_back(IsSimpleVector(list) ? internal::CellText(list, i) : S1(kabi::Items(list)[i]));
  }
  return cells;
}

// Columns side by side, each padded to its widest cell or name; the last one unpadded.
struct Block {
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> columns;
  std::vector<std::size_t> widths;
  std::size_t rows = 0;

  std::string Row(std::size_t r) const {
    return Join([&](std::size_t c) -> const std::string& { return columns[c][r]; });
  }
  std::string Header() const {
    return Join([&](std::size_t c) -> const std::string& { return names[c]; });
  }
  std::string Rule() const {
    std::size_t total = widths.empty() ? 0 : widths.size() - 1;
    for (std::size_t w : widths) total += w;
    return std::string(total, '-');
  }

 private:
  template <typename Text>
  std::string Join(Text text) const {
    std::string line;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (c > 0) line.push_back(' ');
      line += text(c);
      if (c + 1 < columns.size()) line.append(widths[c] - text(c).size(), ' ');
    }
    return line;
  }
};

// The block of a well-formed table (its dictionary validated by the caller).
Block TableBlock(K table) {
  K d = table->k;
  K names = kabi::DictKeys(d);
  K columns = kabi::DictValues(d);
  Block block;
  for (std::int64_t c = 0; c < names->n; ++c) {
    block.names.emplace_back(kabi::Symbols(names)[c]);
    block.columns.push_back(Cells(kabi::Items(columns)[c]));
    std::size_t width = block.names.back().size();
    for (const std::string& cell : block.columns.back()) width = std::max(width, cell.size());
    block.widths.push_back(width);
    block.rows = block.columns.back().size();
  }
  return block;
}

bool IsRenderableTable(K x) {
  return internal::Unrenderable(x).empty() && x->t == kabi::kTable &&
         internal::ValidateTree(x, "Show");
}

Lines ShowTable(K table) {
  const Block block = TableBlock(table);
  Lines lines{block.Header(), block.Rule()};
  for (std::size_t r = 0; r < block.rows; ++r) lines.push_back(block.Row(r));
  return lines;
}

Lines ShowKeyedTable(K keys, K values) {
  const Block left = TableBlock(keys);
  const Block right = TableBlock(values);
  auto pair = [](const std::string& a, const std::string& b) { return absl::StrCat(a, "| ", b); };
  Lines lines{pair(left.Header(), right.Header()), pair(left.Rule(), right.Rule())};
  for (std::size_t r = 0; r < std::min(left.rows, right.rows); ++r)
    lines.push_back(pair(left.Row(r), right.Row(r)));
  return lines;
}

Lines ShowDictionary(K x) {
  K keys = kabi::DictKeys(x);
  K values = kabi::DictValues(x);
  if (IsRenderableTable(keys) && IsRenderableTable(values)) return ShowKeyedTable(keys, values);
  const bool lists = internal::Unrenderable(keys).empty() &&
                     internal::Unrenderable(values).empty() && keys->t >= 0 && keys->t <= 19 &&
                     values->t >= 0 && values->t <= 19 && keys->n == values->n;
  if (!lists) return {S1(x)};
  const std::vector<std::string> key_cells = Cells(keys);
  const std::vector<std::string> value_cells = Cells(values);
  std::size_t width = 0;
  for (const std::string& key : key_cells) width = std::max(width, key.size());
  Lines lines;
  for (std::size_t i = 0; i < key_cells.size(); ++i) {
    lines.push_back(absl::StrCat(key_cells[i], std::string(width - key_cells[i].size(), ' '), "| ",
                                 value_cells[i]));
  }
  return lines;
}

Lines ShowLines(K x) {
  if (!internal::Unrenderable(x).empty()) return {S1(x)};
  switch (x->t) {
    case kabi::kUnaryPrimitive: return x->g == 0 ? Lines{} : Lines{S1(x)};
    case kabi::kMixed: {
      Lines lines;
      for (std::int64_t i = 0; i < x->n; ++i) lines.push_back(S1(kabi::Items(x)[i]));
      return lines;
    }
    case kabi::kDictionary: return ShowDictionary(x);
    case kabi::kTable: return IsRenderableTable(x) ? ShowTable(x) : Lines{S1(x)};
    default: return {S1(x)};
  }
}

}  // namespace

std::string Show(K x) {
  if (x == nullptr) return "";
  Lines lines = ShowLines(x);
  const ConsoleSize size = internal::CurrentConsoleSize();
  for (std::string& line : lines) {
    if (line.size() >= static_cast<std::size_t>(size.cols))
      line = line.substr(0, size.cols - 3) + "..";
  }
  if (lines.size() > static_cast<std::size_t>(size.rows)) {
    lines.resize(size.rows - 1);
    lines.push_back("..");
  }
  return absl::StrJoin(lines, "\n");
}

}  // namespace khost
