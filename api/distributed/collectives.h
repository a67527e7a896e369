// Collectives — data-parallel communication across the ranks of a process group
// (api/distributed/group.h) on tensors, vectors and dictionaries, handles or data.
//
// Every rank must make the same calls in the same order, with objects of the same structure
// (class, count, and per tensor the shape, dtype and device). `group` names the process group;
// a null Handle means the default group (the last group() made). Following ktorch's convention:
// a handle is changed in place and nothing new is returned; data in gives data out.
//
// Errors: kscope::Error naming the function: a bad argument ("allreduce: expected tensor, vector
// or dictionary, given module"), no group, or a failed collective ("allreduce: rank 1 of 2
// failed: <reason>", when a peer is gone or the group's timeout passed). On any error the
// handles given keep their values: results are computed in packed copies (api/distributed/
// buckets.h) and written back only after every collective succeeded. Thread-safety: one
// collective at a time per group.
#ifndef KSCOPE_API_DISTRIBUTED_COLLECTIVES_H_
#define KSCOPE_API_DISTRIBUTED_COLLECTIVES_H_

#include <string>

#include "api/core/operand.h"
#include "runtime/handle.h"

namespace kscope {

enum class Reduction { kSum, kMean, kMax, kMin };

// "sum", "mean", "max", "min"; kscope::Error naming fn for any other name.
Reduction ReductionFromName(const char* fn, const std::string& name);

// Reduces x across the ranks, elementwise: every rank ends with the same values. kMean needs
// floating-point (or complex) tensors.
void allreduce(Handle x, Reduction op = Reduction::kSum, Handle group = Handle());
Value allreduce(Value x, Reduction op = Reduction::kSum, Handle group = Handle());

// Every rank ends with rank root's values (root's own are unchanged).
void broadcast(Handle x, int root, Handle group = Handle());
Value broadcast(Value x, int root, Handle group = Handle());

// Every rank's tensor x (the same shape on every rank), in rank order: a new vector handle
// owned by the current scope when x is a handle, vector data otherwise.
Result allgather(const Operand& x, Handle group = Handle());

// Returns when every rank of the group has called barrier.
void barrier(Handle group = Handle());

}  // namespace kscope

#endif  // KSCOPE_API_DISTRIBUTED_COLLECTIVES_H_
