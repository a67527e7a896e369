#include "runtime/accounting.h"

#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "runtime/names.h"

namespace kscope {
namespace {

// What ktorch charges for one number kept outside tensors (a long or a double).
constexpr std::int64_t kScalarBytes = 8;

// Applies `f` to the tensor, to each element of a vector or to each value of a dictionary,
// shaping the result as PerElement does; composites get `composite(c)`.
template <typename T, typename F, typename C>
PerElement<T> PerTensor(const Object& o, F f, C composite) {
  if (const auto* t = o.tensor()) return PerElement<T>(f(*t));
  if (const auto* v = o.vector()) {
    typename PerElement<T>::List out;
    out.reserve(v->size());
    for (const auto& t : *v) out.push_back(f(t));
    return PerElement<T>(std::move(out));
  }
  if (const auto* d = o.dict()) {
    typename PerElement<T>::Named out;
    out.reserve(d->size());
    for (const auto& item : *d) out.emplace_back(item.key(), f(item.value()));
    return PerElement<T>(std::move(out));
  }
  return PerElement<T>(composite(*o.composite()));
}

struct StorageUse {
  std::int64_t nbytes = 0;     // size of the whole storage
  std::int64_t own_bytes = 0;  // numel x itemsize of the object's distinct tensors on it
  std::int64_t impls = 0;      // the object's distinct TensorImpls on it
  std::int64_t use_count = 0;  // all TensorImpls on it, inside the object or not
  std::int64_t itemsize = 1;
};

// The tensors holding t's values: t itself, or a sparse tensor's indices and values (they have
// storage; the sparse tensor has none).
std::vector<at::Tensor> StoredParts(const at::Tensor& t) {
  if (t.layout() == at::kSparse) return {t._indices(), t._values()};
  if (t.layout() == at::kSparseCsr) return {t.crow_indices(), t.col_indices(), t.values()};
  return {t};
}

// Groups the object's defined, storage-backed tensors by storage.
absl::flat_hash_map<const void*, StorageUse> StorageUses(const Object& o) {
  absl::flat_hash_map<const void*, StorageUse> uses;
  absl::flat_hash_set<const void*> seen_impls;
  for (const auto& held : o.tensors()) {
    if (!held.defined() || !seen_impls.insert(held.unsafeGetTensorImpl()).second) continue;
    for (const at::Tensor& t : StoredParts(held)) {
      if (!t.has_storage()) continue;
      const auto& storage = t.storage();
      StorageUse& use = uses[storage.unsafeGetStorageImpl()];
      use.nbytes = static_cast<std::int64_t>(storage.nbytes());
      use.own_bytes += t.numel() * static_cast<std::int64_t>(t.element_size());
      use.impls += 1;
      use.use_count = static_cast<std::int64_t>(storage.use_count());
      use.itemsize = static_cast<std::int64_t>(t.element_size());
    }
  }
  return uses;
}

// Bytes of one storage charged to the object.
std::int64_t ChargedBytes(const StorageUse& use) {
  return use.use_count > use.impls ? std::min(use.own_bytes, use.nbytes) : use.nbytes;
}

// A composite's numbers kept outside tensors (CompositeObject::scalar_count); 0 for the rest.
std::int64_t Scalars(const Object& o) {
  const CompositeObject* c = o.composite();
  return c != nullptr ? c->scalar_count() : 0;
}

}  // namespace

std::int64_t Bytes(const Object& o) {
  std::int64_t total = kScalarBytes * Scalars(o);
  for (const auto& [storage, use] : StorageUses(o)) total += ChargedBytes(use);
  return total;
}

std::int64_t Elements(const Object& o) {
  std::int64_t total = Scalars(o);
  for (const auto& [storage, use] : StorageUses(o)) total += ChargedBytes(use) / use.itemsize;
  return total;
}

std::int64_t TensorCount(const Object& o) { return static_cast<std::int64_t>(o.tensors().size()); }

PerElement<std::int64_t> Ref(const Object& o) {
  return PerTensor<std::int64_t>(
      o,
      [](const at::Tensor& t) -> std::int64_t {
        return t.defined() ? static_cast<std::int64_t>(t.use_count()) : 0;
      },
      [](const CompositeObject& c) -> std::int64_t { return c.use_count(); });
}

PerElement<std::int64_t> Ptr(const Object& o) {
  return PerTensor<std::int64_t>(
      o,
      [](const at::Tensor& t) {
        return static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(t.unsafeGetTensorImpl()));
      },
      [](const CompositeObject& c) {
        return static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(c.address()));
      });
}

PerElement<std::string> Dtype(const Object& o) {
  return PerTensor<std::string>(
      o,
      [](const at::Tensor& t) { return t.defined() ? DtypeName(t.scalar_type()) : std::string(); },
      [](const CompositeObject&) { return std::string(); });
}

PerElement<std::vector<std::int64_t>> Size(const Object& o) {
  return PerTensor<std::vector<std::int64_t>>(
      o,
      [](const at::Tensor& t) {
        return t.defined() ? t.sizes().vec() : std::vector<std::int64_t>{};
      },
      [](const CompositeObject& c) { return std::vector<std::int64_t>{c.parameter_count()}; });
}

std::string DeviceOf(const Object& o) {
  if (const CompositeObject* c = o.composite()) {
    const std::optional<c10::Device> device = c->device();
    return device ? DeviceName(*device) : "cpu";
  }
  for (const auto& t : o.tensors()) {
    if (t.defined()) return DeviceName(t.device());
  }
  return "cpu";
}

}  // namespace kscope
