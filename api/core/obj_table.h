// FormatObjects — obj[] rows as the q console shows a table: a header of column names, a rule,
// then one left-aligned line per row (ptr class device dtype size elements bytes scope origin).
// Used by examples and by the leak-check fixture's failure message. Pure; thread-safe.
#ifndef KSCOPE_API_CORE_OBJ_TABLE_H_
#define KSCOPE_API_CORE_OBJ_TABLE_H_

#include <string>

#include "absl/types/span.h"
#include "api/core/pointer.h"

namespace kscope {

std::string FormatObjects(absl::Span<const ObjectRow> rows);

}  // namespace kscope

#endif  // KSCOPE_API_CORE_OBJ_TABLE_H_
