// Tensor creation modes — ktorch's tensor(`mode; ...): each mode as a new tensor, its _like
// form (shape, and unless options say otherwise dtype and device, from an example tensor) and
// its _out form (the values written into an existing tensor).
//
// A creating call registers one new handle owned by the calling thread's innermost scope (origin
// "tensor"), after applying every option (a memory format other than preserve makes the new
// tensor contiguous in that format; grad sets requires_grad). An example is an Operand: a tensor
// handle, or data. An _out call computes into a fresh tensor of out's dtype, device and layout
// with libtorch's own _out function, then writes it into out (resized to fit, no gradient
// recorded) and registers nothing; if anything fails, out is unchanged.
// Errors: kscope::Error naming `tensor` (a stale or non-tensor handle) and libtorch's own
// c10::Error text for values libtorch refuses; nothing is registered when a call throws.
// Thread-safety: any thread; handles land in the calling thread's scopes.
#ifndef KSCOPE_API_TENSOR_TENSOR_CREATION_H_
#define KSCOPE_API_TENSOR_TENSOR_CREATION_H_

#include <cstddef>
#include <cstdint>
#include <optional>

#include <c10/core/Scalar.h>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

#include "api/core/operand.h"
#include "api/tensor/tensor.h"
#include "runtime/handle.h"

namespace kscope {

// The creation modes by name, as ktorch's tensor(`mode; args..) counts the arguments after the
// mode (options and an output tensor not counted): for a new tensor, and for the _like form,
// whose first argument is the example (like_max 0: no _like form). `takes_tensors`: the mode's
// own arguments may be tensors (complex, sparse), so a trailing tensor is one of them.
struct CreationMode {
  const char* name;
  std::size_t min, max;
  std::size_t like_min, like_max;
  bool takes_tensors;
};
absl::Span<const CreationMode> creation_modes();
// The mode called `name`. Error: "unrecognized tensor creation mode: <name>".
const CreationMode& creation_mode(absl::string_view name);

// linspace and logspace without a count of steps: ktorch's 100.
inline constexpr std::int64_t kDefaultSpaceSteps = 100;

// empty zeros ones full rand randn randint: of `size`.
Handle empty(const Shape& size, const Options& options = {});
Handle zeros(const Shape& size, const Options& options = {});
Handle ones(const Shape& size, const Options& options = {});
Handle full(const Shape& size, const c10::Scalar& value, const Options& options = {});
Handle rand(const Shape& size, const Options& options = {});
Handle randn(const Shape& size, const Options& options = {});
// Integers in [low, high); long unless options say otherwise.
Handle randint(std::int64_t low, std::int64_t high, const Shape& size, const Options& options = {});

// The same modes shaped like `example`.
Handle empty_like(const Operand& example, const Options& options = {});
Handle zeros_like(const Operand& example, const Options& options = {});
Handle ones_like(const Operand& example, const Options& options = {});
Handle full_like(const Operand& example, const c10::Scalar& value, const Options& options = {});
Handle rand_like(const Operand& example, const Options& options = {});
Handle randn_like(const Operand& example, const Options& options = {});
Handle randint_like(const Operand& example, std::int64_t low, std::int64_t high,
                    const Options& options = {});

// Sequences: [start, end) by step; [start, end] by step (range, float by default);
// `steps` values evenly spaced on [start, end], or base^those (logspace).
Handle arange(const c10::Scalar& start, const c10::Scalar& end, const c10::Scalar& step = 1,
              const Options& options = {});
Handle range(const c10::Scalar& start, const c10::Scalar& end, const c10::Scalar& step = 1,
             const Options& options = {});
Handle linspace(const c10::Scalar& start, const c10::Scalar& end, std::int64_t steps,
                const Options& options = {});
Handle logspace(const c10::Scalar& start, const c10::Scalar& end, std::int64_t steps,
                double base = 10, const Options& options = {});
// The n x m (m defaults to n) identity.
Handle eye(std::int64_t n, std::optional<std::int64_t> m = std::nullopt,
           const Options& options = {});
// A random permutation of 0 .. n-1; long unless options say otherwise.
Handle randperm(std::int64_t n, const Options& options = {});
// real + i*imag, elementwise. A dtype option names the result's type: a complex dtype
// converts real and imag to its real counterpart first (cfloat: float), a real one to itself.
Handle complex(const Operand& real, const Operand& imag, const Options& options = {});
// A sparse COO tensor of `values` at `indices` (sparse dims x count, long); `size` is
// inferred from the indices when empty. A dtype option converts the values. The new tensor
// shares `indices` and `values` (as libtorch's sparse_coo_tensor does) unless it converts them.
Handle sparse_coo(const Operand& indices, const Operand& values, const Shape& size = {},
                  const Options& options = {});

// The _out forms: tensor(`mode; ...; out).
void empty_out(Handle out, const Shape& size);
void zeros_out(Handle out, const Shape& size);
void ones_out(Handle out, const Shape& size);
void full_out(Handle out, const Shape& size, const c10::Scalar& value);
void rand_out(Handle out, const Shape& size);
void randn_out(Handle out, const Shape& size);
void randint_out(Handle out, std::int64_t low, std::int64_t high, const Shape& size);
void arange_out(Handle out, const c10::Scalar& start, const c10::Scalar& end,
                const c10::Scalar& step = 1);
void range_out(Handle out, const c10::Scalar& start, const c10::Scalar& end,
               const c10::Scalar& step = 1);
void linspace_out(Handle out, const c10::Scalar& start, const c10::Scalar& end, std::int64_t steps);
void logspace_out(Handle out, const c10::Scalar& start, const c10::Scalar& end, std::int64_t steps,
                  double base = 10);
void eye_out(Handle out, std::int64_t n, std::optional<std::int64_t> m = std::nullopt);
void randperm_out(Handle out, std::int64_t n);
void complex_out(Handle out, const Operand& real, const Operand& imag);

}  // namespace kscope

#endif  // KSCOPE_API_TENSOR_TENSOR_CREATION_H_
