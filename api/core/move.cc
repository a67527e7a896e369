#include "api/core/move.h"

#include <optional>
#include <utility>

#include "api/core/operand.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "scope/scope_stack.h"

namespace kscope {
namespace {

struct Target {
  std::optional<c10::Device> device;
  std::optional<c10::ScalarType> dtype;

  at::Tensor Convert(const at::Tensor& t, bool async, bool copy) const {
    return t.to(device.value_or(t.device()), dtype.value_or(t.scalar_type()), async, copy);
  }
};

Target FromOptions(const char* fn, const Options& o) {
  if (o.grad) Fail("%s: expects a device and/or a dtype; set gradients with gradflag", fn);
  if (o.beyond_device_and_dtype())
    Fail("%s: expects a device and/or a dtype, not a layout, pinning or memory format", fn);
  return Target{o.device, o.dtype};
}

Target FromExample(const char* fn, Handle example) {
  const at::Tensor t = TensorOf(fn, example);
  return Target{t.device(), t.scalar_type()};
}

void MoveTo(Handle h, const Target& target, bool async) {
  Object o = HandleTable::Global().Get(h);
  if (at::Tensor* t = o.tensor()) {
    *t = target.Convert(*t, async, false);
  } else if (TensorVector* v = o.vector()) {
    for (at::Tensor& t : *v) t = target.Convert(t, async, false);
  } else if (TensorDict* d = o.dict()) {
    for (auto& item : *d) item.value() = target.Convert(item.value(), async, false);
  } else {
    o.composite_ptr()->MoveTo(target.device, target.dtype);  // in place: every handle sees it
    return;
  }
  HandleTable::Global().Replace(h, std::move(o));
}

Handle CopyTo(Handle t, const Target& target, bool async) {
  return Own(Object(target.Convert(TensorOf("copyto", t), async, true)), "copyto");
}

}  // namespace

void to(Handle h, const Options& target, bool async) {
  MoveTo(h, FromOptions("to", target), async);
}

void to(Handle h, Handle example, bool async) { MoveTo(h, FromExample("to", example), async); }

Handle copyto(Handle t, const Options& target, bool async) {
  return CopyTo(t, FromOptions("copyto", target), async);
}

Handle copyto(Handle t, Handle example, bool async) {
  return CopyTo(t, FromExample("copyto", example), async);
}

}  // namespace kscope
