#include "api/tensor/container.h"

#include "absl/container/flat_hash_set.h"
#include "api/core/values.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "scope/scope_stack.h"

namespace kscope {
namespace {

// The tensors behind consuming items and the handles to consume, validated: every handle a
// live tensor, none given twice.
struct Items {
  std::vector<at::Tensor> tensors;
  std::vector<Handle> consumed;
};

Items Collect(const char* fn, absl::Span<const Operand> operands) {
  absl::flat_hash_set<Handle> seen;
  Items items;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    if (!operands[i].is_handle()) continue;
    if (!seen.insert(operands[i].handle()).second) {
      Fail("%s: the same handle is given twice (element[%d]); use addref for a second handle", fn,
           i);
    }
    items.consumed.push_back(operands[i].handle());
  }
  TensorList resolved = Resolve(fn, operands).tensors;
  items.tensors.assign(resolved.begin(), resolved.end());
  return items;
}

template <typename Payload>
Payload Stored(const char* fn, Handle h, ObjectClass expected) {
  Object o = HandleTable::Global().Get(h);
  if (o.object_class() != expected) {
    Fail("%s: expected %s, given %s", fn, ClassName(expected), ClassName(o.object_class()));
  }
  if constexpr (std::is_same_v<Payload, TensorVector>) {
    return std::move(*o.vector());
  } else {
    return std::move(*o.dict());
  }
}

// Replaces h's payload with `payload`, consuming the handle in `value` if it is one.
template <typename Payload>
void Commit(Handle h, Payload payload, const Operand& value) {
  std::vector<Object> released;
  std::vector<Handle> consumed;
  if (value.is_handle()) consumed.push_back(value.handle());
  HandleTable::Global().Replace(h, Object(std::move(payload)), consumed, &released);
}

std::size_t CheckedPosition(std::int64_t i, std::size_t size) {
  if (i < 0 || static_cast<std::size_t>(i) >= size) {
    Fail("vector: index %d out of range for size %d", i, size);
  }
  return static_cast<std::size_t>(i);
}

}  // namespace

Handle vector(const std::vector<Operand>& items) {
  Items collected = Collect("vector", items);
  return OwnConsuming(collected.consumed, Object(std::move(collected.tensors)), "vector");
}

Handle vector(std::initializer_list<Handle> items) {
  return vector(std::vector<Operand>(items.begin(), items.end()));
}

TensorVector vector(Handle v) {
  return std::get<TensorVector>(
      HostValue("vector", Object(Stored<TensorVector>("vector", v, ObjectClass::kVector))));
}

at::Tensor vector(Handle v, std::int64_t i) {
  TensorVector stored = Stored<TensorVector>("vector", v, ObjectClass::kVector);
  return HostCopy(stored[CheckedPosition(i, stored.size())]);
}

void vector(Handle v, std::int64_t i, const Operand& value) {
  TensorVector stored = Stored<TensorVector>("vector", v, ObjectClass::kVector);
  const std::size_t at = CheckedPosition(i, stored.size());
  if (value.is_handle() && value.handle() == v) Fail("vector: cannot insert a vector into itself");
  stored[at] = Resolve("vector", {&value}).tensors[0];
  Commit(v, std::move(stored), value);
}

Handle dict(const NamedOperands& items) {
  std::vector<Operand> operands;
  absl::flat_hash_set<std::string> names;
  operands.reserve(items.size());
  for (const auto& [name, value] : items) {
    if (!names.insert(name).second) Fail("dict: duplicate key `%s", name);
    operands.push_back(value);
  }
  Items collected = Collect("dict", operands);
  TensorDict d;
  d.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) d.insert(items[i].first, collected.tensors[i]);
  return OwnConsuming(collected.consumed, Object(std::move(d)), "dict");
}

TensorDict dict(Handle d) {
  return std::get<TensorDict>(
      HostValue("dict", Object(Stored<TensorDict>("dict", d, ObjectClass::kDictionary))));
}

at::Tensor dict(Handle d, const std::string& key) {
  TensorDict stored = Stored<TensorDict>("dict", d, ObjectClass::kDictionary);
  const at::Tensor* t = stored.find(key);
  if (t == nullptr) Fail("dict: no key `%s", key);
  return HostCopy(*t);
}

void dict(Handle d, const std::string& key, const Operand& value) {
  TensorDict stored = Stored<TensorDict>("dict", d, ObjectClass::kDictionary);
  if (value.is_handle() && value.handle() == d)
    Fail("dict: cannot insert a dictionary into itself");
  at::Tensor t = Resolve("dict", {&value}).tensors[0];
  if (at::Tensor* existing = stored.find(key)) {
    *existing = std::move(t);
  } else {
    stored.insert(key, std::move(t));
  }
  Commit(d, std::move(stored), value);
}

}  // namespace kscope
