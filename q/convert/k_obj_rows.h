// obj[] rows as k: ktorch's obj table (ptr class device dtype size elements bytes, then kscope's
// scope and origin columns), for obj[] and for leaks (q/core/scope_fns.cc). Returns a new table
// (refcount 1); throws nothing beyond the k API's own failures.
#ifndef KSCOPE_Q_CONVERT_K_OBJ_ROWS_H_
#define KSCOPE_Q_CONVERT_K_OBJ_ROWS_H_

#include <vector>

#include "api/core/pointer.h"
#include "q/convert/k_abi.h"

namespace kscope::q {

kabi::K KFromObjectRows(const std::vector<ObjectRow>& rows);

}  // namespace kscope::q

#endif  // KSCOPE_Q_CONVERT_K_OBJ_ROWS_H_
