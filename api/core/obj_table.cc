#include "api/core/obj_table.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kscope {
namespace {

using Cells = std::vector<std::string>;

Cells CellsOf(const ObjectRow& row) {
  return {absl::StrCat(row.ptr.id()),
          std::string(ClassName(row.object_class)),
          row.device,
          row.dtype,
          absl::StrJoin(row.size, " "),
          absl::StrCat(row.elements),
          absl::StrCat(row.bytes),
          absl::StrCat(row.scope),
          row.origin};
}

void AppendLine(const Cells& cells, const std::vector<std::size_t>& widths, std::string* out) {
  for (std::size_t i = 0; i < cells.size(); ++i) {
    absl::StrAppend(out, cells[i]);
    if (i + 1 < cells.size()) out->append(widths[i] - cells[i].size() + 1, ' ');
  }
  out->push_back('\n');
}

}  // namespace

std::string FormatObjects(absl::Span<const ObjectRow> rows) {
  std::vector<Cells> table = {
      {"ptr", "class", "device", "dtype", "size", "elements", "bytes", "scope", "origin"}};
  for (const ObjectRow& row : rows) table.push_back(CellsOf(row));
  std::vector<std::size_t> widths(table[0].size(), 0);
  for (const Cells& cells : table) {
    for (std::size_t i = 0; i < cells.size(); ++i) widths[i] = std::max(widths[i], cells[i].size());
  }
  std::size_t total = widths.size() - 1;
  for (std::size_t w : widths) total += w;

  std::string out;
  AppendLine(table[0], widths, &out);
  out.append(total, '-');
  out.push_back('\n');
  for (std::size_t r = 1; r < table.size(); ++r) AppendLine(table[r], widths, &out);
  return out;
}

}  // namespace kscope
