#include "api/nn/state_dict.h"

#include <utility>

#include <ATen/core/Dict.h>
#include <ATen/core/ivalue.h>
#include <c10/core/GradMode.h>
#include <torch/nn/module.h>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/core/pickle_file.h"
#include "api/model/model_object.h"
#include "runtime/errors.h"
#include "runtime/names.h"

namespace kscope {
namespace {

using Entries = std::vector<std::pair<std::string, at::Tensor>>;

constexpr char kSave[] = "savestatedict";
constexpr char kLoad[] = "loadstatedict";

// m's parameters and buffers as PyTorch's state_dict() lists them: m's own parameters, its own
// buffers, then each child's, depth first, names prefixed by the path.
void Collect(const torch::nn::Module& m, const std::string& prefix, Entries* out) {
  for (const auto& p : m.named_parameters(/*recurse=*/false)) {
    if (p.value().defined()) out->emplace_back(prefix + p.key(), p.value());
  }
  for (const auto& b : m.named_buffers(/*recurse=*/false)) {
    if (b.value().defined()) out->emplace_back(prefix + b.key(), b.value());
  }
  for (const auto& c : m.named_children()) Collect(*c.value(), prefix + c.key() + ".", out);
}

Entries StateEntries(const char* fn, Handle q) {
  Entries out;
  Collect(nn::ModuleOrModelsModule(fn, q)->module(), "", &out);
  return out;
}

// The file's tensors by name, in the file's order.
Entries ReadStateDict(const std::string& path) {
  Entries out;
  ReadPickleFile(kLoad, path, "a state dict (a dict of tensors by name)",
                 [&](const c10::IValue& v) {
                   for (const auto& item : v.toGenericDict()) {
                     out.emplace_back(item.key().toStringRef(), item.value().toTensor());
                   }
                 });
  return out;
}

// The dtype families a copy converts within (PyTorch's copy_ converts across them too, silently
// losing fractions or imaginary parts; a state dict that needs it is refused).
int Family(c10::ScalarType t) {
  if (c10::isComplexType(t)) return 2;
  if (c10::isFloatingType(t)) return 1;
  return 0;  // integral and bool
}

std::string Names(const std::vector<std::string>& names) {
  return absl::StrCat("`", absl::StrJoin(names, " `"));
}

}  // namespace

void save_state_dict(Handle q, const std::string& path) {
  c10::impl::GenericDict dict(c10::StringType::get(), c10::TensorType::get());
  for (const auto& [name, t] : StateEntries(kSave, q)) {
    dict.insert(name, t.detach().to(at::kCPU, /*non_blocking=*/false, /*copy=*/true));
  }
  WritePickleFile(kSave, path, dict);
}

StateDictKeys load_state_dict(Handle q, const std::string& path, bool strict) {
  const Entries targets = StateEntries(kLoad, q);
  const Entries file = ReadStateDict(path);
  absl::flat_hash_map<std::string, const at::Tensor*> given;
  for (const auto& [name, t] : file) given.emplace(name, &t);
  StateDictKeys left;
  std::vector<std::pair<const at::Tensor*, const at::Tensor*>> copies;  // module <- file
  for (const auto& [name, target] : targets) {
    const auto found = given.find(name);
    if (found == given.end()) {
      left.missing.push_back(name);
      continue;
    }
    const at::Tensor& value = *found->second;
    if (value.sizes() != target.sizes())
      Fail("%s: %s: `%s is %s in the file, %s in the module", kLoad, path, name,
           SizeText(value.sizes()), SizeText(target.sizes()));
    if (Family(value.scalar_type()) != Family(target.scalar_type()))
      Fail("%s: %s: `%s is %s in the file, %s in the module", kLoad, path, name,
           DtypeName(value.scalar_type()), DtypeName(target.scalar_type()));
    copies.emplace_back(&target, &value);
    given.erase(found);
  }
  for (const auto& entry : file) {
    if (given.contains(entry.first)) left.unexpected.push_back(entry.first);
  }
  if (strict && (!left.missing.empty() || !left.unexpected.empty())) {
    std::vector<std::string> parts;
    if (!left.missing.empty()) parts.push_back("missing " + Names(left.missing));
    if (!left.unexpected.empty()) parts.push_back("unexpected " + Names(left.unexpected));
    Fail("%s: %s does not match the module: %s", kLoad, path, absl::StrJoin(parts, "; "));
  }
  const c10::NoGradGuard no_grad;
  for (const auto& [target, value] : copies) target->copy_(*value);
  return left;
}

}  // namespace kscope
