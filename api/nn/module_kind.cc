#include "api/nn/module_kind.h"

namespace kscope::nn {

KindTable::KindTable(std::vector<ModuleKind> kinds) : kinds_(std::move(kinds)) {
  for (const ModuleKind& k : kinds_) index_[k.name] = &k;
}

const ModuleKind* KindTable::Find(absl::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : it->second;
}

}  // namespace kscope::nn
