#include "api/tensor/storage_edit.h"

#include <algorithm>
#include <utility>
#include <vector>

#include <ATen/ExpandUtils.h>
#include <c10/core/GradMode.h>

#include "absl/strings/str_join.h"
#include "api/core/selection.h"
#include "runtime/errors.h"

namespace kscope {
namespace {

// A target tensor and the values to copy into it, checked to fit.
struct Copy {
  at::Tensor target;
  at::Tensor values;
};

Copy Checked(at::Tensor target, const Operand& values) {
  at::Tensor v = Resolve("amend", {&values}).tensors[0];
  if (!at::is_expandable_to(v.sizes(), target.sizes())) {
    Fail("amend: values of size %s do not fit a tensor of size %s", absl::StrJoin(v.sizes(), " "),
         absl::StrJoin(target.sizes(), " "));
  }
  return Copy{std::move(target), std::move(v)};
}

void CopyAll(const std::vector<Copy>& copies, bool async) {
  c10::AutoGradMode no_grad(false);
  for (const Copy& c : copies) c.target.copy_(c.values, async);
}

void ExpectOnePerTarget(std::size_t targets, std::size_t values, const char* what) {
  if (targets != values) Fail("amend: %d %s given with %d values", targets, what, values);
}

Shape ContiguousStrides(const Shape& sizes) {
  Shape strides(sizes.size(), 1);
  for (std::size_t i = sizes.size(); i-- > 1;)
    strides[i - 1] = strides[i] * std::max<std::int64_t>(sizes[i], 1);
  return strides;
}

}  // namespace

void amend(Handle t, const Operand& values, bool async) {
  CopyAll({Checked(TensorOf("amend", t), values)}, async);
}

void amend(Handle v, absl::Span<const std::int64_t> indices, absl::Span<const Operand> values,
           bool async) {
  ExpectOnePerTarget(indices.size(), values.size(), "indices");
  std::vector<at::Tensor> targets = VectorElements("amend", v, indices);
  if (indices.empty()) targets.clear();  // no index amends nothing (no index selects every one)
  std::vector<Copy> copies;
  for (std::size_t i = 0; i < targets.size(); ++i) copies.push_back(Checked(targets[i], values[i]));
  CopyAll(copies, async);
}

void amend(Handle d, absl::Span<const std::string> keys, absl::Span<const Operand> values,
           bool async) {
  ExpectOnePerTarget(keys.size(), values.size(), "keys");
  auto targets = DictElements("amend", d, keys);
  if (keys.empty()) targets.clear();  // as for a vector
  std::vector<Copy> copies;
  for (std::size_t i = 0; i < targets.size(); ++i)
    copies.push_back(Checked(targets[i].second, values[i]));
  CopyAll(copies, async);
}

void reset(Handle t, std::int64_t offset, std::optional<Shape> sizes,
           std::optional<Shape> strides) {
  at::Tensor x = TensorOf("reset", t);
  const std::int64_t capacity = static_cast<std::int64_t>(x.storage().nbytes() / x.itemsize());
  if (offset < 0 || offset > capacity) {
    Fail("reset: offset %d out of range for a storage of %d elements", offset, capacity);
  }
  const Shape size = sizes.value_or(Shape{capacity - offset});
  const Shape stride = strides.value_or(ContiguousStrides(size));
  if (stride.size() != size.size())
    Fail("reset: %d sizes given with %d strides", size.size(), stride.size());
  std::int64_t last = offset;  // the last element the view reaches
  bool empty = false;
  for (std::size_t i = 0; i < size.size(); ++i) {
    if (size[i] < 0 || stride[i] < 0) {
      Fail("reset: sizes and strides must not be negative, given sizes %s and strides %s",
           absl::StrJoin(size, " "), absl::StrJoin(stride, " "));
    }
    empty = empty || size[i] == 0;
    last += (size[i] - 1) * stride[i];
  }
  if (!empty && last >= capacity) {
    Fail(
        "reset: offset %d with sizes %s and strides %s reaches element %d of a storage of %d "
        "elements",
        offset, absl::StrJoin(size, " "), absl::StrJoin(stride, " "), last, capacity);
  }
  c10::AutoGradMode no_grad(false);
  x.set_(x.storage(), offset, size, stride);
}

Result resize(const Operand& x, const Shape& size) {
  if (x.is_handle()) {
    TensorOf("resize", x.handle()).resize_(size);
    return Result();
  }
  return Result(Value(x.data().clone().resize_(size)));
}

Result filldiagonal(const Operand& x, const c10::Scalar& value, bool wrap) {
  c10::AutoGradMode no_grad(false);
  if (x.is_handle()) {
    TensorOf("filldiagonal", x.handle()).fill_diagonal_(value, wrap);
    return Result();
  }
  return Result(Value(x.data().clone().fill_diagonal_(value, wrap)));
}

}  // namespace kscope
