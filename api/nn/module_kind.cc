#include "api/nn/module_kind.h"

#include "api/nn/kind_names.h"
#include "runtime/errors.h"

namespace kscope::nn {

KindTable::KindTable(std::vector<ModuleKind> kinds) : kinds_(std::move(kinds)) {
  for (const ModuleKind& k : kinds_) index_[k.name] = &k;
}

const ModuleKind* KindTable::Find(absl::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : it->second;
}

std::vector<std::string> NamesOf(const std::vector<ModuleKind>& kinds) {
  std::vector<std::string> names;
  for (const ModuleKind& k : kinds) names.push_back(k.name);
  return names;
}

const ModuleKind& OpaqueKind() {
  static const ModuleKind* const kind = new ModuleKind{
      "libtorch",
      {},
      nullptr,
      [](torch::nn::Module& m, const std::vector<at::Tensor>&) -> ModuleOutput {
        Fail("forward: %s has no kscope definition, it runs only inside its parent", m.name());
      },
      0,
      8,
      nullptr,
      nullptr};
  return *kind;
}

const at::Tensor& SingleOutput(const char* fn, const ModuleOutput& out) {
  if (const auto* t = std::get_if<at::Tensor>(&out)) return *t;
  Fail("%s: expected a single tensor result, the forward returned %d tensors", fn,
       std::get<std::vector<at::Tensor>>(out).size());
}

}  // namespace kscope::nn
