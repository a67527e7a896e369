#include "api/core/pointer.h"

#include <sstream>

#include <ATen/core/Formatting.h>

#include "api/core/values.h"
#include "api/model/model_object.h"
#include "runtime/accounting.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "runtime/names.h"
#include "scope/scope_stack.h"

namespace kscope {
namespace {

bool IsComposite(ObjectClass c) {
  return c != ObjectClass::kTensor && c != ObjectClass::kVector && c != ObjectClass::kDictionary;
}

// ktorch's plural for "not implemented for ..." messages.
absl::string_view Plural(ObjectClass c) {
  switch (c) {
    case ObjectClass::kModule: return "modules";
    case ObjectClass::kLoss: return "loss modules";
    case ObjectClass::kOptimizer: return "optimizers";
    case ObjectClass::kModel: return "models";
    case ObjectClass::kGroup: return "groups";
    case ObjectClass::kTensor: return "tensors";
    case ObjectClass::kVector: return "vectors";
    case ObjectClass::kDictionary: return "dictionaries";
  }
  return "objects";
}

// Runs an accounting function on the stored object, under the table's lock.
template <typename F>
auto ReadStored(Handle h, F f) {
  std::optional<decltype(f(std::declval<const Object&>()))> out;
  HandleTable::Global().Read(h, [&](const Object& o) { out.emplace(f(o)); });
  return std::move(*out);
}

std::vector<std::int64_t> RowSize(const Object& o) {
  if (const auto* v = o.vector()) return {static_cast<std::int64_t>(v->size())};
  if (const auto* d = o.dict()) return {static_cast<std::int64_t>(d->size())};
  return Size(o).single();
}

}  // namespace

std::vector<ObjectRow> obj() {
  std::vector<ObjectRow> rows;
  for (auto& [info, object] : HandleTable::Global().Snapshot()) {
    const PerElement<std::string> dtype = Dtype(object);
    rows.push_back(ObjectRow{info.handle, info.object_class, DeviceOf(object),
                             dtype.is_single() ? dtype.single() : std::string(), RowSize(object),
                             Elements(object), Bytes(object), info.depth, info.origin, info.owner});
  }
  return rows;
}

std::size_t live_handles() { return HandleTable::Global().size(); }

void free(Handle h) { HandleTable::Global().Release(h); }

void free(absl::Span<const Handle> handles) {
  HandleTable::Global().ReleaseAll(
      handles, [](std::size_t i) { Fail("free: stale pointer, element[%d] of given list", i); });
}

void free(const std::vector<std::pair<std::string, Handle>>& named) {
  std::vector<Handle> handles;
  handles.reserve(named.size());
  for (const auto& item : named) handles.push_back(item.second);
  HandleTable::Global().ReleaseAll(handles, [&](std::size_t i) {
    Fail("free: stale pointer, key[`%s] of given dictionary", named[i].first);
  });
}

void free() { ReleaseThreadHandles(); }

Value copy_out(Handle h, const char* fn) { return HostValue(fn, HandleTable::Global().Get(h)); }

Value return_(Handle h) {
  Value v = copy_out(h);
  HandleTable::Global().Release(h);
  return v;
}

void use(Handle dst, Handle src) {
  const EntryInfo to = HandleTable::Global().Info(dst);
  if (IsComposite(to.object_class)) Fail("use: 1st arg must be tensor, vector or dictionary");
  if (dst == src) return;
  const EntryInfo from = HandleTable::Global().Info(src);
  if (from.object_class != to.object_class) {
    Fail("use: unable to re-assign %s to given %s", ClassName(to.object_class),
         ClassName(from.object_class));
  }
  HandleTable::Global().Transfer(src, dst);
}

void use(Handle dst, Value data) {
  const EntryInfo to = HandleTable::Global().Info(dst);
  if (IsComposite(to.object_class)) Fail("use: 1st arg must be tensor, vector or dictionary");
  const ObjectClass given = ClassOf(data);
  if (given != to.object_class) {
    Fail("use: unable to re-assign %s to given %s data", ClassName(to.object_class),
         ClassName(given));
  }
  HandleTable::Global().Replace(dst, ObjectOf(std::move(data)));
}

bool mapped(Handle h) { return HandleTable::Global().Contains(h); }

std::optional<ObjectClass> class_if_mapped(Handle h) { return HandleTable::Global().ClassOf(h); }

PerElement<std::int64_t> ptr(Handle h) { return ReadStored(h, Ptr); }

ObjectClass class_(Handle h) { return HandleTable::Global().Info(h).object_class; }

std::string device(Handle h) { return DeviceOf(HandleTable::Global().Get(h)); }

PerElement<std::string> dtype(Handle h) {
  // per parameter, as ktorch gives it
  if (auto each = nn::EachParameter<std::string>(
          "dtype", h, [](const at::Tensor& t) { return DtypeName(t.scalar_type()); })) {
    return *std::move(each);
  }
  const Object o = HandleTable::Global().Get(h);
  if (IsComposite(o.object_class()))
    Fail("dtype: not implemented for %s", Plural(o.object_class()));
  return Dtype(o);
}

PerElement<std::vector<std::int64_t>> size(Handle h) { return Size(HandleTable::Global().Get(h)); }

std::int64_t elements(Handle h) { return Elements(HandleTable::Global().Get(h)); }

std::int64_t bytes(Handle h) { return Bytes(HandleTable::Global().Get(h)); }

std::int64_t tensorcount(Handle h) { return TensorCount(HandleTable::Global().Get(h)); }

PerElement<std::int64_t> ref(Handle h) { return ReadStored(h, Ref); }

Handle addref(Handle h) { return Own(HandleTable::Global().Get(h), "addref"); }

std::string str(Handle h) {
  const Object o = HandleTable::Global().Get(h);
  if (const CompositeObject* c = o.composite()) return c->str();
  const at::Tensor* t = o.tensor();
  if (t == nullptr) Fail("str: not implemented for %s", Plural(o.object_class()));
  std::ostringstream out;
  at::print(out, *t, 80);
  return out.str();
}

}  // namespace kscope
