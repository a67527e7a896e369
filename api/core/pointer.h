// The pointer API: ktorch's functions for managing and inspecting handles.
//
// C++ names follow ktorch's; where C++ reserves the word the name has a trailing underscore:
// `return_` (ktorch `return`) and `class_` (ktorch `class`). `free` is kscope::free: call it
// qualified (kscope::free(h)) so that it is never confused with the C library's free().
//
// Errors: every function throws kscope::Error naming itself and what it expected (ktorch's
// texts, e.g. "stale pointer", "dtype: not implemented for modules") and changes nothing when
// it throws. Thread-safety: all functions may be called from any thread.
#ifndef KSCOPE_API_CORE_POINTER_H_
#define KSCOPE_API_CORE_POINTER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "api/core/operand.h"
#include "runtime/handle.h"
#include "runtime/object_class.h"
#include "runtime/per_element.h"

namespace kscope {

// One row of obj[]: ktorch's seven columns, then the owning scope's depth and the API call
// that created the handle; `owner` is the owning scope's id (0 = root: scope/scope_stack.h),
// which obj[] does not show.
struct ObjectRow {
  Handle ptr;
  ObjectClass object_class;
  std::string device;
  std::string dtype;               // empty for containers and composites
  std::vector<std::int64_t> size;  // tensor dims; element count for vector/dictionary
  std::int64_t elements;
  std::int64_t bytes;
  int scope;  // 0 = root
  std::string origin;
  std::uint64_t owner = 0;
};

// Every live handle, in creation order.
std::vector<ObjectRow> obj();
inline std::vector<ObjectRow> objects() { return obj(); }
// Number of live handles.
std::size_t live_handles();

// Releases h now ("stale pointer" if it is not live).
void free(Handle h);
// Validates every handle, then releases them all (a handle listed twice is released once).
// Error: "free: stale pointer, element[i] of given list".
void free(absl::Span<const Handle> handles);
// The same for a dictionary of handles: "free: stale pointer, key[`k] of given dictionary".
void free(const std::vector<std::pair<std::string, Handle>>& named);
// free[]: releases every handle owned by the root and by this thread's scopes.
void free();

// h's values (tensor, vector or dictionary) as host data, sharing nothing with h.
// Error: "<fn>: expecting tensor, vector or dictionary, given <class>".
Value copy_out(Handle h, const char* fn = "return");
// Copies h's values out, then frees h. If the copy fails h is untouched.
Value return_(Handle h);

// use[dst; src]: dst (a tensor, vector or dictionary) takes src's object and keeps its id and
// owner; dst's old object is released and src becomes stale. use(h, h) does nothing. Classes
// must match; on any error both are unchanged.
void use(Handle dst, Handle src);
// use[dst; data]: dst takes a new object built from data of its class.
void use(Handle dst, Value data);

// Whether h names a live handle (never throws).
bool mapped(Handle h);
// h's class if h is live, else nullopt (never throws): mapped and class_ in one table read.
std::optional<ObjectClass> class_if_mapped(Handle h);
// Raw address of the TensorImpl(s) / libtorch object; equal for handles sharing an object.
PerElement<std::int64_t> ptr(Handle h);
ObjectClass class_(Handle h);
std::string device(Handle h);
// dtype name(s): per tensor, or per parameter by name for a module, loss or model (as ktorch
// gives them); "dtype: not implemented for optimizers" (and groups).
PerElement<std::string> dtype(Handle h);
PerElement<std::vector<std::int64_t>> size(Handle h);
std::int64_t elements(Handle h);
std::int64_t bytes(Handle h);
std::int64_t tensorcount(Handle h);
// Exact strong reference count(s) of h's object, the handle's own reference included.
PerElement<std::int64_t> ref(Handle h);
// A new handle to the same object, owned by the current scope (any class; a vector or
// dictionary gets a new container sharing every tensor).
Handle addref(Handle h);
// libtorch's printout (tensors and composites); "str: not implemented for <class>".
std::string str(Handle h);

}  // namespace kscope

#endif  // KSCOPE_API_CORE_POINTER_H_
