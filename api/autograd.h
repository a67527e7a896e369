// Autograd on handles: backward with ktorch's modes, gradients, resetting them, detaching and
// the requires-grad flag.
//
// Errors: libtorch's messages pass through unchanged (e.g. "Trying to backward through the
// graph a second time ..."); kscope::Error for stale or wrong-class handles. Thread-safety:
// any thread; gradients of a tensor must not be mutated from two threads at once.
#ifndef KSCOPE_API_AUTOGRAD_H_
#define KSCOPE_API_AUTOGRAD_H_

#include <optional>

#include <ATen/core/Tensor.h>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "api/operand.h"
#include "runtime/handle.h"

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
// Sets the gradients of a tensor, vector or dictionary, or of the parameters of a module, an
// optimizer or a model (its optimizer's: every parameter it steps), to zero (zerograd) or to
// none (nograd). Tensors without a gradient are left as
// they are by zerograd.
void zerograd(Handle h);
void nograd(Handle h);
// A new tensor sharing x's values, outside the graph.
Result detach(const Operand& x);
// Whether tensor h requires grad; and setting it (tensor, vector or dictionary).
bool gradflag(Handle h);
void gradflag(Handle h, bool requires_grad);

}  // namespace kscope

#endif  // KSCOPE_API_AUTOGRAD_H_
