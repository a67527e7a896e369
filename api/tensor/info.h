// The tensor information functions of ktorch's group A.
//
// info(h) — ktorch's `info t`: the attributes of one tensor as a struct; detail(h) adds its
// storage. The attribute functions (stride, dim, numel, ...) read one attribute of every tensor
// h holds, shaped as ktorch shapes it (runtime/per_element.h): one value for a tensor, one per
// element for a vector, one per key for a dictionary. An undefined tensor reads as empty: 0,
// false, an empty name or list. Counts (ref, sref, weakref) are exact: they are read from the
// object the handle table stores, under its lock.
//
// Errors (kscope::Error, nothing changes): "<fn>: not implemented for modules" (loss modules,
// optimizers, models) for a composite, "<fn>: expected tensor, given <class>" where only a
// tensor will do, "stale pointer". Thread-safe.
#ifndef KSCOPE_API_TENSOR_INFO_H_
#define KSCOPE_API_TENSOR_INFO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <c10/core/MemoryFormat.h>
#include <c10/core/ScalarType.h>

#include "runtime/handle.h"
#include "runtime/per_element.h"

namespace kscope {

struct TensorInfo {
  bool defined;
  std::string device;
  std::string dtype;
  std::string layout;    // strided, sparse, ...
  std::string gradient;  // grad or nograd
  std::string gradfn;    // e.g. MulBackward0; empty for none
  bool leaf;
  std::int64_t dim;
  std::int64_t elements;
  std::int64_t itemsize;
  std::int64_t bytes;
  std::vector<std::int64_t> size;
  std::vector<std::int64_t> stride;
  std::int64_t numel;
  std::int64_t offset;
  std::int64_t ptr;
  std::int64_t ref;  // exact reference count, the handle's own included
};

TensorInfo info(Handle h);

// info plus the tensor's storage and memory (ktorch's `detail t`).
struct TensorDetail {
  TensorInfo info;
  std::string memory;  // as memory()
  bool contiguous;
  bool pinned;
  bool coalesced;
  std::int64_t sptr;           // storage data address, 0 if undefined or sparse
  std::int64_t sref;           // storage use count
  std::int64_t weakref;        // weak references to the TensorImpl
  std::int64_t storage_bytes;  // the whole storage's size in bytes
};
TensorDetail detail(Handle h);

// ktorch's elements, bytes and device of each tensor of a vector or dictionary (each counted on
// its own, by runtime/accounting.h's rules), or of the one tensor; composites: "<fn>: not
// implemented for modules" (pointer.h's elements, bytes and device give their totals).
PerElement<std::int64_t> elements_each(Handle h);
PerElement<std::int64_t> bytes_each(Handle h);
PerElement<std::string> device_each(Handle h);  // "" for an undefined tensor

// Per tensor attributes.
PerElement<std::vector<std::int64_t>> stride(Handle h);  // empty for non-strided layouts
PerElement<std::int64_t> dim(Handle h);
PerElement<std::int64_t> numel(Handle h);
PerElement<std::int64_t> itemsize(Handle h);
PerElement<std::int64_t> offset(Handle h);     // storage offset (0 for non-strided layouts)
PerElement<std::int64_t> nnz(Handle h);        // sparse: stored values; dense: nonzero elements
PerElement<std::int64_t> densedim(Handle h);   // sparse: dense dims; dense: dim
PerElement<std::int64_t> sparsedim(Handle h);  // sparse: sparse dims; dense: 0
PerElement<std::int64_t> sptr(Handle h);       // storage data address (0 if undefined or sparse)
PerElement<std::int64_t> sref(Handle h);       // storage use count (0 if undefined or sparse)
PerElement<std::int64_t> weakref(Handle h);    // weak use count of the TensorImpl
PerElement<std::string> layout(Handle h);      // strided, sparse, ...
// The suggested memory format: contiguous, channel2d or channel3d.
PerElement<std::string> memory(Handle h);
PerElement<std::string> gradient(Handle h);  // grad or nograd
PerElement<std::string> gradfn(Handle h);    // the autograd function's name, empty for none
// The k type a tensor's values convert to: b x c h i j e f (half, bfloat16 and complex float
// as e, complex double as f); a space for an undefined tensor.
PerElement<char> ktype(Handle h);
PerElement<bool> defined(Handle h);
PerElement<bool> coalesced(Handle h);  // true for non-sparse tensors
// Whether contiguous in `format` (default: the contiguous format); false for sparse tensors.
PerElement<bool> contiguous(Handle h, std::optional<c10::MemoryFormat> format = std::nullopt);
PerElement<bool> leaf(Handle h);
PerElement<bool> pinned(Handle h);
PerElement<bool> sparseflag(Handle h);

// The k type values of dtype `t` convert to (as ktype above).
char KTypeOf(c10::ScalarType t);

// ktorch's memory format names: contiguous preserve channel2d channel3d.
std::string MemoryFormatName(c10::MemoryFormat format);
std::optional<c10::MemoryFormat> MemoryFormatFromName(const std::string& name);

// The tensor options of ktorch's `options`: device dtype layout gradient pin memory.
struct TensorOptionsInfo {
  std::string device;
  std::string dtype;
  std::string layout;
  std::string gradient;  // grad or nograd
  std::string pin;       // pinned or unpinned
  std::string memory;    // a memory format name
};
// options[]: the defaults a new tensor gets.
TensorOptionsInfo options();
// options p for a tensor, vector or dictionary (composites: "options: not implemented for ...").
PerElement<TensorOptionsInfo> options(Handle h);

// ktorch's `objtype`: "tensor" for tensors, vectors and dictionaries; the kind of a module,
// loss or optimizer (e.g. "linear", "mse", "adamw"); "model" for a model.
std::string objtype(Handle h);

// ktorch's `result` attribute, which no class implements: always kscope::Error "result: not
// implemented for tensors" (vectors and dictionaries too), "... for modules", "... for loss
// modules", "... for optimizers", "... for models".
[[noreturn]] void result(Handle h);

// same(a;b): whether two tensor handles hold the same TensorImpl; alias(a;b): whether they share
// storage. Both need tensors ("same: expected tensor, given vector").
bool same(Handle a, Handle b);
bool alias(Handle a, Handle b);

}  // namespace kscope

#endif  // KSCOPE_API_TENSOR_INFO_H_
