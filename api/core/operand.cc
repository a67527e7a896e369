#include "api/core/operand.h"

#include <ATen/ops/scalar_tensor.h>
#include <c10/core/GradMode.h>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/container/inlined_vector.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "runtime/names.h"
#include "scope/scope_stack.h"

namespace kscope {
namespace {

[[noreturn]] ABSL_ATTRIBUTE_NOINLINE void FailNotTensor(const char* fn, const Object& o) {
  Fail("%s: expected tensor, given %s", fn, ClassName(o.object_class()));
}

inline const at::Tensor& TensorFrom(const char* fn, const Object& o) {
  const at::Tensor* t = o.tensor();
  if (ABSL_PREDICT_FALSE(t == nullptr)) FailNotTensor(fn, o);
  return *t;
}

}  // namespace

// In the scalar's own type: scalar_tensor alone would make every number a float, so long data
// plus 1 would become float. A 0-dim tensor promotes like a number of its category.
Operand::Operand(const c10::Scalar& s)
    : value_(at::scalar_tensor(s, at::TensorOptions().dtype(s.type()))) {}

Operand::Operand(const Result& r) {
  if (r.is_handle()) {
    value_ = r.handle();
  } else {
    value_ = r.tensor();
  }
}

Handle Result::handle() const {
  if (const Handle* h = std::get_if<Handle>(&value_)) return *h;
  Fail(is_none() ? "result: call wrote to its output handle and returned nothing"
                 : "result: inputs were data, so the result is data, not a handle");
}

const Value& Result::value() const {
  if (const Value* v = std::get_if<Value>(&value_)) return *v;
  Fail(is_none() ? "result: call wrote to its output handle and returned nothing"
                 : "result: an input was a handle, so the result is a handle, not data");
}

const at::Tensor& Result::tensor() const {
  const Value& v = value();
  if (const at::Tensor* t = std::get_if<at::Tensor>(&v)) return *t;
  Fail("result: data is not a single tensor");
}

namespace {

// Puts tensor t into an operand's place: assigned into Resolve's list, constructed in a
// fixed-size call's empty slot.
inline void Place(at::Tensor& place, const at::Tensor& t) { place = t; }
inline void Place(OperandTensor& place, const at::Tensor& t) { place.emplace(t); }

// Data is used as is; handles are looked up together under one lock.
template <typename Out>
bool ResolveEach(const char* fn, absl::Span<const Operand* const> operands, Out* out) {
  bool any_handle = false;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    if (operands[i]->is_handle()) {
      any_handle = true;
    } else {
      Place(out[i], operands[i]->data());
    }
  }
  if (any_handle) {
    HandleTable::Global().ReadSome(
        operands.size(), [&](std::size_t i) { return operands[i]->handle_if(); },
        [&](std::size_t i, const Object& o) { Place(out[i], TensorFrom(fn, o)); });
  }
  return any_handle;
}

}  // namespace

bool ResolveInto(const char* fn, absl::Span<const Operand* const> operands, OperandTensor* out) {
  return ResolveEach(fn, operands, out);
}

Resolved Resolve(const char* fn, absl::Span<const Operand* const> operands) {
  Resolved r;
  r.tensors.resize(operands.size());
  r.any_handle = ResolveEach(fn, operands, r.tensors.data());
  return r;
}

Resolved Resolve(const char* fn, absl::Span<const Operand> operands) {
  absl::InlinedVector<const Operand*, 4> pointers;
  for (const Operand& op : operands) pointers.push_back(&op);
  return Resolve(fn, absl::MakeConstSpan(pointers));
}

at::Tensor TensorOf(const char* fn, Handle h) {
  at::Tensor t;
  HandleTable::Global().Read(h, [&](const Object& o) { t = TensorFrom(fn, o); });
  return t;
}

void TensorsOf(const char* fn, absl::Span<const Handle> handles, OperandTensor* out) {
  HandleTable::Global().ReadMany(
      handles, [&](std::size_t i, const Object& o) { Place(out[i], TensorFrom(fn, o)); });
}

Result EmitDataOrOutput(const char* fn, at::Tensor result, Handle out) {
  if (!out.is_null()) {
    at::Tensor target = TensorOf(fn, out);
    if (result.is_complex() && !target.is_complex()) {
      Fail("%s: result is complex, output tensor is %s", fn, DtypeName(target.scalar_type()));
    }
    c10::AutoGradMode no_grad(false);
    target.resize_(result.sizes()).copy_(result);
    return Result();
  }
  return Result(Value(std::move(result)));
}

Result EmitVector(const char* fn, TensorVector result, bool as_handle) {
  if (as_handle) return Result(Own(Object(std::move(result)), fn));
  return Result(Value(std::move(result)));
}

}  // namespace kscope
