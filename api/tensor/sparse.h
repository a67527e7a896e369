// Sparse COO tensors, with ktorch's conventions (data in -> data out, a handle in -> a new handle
// out, owned by the current scope; with several operands, a handle out when any is a handle):
// conversion of a dense tensor to sparse (all dims sparse, or the leading `sparse_dims`), the
// mask form (x's values where a sparse mask has entries), the COO index such a conversion makes,
// the dense copy of a sparse tensor, a sparse tensor's indices and values (libtorch's: the
// tensor must be coalesced; the results share its storage), and coalescing in place.
//
// Errors: kscope::Error naming the function ("dense: expects sparse tensor, given strided
// tensor", "sparse: expects sparse mask, given strided tensor"), libtorch's own text for bad dims
// or an uncoalesced tensor, kscope::Error for stale or non-tensor handles. Nothing is registered or
// changed when a call throws. Thread-safety: any thread; coalesce must not race with other
// users of the same handle.
#ifndef KSCOPE_API_TENSOR_SPARSE_H_
#define KSCOPE_API_TENSOR_SPARSE_H_

#include <cstdint>
#include <optional>

#include "api/core/operand.h"
#include "runtime/handle.h"

namespace kscope {

// libtorch's x.to_sparse() / x.to_sparse(sparse_dims); x must be strided.
Result sparse(const Operand& x, std::optional<std::int64_t> sparse_dims = std::nullopt);
// libtorch's x.sparse_mask(mask): x (strided) at mask's indices; mask a sparse tensor of x's size.
Result sparse_mask(const Operand& x, const Operand& mask);
// The indices (a long tensor, sparse dims x entries) of sparse(x, sparse_dims).
Result sparseindex(const Operand& x, std::optional<std::int64_t> sparse_dims = std::nullopt);
// A strided copy of sparse tensor x.
Result dense(const Operand& x);
// The indices / values of coalesced sparse tensor x.
Result indices(const Operand& x);
Result values(const Operand& x);
// Makes the sparse tensor of handle h coalesced: h keeps its id and now holds libtorch's
// h.coalesce() (other handles to the old tensor, e.g. made by addref, are unaffected).
void coalesce(Handle h);

}  // namespace kscope

#endif  // KSCOPE_API_TENSOR_SPARSE_H_
