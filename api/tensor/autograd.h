// Autograd on handles: backward with ktorch's modes, gradients, resetting them, detaching and
// the requires-grad flag, on whole objects or on a container's elements by index or key
// (api/core/selection.h: every index/key is checked before anything changes).
//
// Errors: libtorch's messages pass through unchanged (e.g. "Trying to backward through the
// graph a second time ..."); kscope::Error for stale or wrong-class handles. Thread-safety:
// any thread; gradients of a tensor must not be mutated from two threads at once.
#ifndef KSCOPE_API_TENSOR_AUTOGRAD_H_
#define KSCOPE_API_TENSOR_AUTOGRAD_H_

#include <cstdint>
#include <optional>
#include <string>

#include <ATen/core/Tensor.h>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "api/core/operand.h"
#include "runtime/handle.h"
#include "runtime/per_element.h"

namespace kscope {

// ktorch's backward modes: whether the graph is retained and whether a graph of the
// derivative is created (for higher-order derivatives).
enum class BackwardMode {
  kFree,        // retain 0 create 0
  kRetain,      // retain 1 create 0
  kCreate,      // retain 1 create 1
  kCreateFree,  // retain 0 create 1
};
// "free" "retain" "create" "createfree"; nullopt for other names.
std::optional<BackwardMode> BackwardModeFromName(absl::string_view name);

// One backward mode: its name, flags and ktorch's description (the table help`backward shows).
struct BackwardModeInfo {
  absl::string_view name;
  BackwardMode mode;
  bool retain;  // keep the graph after backward
  bool create;  // build a graph for higher order derivatives
  absl::string_view description;
};
// The four modes in ktorch's order: free retain create createfree.
absl::Span<const BackwardModeInfo> backward_modes();

// Backward from tensor h (a scalar unless a gradient is given). h may also be a vector or
// dictionary: backward from each of its tensors together. `gradient` (data or a handle) must
// match h's shape, or be a scalar that stands for every element (ktorch's backward(y;1e)); for a
// vector or dictionary give no gradient.
void backward(Handle h, BackwardMode mode = BackwardMode::kFree);
void backward(Handle h, const Operand& gradient, BackwardMode mode = BackwardMode::kFree);

// The gradient of tensor h as host data; undefined (ktorch's null) when there is none.
at::Tensor grad(Handle h);
// ktorch's `grad enlist t`: a new handle to tensor h's gradient itself (no copy, so zerograd is
// seen through it). kscope::Error "grad: no gradient defined" when h has none.
Handle gradtensor(Handle h);
// Sets the gradients of a tensor, vector or dictionary, or of the parameters of a module, an
// optimizer or a model (its optimizer's: every parameter it steps), to zero (zerograd) or to
// none (nograd). Tensors without a gradient are left as they are by zerograd. With libtorch 2
// (kFollowsKtorch23, runtime/torch_compat.h) zerograd of an optimizer or a model sets its
// parameters' gradients to none, as libtorch 2's zero_grad and ktorch 2.3 do.
void zerograd(Handle h);
void nograd(Handle h);
// A new tensor sharing x's values, outside the graph (data in -> data out).
Result detach(const Operand& x);
// Detaches in place (ktorch's detach(t;1b), detach v, detach d): every tensor of a tensor,
// vector or dictionary handle; or the vector's elements at `indices`, the dictionary's `keys`.
// All or nothing: a view among them (libtorch can't detach views in place) is an error naming
// it ("detach: vector[1] is a view, and views can't be detached in place ...") before any is
// detached.
void detach_(Handle h);
void detach_(Handle v, absl::Span<const std::int64_t> indices);
void detach_(Handle d, absl::Span<const std::string> keys);
// Whether tensor h requires grad.
bool gradflag(Handle h);
// The requires-grad flags shaped by h's class: one for a tensor, one per element of a vector,
// one per key of a dictionary, one per parameter name of a module (a model: of its module).
// kscope::Error "gradflag: expected tensor, vector, dictionary, module or model, given <class>".
PerElement<bool> gradflags(Handle h);
PerElement<bool> gradflags(Handle v, absl::Span<const std::int64_t> indices);  // a list
PerElement<bool> gradflags(Handle d, absl::Span<const std::string> keys);      // named
// Setting the flag, on the same objects and selections.
void gradflag(Handle h, bool requires_grad);
void gradflag(Handle v, absl::Span<const std::int64_t> indices, bool requires_grad);
void gradflag(Handle d, absl::Span<const std::string> keys, bool requires_grad);

}  // namespace kscope

#endif  // KSCOPE_API_TENSOR_AUTOGRAD_H_
