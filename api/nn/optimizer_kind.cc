#include "api/nn/optimizer_kind.h"

#include <sstream>

#include "absl/strings/str_join.h"
#include "runtime/errors.h"

namespace kscope::nn {

namespace {

// A template so that only the branch of the libtorch in use is compiled.
template <typename Key>
Key KeyOf(const at::Tensor& parameter) {
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream out;  // what libtorch 1.x's c10::guts::to_string gives
    out << parameter.unsafeGetTensorImpl();
    return out.str();
  } else {
    return parameter.unsafeGetTensorImpl();
  }
}

}  // namespace

StateKey StateKeyOf(const at::Tensor& parameter) { return KeyOf<StateKey>(parameter); }

const at::Tensor* SavedBuffers::Find(const char* name) const {
  for (const auto& [key, value] : buffers_) {
    if (key == name) return &value;
  }
  return nullptr;
}

at::Tensor SavedBuffers::Like(const char* name, bool required) const {
  const at::Tensor* t = Find(name);
  if (t == nullptr || !t->defined()) {
    if (required) Fail("opt: buffer `%s missing for parameter `%s", name, name_);
    return at::Tensor();
  }
  if (t->sizes() != parameter_.sizes()) {
    Fail("opt: buffer `%s for parameter `%s has size %s, expecting %s", name, name_,
         absl::StrJoin(t->sizes(), " "), absl::StrJoin(parameter_.sizes(), " "));
  }
  return t->to(parameter_.options(), /*non_blocking=*/false, /*copy=*/true);
}

at::Tensor SavedBuffers::Any(const char* name) const {
  const at::Tensor* t = Find(name);
  if (t == nullptr || !t->defined()) return at::Tensor();
  return t->to(parameter_.device(), /*non_blocking=*/false, /*copy=*/true);
}

std::int64_t SavedBuffers::Long(const char* name) const {
  const at::Tensor* t = Find(name);
  return t == nullptr || !t->defined() ? 0 : t->item<std::int64_t>();
}

double SavedBuffers::Double(const char* name) const {
  const at::Tensor* t = Find(name);
  return t == nullptr || !t->defined() ? 0 : t->item<double>();
}

}  // namespace kscope::nn
