// Moving and converting objects between devices and dtypes: ktorch's `to` (in place) and
// `copyto` (a new tensor). The target is a device and/or a dtype, given as option names
// (Options) or by an example tensor (its device and dtype); `async` asks libtorch for a
// non-blocking copy where one is possible (pinned host memory to and from CUDA).
//
// `to` changes what handle h holds: a tensor, vector or dictionary handle keeps its id and now
// holds the converted tensors (other handles to the old tensors are unaffected); a module or
// loss is moved itself, so every handle sharing it sees the move (libtorch's Module::to, which
// has no non-blocking form here: `async` is ignored for them); a model moves its module and
// loss; an optimizer refuses.
// Errors: kscope::Error "to: expects a device and/or a dtype; set gradients with gradflag" (or
// "..., not a layout, pinning or memory format"), "copyto: expected tensor, given <class>",
// libtorch's text for conversions it refuses. On error the handle holds what it held.
// Thread-safety: any thread.
#ifndef KSCOPE_API_CORE_MOVE_H_
#define KSCOPE_API_CORE_MOVE_H_

#include "api/tensor/tensor.h"
#include "runtime/handle.h"

namespace kscope {

void to(Handle h, const Options& target, bool async = false);
void to(Handle h, Handle example, bool async = false);

// A new handle to tensor t converted (always a copy, even when nothing changes).
Handle copyto(Handle t, const Options& target, bool async = false);
Handle copyto(Handle t, Handle example, bool async = false);

}  // namespace kscope

#endif  // KSCOPE_API_CORE_MOVE_H_
