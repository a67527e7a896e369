#include "api/info.h"

#include <optional>

#include <torch/csrc/autograd/function.h>

#include "runtime/accounting.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "runtime/names.h"

namespace kscope {
namespace {

std::string LayoutName(c10::Layout layout) {
  switch (layout) {
    case c10::kStrided: return "strided";
    case c10::kSparse: return "sparse";
    default: {
      std::ostringstream out;
      out << layout;
      return out.str();
    }
  }
}

}  // namespace

TensorInfo info(Handle h) {
  std::optional<TensorInfo> result;
  HandleTable::Global().Read(h, [&](const Object& o) {
    const at::Tensor* t = o.tensor();
    if (t == nullptr) return;
    TensorInfo i{};
    i.defined = t->defined();
    i.ref = t->defined() ? static_cast<std::int64_t>(t->use_count()) : 0;
    if (i.defined) {
      i.device = DeviceName(t->device());
      i.dtype = DtypeName(t->scalar_type());
      i.layout = LayoutName(t->layout());
      i.gradient = t->requires_grad() ? "grad" : "nograd";
      i.gradfn = t->grad_fn() ? t->grad_fn()->name() : std::string();
      i.leaf = t->is_leaf();
      i.dim = t->dim();
      i.elements = Elements(o);
      i.itemsize = static_cast<std::int64_t>(t->element_size());
      i.bytes = Bytes(o);
      i.size = t->sizes().vec();
      if (t->layout() == c10::kStrided) {
        i.stride = t->strides().vec();
        i.offset = t->storage_offset();
      }
      i.numel = t->numel();
      i.ptr = Ptr(o).single();
    }
    result.emplace(std::move(i));
  });
  if (!result) Fail("info: expected tensor, given %s", ClassName(HandleTable::Global().Info(h).object_class));
  return *std::move(result);
}

}  // namespace kscope
