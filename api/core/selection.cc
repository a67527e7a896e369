#include "api/core/selection.h"

#include "absl/strings/str_format.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"

namespace kscope {

std::vector<Selected> SelectElements(const char* fn, const TensorVector& v,
                                     absl::Span<const std::int64_t> indices) {
  std::vector<Selected> out;
  if (indices.empty()) {
    for (std::size_t i = 0; i < v.size(); ++i)
      out.push_back({v[i], absl::StrFormat("vector[%d]", i)});
    return out;
  }
  for (std::int64_t i : indices) {
    if (i < 0 || i >= static_cast<std::int64_t>(v.size())) {
      Fail("%s: vector index %d out of range for %d tensor(s)", fn, i, v.size());
    }
    out.push_back({v[i], absl::StrFormat("vector[%d]", i)});
  }
  return out;
}

std::vector<Selected> SelectElements(const char* fn, const TensorDict& d,
                                     absl::Span<const std::string> keys) {
  std::vector<Selected> out;
  if (keys.empty()) {
    for (const auto& item : d)
      out.push_back({item.value(), absl::StrFormat("key `%s", item.key())});
    return out;
  }
  for (const std::string& key : keys) {
    const at::Tensor* t = d.find(key);
    if (t == nullptr) Fail("%s: no key `%s in dictionary", fn, key);
    out.push_back({*t, absl::StrFormat("key `%s", key)});
  }
  return out;
}

std::vector<Selected> SelectElements(const char* fn, Handle v,
                                     absl::Span<const std::int64_t> indices) {
  const Object o = HandleTable::Global().Get(v);
  if (o.vector() == nullptr) Fail("%s: expected vector, given %s", fn, ClassName(o.object_class()));
  return SelectElements(fn, *o.vector(), indices);
}

std::vector<Selected> SelectElements(const char* fn, Handle d, absl::Span<const std::string> keys) {
  const Object o = HandleTable::Global().Get(d);
  if (o.dict() == nullptr)
    Fail("%s: expected dictionary, given %s", fn, ClassName(o.object_class()));
  return SelectElements(fn, *o.dict(), keys);
}

std::vector<at::Tensor> VectorElements(const char* fn, Handle v,
                                       absl::Span<const std::int64_t> indices) {
  std::vector<at::Tensor> selected;
  for (Selected& s : SelectElements(fn, v, indices)) selected.push_back(std::move(s.tensor));
  return selected;
}

std::vector<std::pair<std::string, at::Tensor>> DictElements(const char* fn, Handle d,
                                                             absl::Span<const std::string> keys) {
  const Object o = HandleTable::Global().Get(d);
  if (o.dict() == nullptr)
    Fail("%s: expected dictionary, given %s", fn, ClassName(o.object_class()));
  std::vector<std::pair<std::string, at::Tensor>> selected;
  const std::vector<std::string> names =
      keys.empty() ? o.dict()->keys() : std::vector<std::string>(keys.begin(), keys.end());
  std::vector<Selected> tensors = SelectElements(fn, *o.dict(), names);
  for (std::size_t i = 0; i < names.size(); ++i)
    selected.emplace_back(names[i], std::move(tensors[i].tensor));
  return selected;
}

}  // namespace kscope
