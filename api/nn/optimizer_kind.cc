#include "api/nn/optimizer_kind.h"

#include <algorithm>
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

void CheckBufferNames(const OptimizerKind& kind, const std::string& parameter,
                      const OptimizerBuffers& buffers) {
  for (const auto& [name, value] : buffers) {
    if (std::find(kind.buffers.begin(), kind.buffers.end(), name) == kind.buffers.end()) {
      Fail("opt: unrecognized %s buffer `%s for parameter `%s", kind.name, name, parameter);
    }
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

std::vector<std::unique_ptr<torch::optim::OptimizerParamState>> LoadStates(
    const OptimizerKind& kind, const std::vector<std::string>& names,
    const std::vector<at::Tensor>& parameters, const std::vector<OptimizerBuffers>& buffers) {
  if (!buffers.empty() && buffers.size() != names.size()) {
    Fail("opt: buffers given for %d parameter(s), expecting %d", buffers.size(), names.size());
  }
  for (std::size_t i = 0; i < buffers.size(); ++i) CheckBufferNames(kind, names[i], buffers[i]);
  std::vector<std::unique_ptr<torch::optim::OptimizerParamState>> states(buffers.size());
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    if (!buffers[i].empty())
      states[i] = kind.load(SavedBuffers(names[i], parameters[i], buffers[i]));
  }
  return states;
}

}  // namespace kscope::nn
