#include "api/core/leak_check.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "api/core/obj_table.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "scope/scope_stack.h"

namespace kscope {

LeakCheck::LeakCheck() : LeakCheck(HandleTable::Global().LastId(), ScopeDepth()) {}

LeakCheck LeakCheck::After(std::uint64_t id) { return LeakCheck(id, -1); }

std::vector<ObjectRow> LeakCheck::Leaks() const {
  std::vector<ObjectRow> rows = obj();
  rows.erase(std::remove_if(rows.begin(), rows.end(),
                            [&](const ObjectRow& row) { return row.ptr.id() <= last_id_; }),
             rows.end());
  return rows;
}

int LeakCheck::ScopesLeftOpen() const {
  return depth_ < 0 ? 0 : std::max(0, ScopeDepth() - depth_);
}

std::string LeakCheck::Report() const {
  std::string report;
  if (const int open = ScopesLeftOpen(); open > 0) {
    absl::StrAppendFormat(&report, "%d scope(s) opened since the checkpoint still open\n", open);
  }
  const std::vector<ObjectRow> leaks = Leaks();
  if (leaks.empty()) return report;
  absl::StrAppendFormat(&report, "%d handle(s) created since the checkpoint still alive:\n%s",
                        leaks.size(), FormatObjects(leaks));
  const std::vector<ScopeId> mine = OpenScopes();
  for (const ObjectRow& row : leaks) {
    const bool this_thread = std::find(mine.begin(), mine.end(), row.owner) != mine.end();
    absl::StrAppendFormat(&report, "  ptr %d (from %s) owned by %s\n", row.ptr.id(), row.origin,
                          row.owner == kRootScope ? std::string("the root scope")
                          : this_thread ? absl::StrFormat("scope %d of this thread", row.owner)
                                        : absl::StrFormat("scope %d of another thread", row.owner));
  }
  absl::StrAppendFormat(&report, "bytes left: %s\n", BytesText(BytesByDevice(leaks)));
  return report;
}

std::vector<std::pair<std::string, std::int64_t>> LeakCheck::BytesByDevice(
    const std::vector<ObjectRow>& leaks) {
  std::vector<std::pair<std::string, std::int64_t>> bytes;
  for (const ObjectRow& row : leaks) {
    auto it = std::find_if(bytes.begin(), bytes.end(),
                           [&](const auto& device) { return device.first == row.device; });
    if (it == bytes.end()) it = bytes.insert(bytes.end(), {row.device, 0});
    it->second += row.bytes;
  }
  return bytes;
}

std::string BytesText(const std::vector<std::pair<std::string, std::int64_t>>& bytes) {
  return absl::StrJoin(bytes, ", ", [](std::string* out, const auto& device) {
    absl::StrAppend(out, device.first, " ", device.second);
  });
}

std::size_t LeakCheck::Release() {
  const std::vector<ObjectRow> leaks = Leaks();
  std::vector<ScopeId> open = OpenScopes();
  while (depth_ >= 0 && static_cast<int>(open.size()) > depth_) {
    CloseScopeNoThrow(open.back(), {});
    open.pop_back();
  }
  for (const ObjectRow& row : leaks) {
    try {
      if (mapped(row.ptr)) kscope::free(row.ptr);
    } catch (const Error&) {
      // freed by another thread meanwhile
    }
  }
  return leaks.size();
}

}  // namespace kscope
