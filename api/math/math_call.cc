// math::Call's accessors: the resolved arguments a catalogue kernel reads, by parameter position.
#include "api/math/math_catalogue.h"

#include "runtime/errors.h"
#include "runtime/names.h"

namespace kscope::math {

bool Call::has(std::size_t i) const {
  return i < slots_.size() && !std::holds_alternative<std::monostate>(slots_[i]);
}

const Call::Slot& Call::At(std::size_t i, const char* what) const {
  if (!has(i)) Fail("%s: arg[%d] (%s) is required", fn_, i, what);
  return slots_[i];
}

const at::Tensor& Call::tensor(std::size_t i) const {
  return std::get<at::Tensor>(At(i, "tensor"));
}

const std::vector<at::Tensor>& Call::tensors(std::size_t i) const {
  return std::get<std::vector<at::Tensor>>(At(i, "tensors"));
}

c10::Scalar Call::scalar(std::size_t i) const { return std::get<c10::Scalar>(At(i, "scalar")); }

AtOptional<c10::Scalar> Call::optional_scalar(std::size_t i) const {
  if (!has(i)) return {};
  return scalar(i);
}

std::int64_t Call::integer(std::size_t i) const { return std::get<std::int64_t>(At(i, "long")); }

std::int64_t Call::integer(std::size_t i, std::int64_t fallback) const {
  return has(i) ? integer(i) : fallback;
}

AtOptional<std::int64_t> Call::optional_integer(std::size_t i) const {
  if (!has(i)) return {};
  return integer(i);
}

std::vector<std::int64_t> Call::integers(std::size_t i) const {
  return std::get<std::vector<std::int64_t>>(At(i, "longs"));
}

std::vector<std::int64_t> Call::integers(std::size_t i, std::vector<std::int64_t> fallback) const {
  return has(i) ? integers(i) : fallback;
}

bool Call::flag(std::size_t i, bool fallback) const {
  return has(i) ? std::get<bool>(slots_[i]) : fallback;
}

double Call::real(std::size_t i) const { return std::get<double>(At(i, "double")); }

double Call::real(std::size_t i, double fallback) const { return has(i) ? real(i) : fallback; }

AtOptional<double> Call::optional_real(std::size_t i) const {
  if (!has(i)) return {};
  return real(i);
}

std::string Call::symbol(std::size_t i, std::string fallback) const {
  return has(i) ? std::get<std::string>(slots_[i]) : fallback;
}

AtOptional<c10::ScalarType> Call::dtype(std::size_t i) const {
  if (!has(i)) return {};
  const std::string& name = std::get<std::string>(slots_[i]);
  return *DtypeFromName(name);  // checked when the call was built
}

at::TensorOptions Call::options(std::size_t i) const {
  return has(i) ? std::get<at::TensorOptions>(slots_[i]) : at::TensorOptions();
}

}  // namespace kscope::math
