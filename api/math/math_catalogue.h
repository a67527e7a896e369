// The math catalogue: ktorch's group D functions (pointwise, comparison, reductions, linear
// algebra, spectral and windows, other) as one table of entries, each a name, a signature and
// a kernel. One generic call (math::Call) checks the arguments against the signature, resolves
// the tensor arguments, runs the kernel and emits the result with ktorch's conventions:
//   - data in -> data out; any tensor argument a handle -> a new handle (tensor, or a vector
//     for several results) owned by the current scope;
//   - an output handle -> the result is written there (a tensor resized to fit; for several
//     results a vector whose tensors are replaced) and nothing is returned;
//   - in place -> the kernel's in-place form runs on the first argument, which must be a handle.
//
// A signature is a string of parameter letters; those after '|' are optional:
//   t tensor        n tensor or number (a number is a 0-dim tensor)
//   T tensors (a list of operands, or one vector handle)
//   s scalar        l long      L longs (one or more)      b bool      f double
//   y symbol        d dtype (a ktorch dtype name, e.g. double)
//   o tensor options (ktorch option symbols: device, dtype, grad) for functions that create
// Errors: kscope::Error "<fn>: ..." for arguments that do not fit the signature, stale or
// non-tensor handles, or an output/in-place form the function does not have; libtorch's own
// message for shape and type problems. Nothing is registered or written when a call throws
// (except libtorch errors raised by an in-place kernel midway, which libtorch makes rare).
// The table is immutable after static initialisation; Call is safe on any thread.
#ifndef KSCOPE_API_MATH_MATH_CATALOGUE_H_
#define KSCOPE_API_MATH_MATH_CATALOGUE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "api/core/operand.h"
#include "runtime/torch_compat.h"

namespace kscope::math {

// An argument as the caller gives it; std::monostate leaves an optional parameter at its
// default. Tensors (t n) are Operands; T is a list of Operands or one vector handle.
// Options (o) are given as their symbols, e.g. {"double", "grad"}.
using Arg =
    std::variant<std::monostate, Operand, std::vector<Operand>, c10::Scalar, std::int64_t,
                 std::vector<std::int64_t>, bool, double, std::string, std::vector<std::string>>;
// A caller's argument list, inline for the common arities (Run reads any span of Args).
using ArgList = absl::InlinedVector<Arg, 6>;

// The resolved arguments a kernel reads, indexed by parameter position. Accessors throw
// kscope::Error naming the function when an argument is absent without a default. Optional
// values are AtOptional, as ATen ops take them.
class Call {
 public:
  using Slot =
      std::variant<std::monostate, at::Tensor, std::vector<at::Tensor>, c10::Scalar, std::int64_t,
                   std::vector<std::int64_t>, bool, double, std::string, at::TensorOptions>;
  // One slot per parameter; inline storage for the common arities, so a call allocates none.
  using Slots = absl::InlinedVector<Slot, 6>;
  // A call of `fn` with every slot empty; whoever builds it (math::Run) fills them through slot().
  Call(const char* fn, std::size_t parameters) : fn_(fn), slots_(parameters) {}
  Slot& slot(std::size_t i) { return slots_[i]; }

  const char* fn() const { return fn_; }
  bool has(std::size_t i) const;
  const at::Tensor& tensor(std::size_t i) const;
  const std::vector<at::Tensor>& tensors(std::size_t i) const;
  c10::Scalar scalar(std::size_t i) const;
  AtOptional<c10::Scalar> optional_scalar(std::size_t i) const;
  std::int64_t integer(std::size_t i) const;
  std::int64_t integer(std::size_t i, std::int64_t fallback) const;
  AtOptional<std::int64_t> optional_integer(std::size_t i) const;
  std::vector<std::int64_t> integers(std::size_t i) const;
  std::vector<std::int64_t> integers(std::size_t i, std::vector<std::int64_t> fallback) const;
  bool flag(std::size_t i, bool fallback) const;
  double real(std::size_t i) const;
  double real(std::size_t i, double fallback) const;
  AtOptional<double> optional_real(std::size_t i) const;
  std::string symbol(std::size_t i, std::string fallback) const;
  AtOptional<c10::ScalarType> dtype(std::size_t i) const;
  at::TensorOptions options(std::size_t i) const;  // default options when absent

 private:
  const Slot& At(std::size_t i, const char* what) const;

  const char* fn_;
  Slots slots_;
};

// What a kernel computes: one tensor, or several (returned as a vector).
using Output = std::variant<at::Tensor, std::vector<at::Tensor>>;
using Kernel = Output (*)(const Call&);
using InPlaceKernel = void (*)(const Call&);

// How a result is returned when no output handle is given.
enum class Returns {
  kLikeInputs,  // a handle when any tensor argument is a handle, else data
  kData,        // always data (allclose, equal: a k boolean either way)
  kHandle,      // always a new handle (functions that create tensors: windows, fftfreq)
};

// Direct forms of a kernel for the commonest calls, f x and f(x;y) on tensors: the same ATen
// call as the kernel's, without a Call.
using UnaryKernel = at::Tensor (*)(const at::Tensor& x);
using BinaryKernel = at::Tensor (*)(const at::Tensor& x, const at::Tensor& y);

struct Function {
  const char* name;       // ktorch's name (q keywords capitalised: Abs Exp Sum ...)
  const char* signature;  // see the header comment
  Kernel kernel;
  InPlaceKernel in_place = nullptr;  // f(x;...;::) when set
  bool writes_output = true;         // f(...;out) allowed
  Returns returns = Returns::kLikeInputs;
  // Run calls these instead of `kernel` when the call is exactly one (unary) or two (binary)
  // tensor arguments, the other parameters left at their defaults, and not in place: the
  // catalogue's per-call argument handling skipped for its commonest shapes.
  UnaryKernel unary = nullptr;
  BinaryKernel binary = nullptr;
};

// Every function of the catalogue, in group order.
absl::Span<const Function> Functions();
// The function named `name`, or nullptr.
const Function* Find(const std::string& name);

// One parameter of a signature.
struct Parameter {
  char kind;      // one of "tnTslLbfydo"
  bool optional;  // after '|'
};
// The parameters f's signature spells, parsed once (a catalogue entry's when the catalogue is
// built, found from the entry's address; another Function's, e.g. a test's, at its first call).
// kscope::Error for a bad signature.
const std::vector<Parameter>& Parameters(const Function& f);

// Runs `f` on `args`, one per parameter in order (std::monostate for one left at its default;
// fewer args leave the trailing ones), writing into `out` when it is not null, or in place
// when `in_place`. A vector handle of several tensors given for a tensor parameter whose
// following tensor parameters are not given spreads its tensors over them: lun(lu(x)).
// The arguments are read, not copied: a call on tensors allocates nothing of its own beyond
// the result's handle, and takes one reference to each argument's tensor.
Result Run(const Function& f, absl::Span<const Arg> args, Handle out = Handle(),
           bool in_place = false);
// The same by name; kscope::Error "math: unknown function `x" for a name not in the table.
Result Run(const std::string& name, absl::Span<const Arg> args, Handle out = Handle(),
           bool in_place = false);
// f x and f(x;y) on handles through f's direct form (f.unary, f.binary; kscope::Error when f
// has none), for callers that hold handles, as the q plugin does for `f p` and `f(p;q)`: the
// same result and errors as Run(f, {x}) and Run(f, {x, y}), without the per-call argument
// handling.
Result RunDirect(const Function& f, Handle x);
Result RunDirect(const Function& f, Handle x, Handle y);
// Run(f, {x}, out) and Run(f, {x, y}, out) for C++ callers (api/math/math.h): through f's
// direct form where it has one, without building the argument list.
Result RunOperands(const Function& f, const Operand& x, Handle out);
Result RunOperands(const Function& f, const Operand& x, const Operand& y, Handle out);

// The group tables the catalogue concatenates (one file each: api/math_<group>.cc).
absl::Span<const Function> PointwiseFunctions();      // D1 D2 D3
absl::Span<const Function> ComparisonFunctions();     // D4
absl::Span<const Function> ReductionFunctions();      // D5
absl::Span<const Function> LinearAlgebraFunctions();  // D6
absl::Span<const Function> SpectralFunctions();       // D7
absl::Span<const Function> OtherFunctions();          // D9

}  // namespace kscope::math

#endif  // KSCOPE_API_MATH_MATH_CATALOGUE_H_
