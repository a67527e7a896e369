#include "api/selection.h"

#include "runtime/errors.h"
#include "runtime/handle_table.h"

namespace kscope {

std::vector<at::Tensor> VectorElements(const char* fn, Handle v, absl::Span<const std::int64_t> indices) {
  const Object o = HandleTable::Global().Get(v);
  const TensorVector* elements = o.vector();
  if (elements == nullptr) Fail("%s: expected vector, given %s", fn, ClassName(o.object_class()));
  std::vector<at::Tensor> selected;
  for (std::int64_t i : indices) {
    if (i < 0 || i >= static_cast<std::int64_t>(elements->size())) {
      Fail("%s: index %d out of range for a vector of %d tensors", fn, i, elements->size());
    }
    selected.push_back((*elements)[i]);
  }
  return selected;
}

std::vector<std::pair<std::string, at::Tensor>> DictElements(const char* fn, Handle d,
                                                             absl::Span<const std::string> keys) {
  const Object o = HandleTable::Global().Get(d);
  const TensorDict* elements = o.dict();
  if (elements == nullptr) Fail("%s: expected dictionary, given %s", fn, ClassName(o.object_class()));
  std::vector<std::pair<std::string, at::Tensor>> selected;
  for (const std::string& key : keys) {
    const at::Tensor* t = elements->find(key);
    if (t == nullptr) Fail("%s: no key `%s", fn, key);
    selected.emplace_back(key, *t);
  }
  return selected;
}

}  // namespace kscope
