// Operand, Value and Result — how api functions take and give tensors, following ktorch's
// convention: data in -> data out, handle in -> handle out.
//
// Operand: one tensor argument, either a Handle (looked up in the handle table) or data, a
// plain at::Tensor that kscope does not own (C++ values, or what the q plugin converted from
// k). Value: data copied out of an object (a tensor, a vector or a dictionary of tensors).
// Result: what a computing call returns: a new Handle (owned by the caller's innermost scope)
// when any input was a handle, a Value when all inputs were data, or nothing when the call
// wrote into an output handle. All three are plain value types, thread-compatible.
#ifndef KSCOPE_API_CORE_OPERAND_H_
#define KSCOPE_API_CORE_OPERAND_H_

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "runtime/handle.h"
#include "runtime/object.h"
#include "scope/scope.h"

namespace kscope {

class Result;

class Operand {
 public:
  Operand(Handle h) : value_(h) {}                       // NOLINT: implicit by design
  Operand(at::Tensor data) : value_(std::move(data)) {}  // NOLINT
  Operand(const c10::Scalar& s);                         // NOLINT: a 0-dim data tensor
  Operand(double v) : Operand(c10::Scalar(v)) {}         // NOLINT
  Operand(std::int64_t v) : Operand(c10::Scalar(v)) {}   // NOLINT
  Operand(int v) : Operand(c10::Scalar(static_cast<std::int64_t>(v))) {}  // NOLINT
  // A computed result used as the next call's input: its handle, or its tensor data.
  Operand(const Result& r);  // NOLINT

  bool is_handle() const { return std::holds_alternative<Handle>(value_); }
  Handle handle() const { return std::get<Handle>(value_); }
  // The handle, or nullptr for data.
  const Handle* handle_if() const { return std::get_if<Handle>(&value_); }
  const at::Tensor& data() const { return std::get<at::Tensor>(value_); }

 private:
  std::variant<Handle, at::Tensor> value_;
};

using Value = std::variant<at::Tensor, TensorVector, TensorDict>;

class Result {
 public:
  Result() = default;  // nothing (written to an output handle)
  explicit Result(Handle h) : value_(h) {}
  explicit Result(Value v) : value_(std::move(v)) {}

  bool is_none() const { return std::holds_alternative<std::monostate>(value_); }
  bool is_handle() const { return std::holds_alternative<Handle>(value_); }
  // The new handle; throws kscope::Error if the result is data or nothing.
  Handle handle() const;
  // The data; throws kscope::Error if the result is a handle or nothing.
  const Value& value() const;
  // The data as one tensor; throws kscope::Error unless the result is tensor data.
  const at::Tensor& tensor() const;

  // So that `Handle h = kscope::add(a, b);` reads naturally when an input is a handle.
  operator Handle() const { return handle(); }  // NOLINT

 private:
  std::variant<std::monostate, Handle, Value> value_;
};

// with_scope hands off the handle a Result carries.
inline void KeepHandles(Scope& s, const Result& r) {
  if (r.is_handle()) s.keep(r.handle());
}

// Tensors as a call's operands resolve to: no heap allocation for up to four.
using TensorList = absl::InlinedVector<at::Tensor, 4>;

// The tensors behind a call's operands, looked up under one lock.
struct Resolved {
  TensorList tensors;
  bool any_handle = false;
};

// Looks up every operand; a handle must name a live tensor, else kscope::Error
// ("<fn>: expected tensor, given <class>" / "stale pointer"). Each tensor is referenced once.
Resolved Resolve(const char* fn, absl::Span<const Operand* const> operands);  // Resolve(fn, {&a})
Resolved Resolve(const char* fn, absl::Span<const Operand> operands);
// Room for one tensor of a call with a fixed number of operands (an array on the caller's
// stack): ResolveInto and TensorsOf construct each tensor in it, one reference count increment,
// with no empty tensor to assign over and release.
using OperandTensor = std::optional<at::Tensor>;
// The same as Resolve into out[0..operands.size()), which must be empty; returns whether any
// operand was a handle. On an error, the slots already filled keep their tensors.
bool ResolveInto(const char* fn, absl::Span<const Operand* const> operands, OperandTensor* out);

// The tensor behind one handle; kscope::Error unless h is a live tensor.
at::Tensor TensorOf(const char* fn, Handle h);
// The tensors behind `handles`, looked up under one lock into out[0..handles.size()) (empty
// slots), each referenced once: Resolve for callers that hold only handles, with the same errors.
void TensorsOf(const char* fn, absl::Span<const Handle> handles, OperandTensor* out);

// Turns a computed tensor into a Result: a new handle owned by the current scope (origin fn)
// when as_handle, else data. With a non-null `out`, writes the values into out's tensor
// (resized to fit, converted to its dtype) and returns nothing; a complex result and a real
// `out` is an error ("<fn>: result is complex, output tensor is float"), out unchanged.
// (Inline for the handle, every pointer call's result; the rest is EmitDataOrOutput's.)
Result EmitDataOrOutput(const char* fn, at::Tensor result, Handle out);
inline Result Emit(const char* fn, at::Tensor result, bool as_handle, Handle out = Handle()) {
  if (as_handle && out.is_null()) return Result(Own(Object(std::move(result)), fn));
  return EmitDataOrOutput(fn, std::move(result), out);
}
// The dispatch every computing api function shares: resolves the operands, applies
// f(const TensorList&) -> at::Tensor, and emits the result as a handle when any
// operand was a handle, as data otherwise, or into `out`.
template <typename F>
Result Compute(const char* fn, absl::Span<const Operand* const> operands, Handle out, F f) {
  Resolved r = Resolve(fn, operands);
  return Emit(fn, f(r.tensors), r.any_handle, out);
}

// The same for a computed vector of tensors.
Result EmitVector(const char* fn, TensorVector result, bool as_handle);

}  // namespace kscope

#endif  // KSCOPE_API_CORE_OPERAND_H_
