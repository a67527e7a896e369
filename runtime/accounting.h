// Accounting — what ktorch's pointer-information functions report about an object:
// bytes, elements, tensorcount, ref, ptr, device, dtype, size.
//
// Pure functions of an Object; they never throw for any class (the api layer decides which
// classes a user-facing function accepts). `Ref` reads reference counts without copying a
// tensor, so call it on the Object the handle table stores (under its lock) for an exact
// count. Thread-compatible.
#ifndef KSCOPE_RUNTIME_ACCOUNTING_H_
#define KSCOPE_RUNTIME_ACCOUNTING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/object.h"
#include "runtime/per_element.h"

namespace kscope {

// Bytes of tensor storage the object holds. A storage shared by several of the object's
// tensors is counted once; a storage shared with tensors outside the object (a view) counts
// only the object's own elements (numel x itemsize), as ktorch does, so nothing is counted twice.
// A sparse tensor holds the storage of its indices and values. A composite adds 8 bytes per
// number it keeps outside tensors (CompositeObject::scalar_count: an optimizer's step), as
// ktorch does.
std::int64_t Bytes(const Object& o);
// Elements of storage, by the same rule as Bytes (one element per number outside tensors).
std::int64_t Elements(const Object& o);
// Number of tensors held (1 for a tensor, per element for vector/dictionary, parameters,
// buffers and state for composites).
std::int64_t TensorCount(const Object& o);

// Strong reference counts: the TensorImpl count for tensors (per element for containers),
// the libtorch object's shared_ptr count for composites.
PerElement<std::int64_t> Ref(const Object& o);
// Raw address of the TensorImpl(s) / libtorch object.
PerElement<std::int64_t> Ptr(const Object& o);
// ktorch's dtype name (per element for containers); composites: per parameter is a later
// issue, they report an empty name.
PerElement<std::string> Dtype(const Object& o);
// Tensor dims (per element for containers); composites: {parameter count}.
PerElement<std::vector<std::int64_t>> Size(const Object& o);
// Device of the tensor, of a container's first tensor, or a composite's device() ("cpu" when
// there is none).
std::string DeviceOf(const Object& o);

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_ACCOUNTING_H_
