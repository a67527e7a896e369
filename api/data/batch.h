// Batching and shuffling the tensors of a tensor, vector or dictionary handle, in place and
// without copies (ktorch's batch, restore and shuffle on tensors): the handle keeps its id and
// its tensors keep their identity; what changes is the window of its storage each tensor shows
// (api/data/batch_window.h) or the order of its rows (api/data/shuffle.h). A vector or dictionary
// batches and shuffles all its tensors together: they must share the full size along the dimension.
//
// Errors: kscope::Error naming the function for a stale handle, another class of object
// ("batch: expected tensor, vector or dictionary, given module"), a tensor that is not
// batchable, sizes that differ ("tensor size mismatch, 7 vs 3"), a bad batch size, index or
// dimension; nothing changes then.
// Thread-safety: any thread, but a handle's tensors must not be in use by another thread.
#ifndef KSCOPE_API_DATA_BATCH_H_
#define KSCOPE_API_DATA_BATCH_H_

#include <cstdint>

#include "runtime/handle.h"

namespace kscope {

// batch(p;w) / batch(p;w,dim): selects the next window of `size` rows along dim (the first
// one at full size) and returns true; after the last window restores full size and returns
// false. Requires 1 <= size < full size.
bool batch(Handle h, std::int64_t size, std::int64_t dim = 0);
// batch(p;w;i): selects batch `index` (from 0) of `size` rows along dim.
void batch_at(Handle h, std::int64_t size, std::int64_t index, std::int64_t dim = 0);
// restore p / restore(p;dim): removes any window; returns the full size along dim. On a model
// (dim 0): model_restore of its training data (api/model/model_data.h).
std::int64_t restore(Handle h, std::int64_t dim = 0);
// shuffle p / shuffle(p;dim): removes any window, then reorders every tensor along dim by one
// random permutation from the global generator. On a model (dim 0): model_shuffle.
void shuffle(Handle h, std::int64_t dim = 0);

}  // namespace kscope

#endif  // KSCOPE_API_DATA_BATCH_H_
