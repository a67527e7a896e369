#include "api/tensor/info.h"

#include <optional>
#include <sstream>

#include <ATen/ops/count_nonzero.h>
#include <ATen/ops/is_coalesced.h>
#include <ATen/ops/is_pinned.h>
#include <c10/core/DefaultDtype.h>
#include <torch/csrc/autograd/function.h>

#include "api/model/model_object.h"
#include "api/nn/loss.h"
#include "api/nn/module.h"
#include "api/nn/optimizer.h"
#include "runtime/accounting.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "runtime/names.h"

namespace kscope {
namespace {

std::string LayoutName(c10::Layout layout) {
  switch (layout) {
    case c10::kStrided: return "strided";
    case c10::kSparse: return "sparse";
    default: {
      std::ostringstream out;
      out << layout;
      return out.str();
    }
  }
}

// ktorch's plural of a composite class in "not implemented for ..." messages.
const char* Plural(ObjectClass c) {
  switch (c) {
    case ObjectClass::kModule: return "modules";
    case ObjectClass::kLoss: return "loss modules";
    case ObjectClass::kOptimizer: return "optimizers";
    case ObjectClass::kGroup: return "groups";
    default: return "models";
  }
}

// Applies `f` to every tensor h holds under the table's lock, shaped by h's class.
template <typename T, typename F>
PerElement<T> EachTensor(const char* fn, Handle h, F f) {
  std::optional<PerElement<T>> out;
  std::optional<ObjectClass> composite;
  HandleTable::Global().Read(h, [&](const Object& o) {
    if (const at::Tensor* t = o.tensor()) {
      out.emplace(f(*t));
    } else if (const TensorVector* v = o.vector()) {
      typename PerElement<T>::List items;
      for (const at::Tensor& t : *v) items.push_back(f(t));
      out.emplace(std::move(items));
    } else if (const TensorDict* d = o.dict()) {
      typename PerElement<T>::Named items;
      for (const auto& item : *d) items.emplace_back(item.key(), f(item.value()));
      out.emplace(std::move(items));
    } else {
      composite = o.object_class();
    }
  });
  if (!out) Fail("%s: not implemented for %s", fn, Plural(*composite));
  return *std::move(out);
}

// Runs f(tensor, object) on the one tensor h holds and its stored object, under the table's lock.
template <typename F>
auto OneTensor(const char* fn, Handle h, F f) {
  std::optional<decltype(f(std::declval<const at::Tensor&>(), std::declval<const Object&>()))> out;
  HandleTable::Global().Read(h, [&](const Object& o) {
    if (const at::Tensor* t = o.tensor()) out.emplace(f(*t, o));
  });
  if (!out)
    Fail("%s: expected tensor, given %s", fn,
         ClassName(HandleTable::Global().Info(h).object_class));
  return *std::move(out);
}

bool Strided(const at::Tensor& t) { return t.defined() && t.layout() == c10::kStrided; }

std::int64_t Sptr(const at::Tensor& t) {
  return Strided(t) ? reinterpret_cast<std::int64_t>(t.storage().data()) : 0;
}
std::int64_t Sref(const at::Tensor& t) { return Strided(t) ? t.storage().use_count() : 0; }
std::int64_t Weakref(const at::Tensor& t) {
  return t.defined() ? static_cast<std::int64_t>(t.weak_use_count()) : 0;
}
std::string Memory(const at::Tensor& t) {
  return t.defined() ? MemoryFormatName(t.suggest_memory_format()) : "";
}
bool Pinned(const at::Tensor& t) { return Strided(t) && t.is_pinned(); }
bool Coalesced(const at::Tensor& t) { return !t.defined() || !t.is_sparse() || t.is_coalesced(); }
bool Contiguous(const at::Tensor& t, c10::MemoryFormat format) {
  return Strided(t) && t.is_contiguous(format);
}

TensorInfo InfoOf(const at::Tensor& t, const Object& o) {
  TensorInfo i{};
  i.defined = t.defined();
  i.ref = t.defined() ? static_cast<std::int64_t>(t.use_count()) : 0;
  if (!i.defined) return i;
  i.device = DeviceName(t.device());
  i.dtype = DtypeName(t.scalar_type());
  i.layout = LayoutName(t.layout());
  i.gradient = t.requires_grad() ? "grad" : "nograd";
  i.gradfn = t.grad_fn() ? t.grad_fn()->name() : std::string();
  i.leaf = t.is_leaf();
  i.dim = t.dim();
  i.elements = Elements(o);
  i.itemsize = static_cast<std::int64_t>(t.element_size());
  i.bytes = Bytes(o);
  i.size = t.sizes().vec();
  if (t.layout() == c10::kStrided) {
    i.stride = t.strides().vec();
    i.offset = t.storage_offset();
  }
  i.numel = t.numel();
  i.ptr = Ptr(o).single();
  return i;
}

char KType(const at::Tensor& t) { return t.defined() ? KTypeOf(t.scalar_type()) : ' '; }

TensorOptionsInfo OptionsOf(const at::Tensor& t) {
  if (!t.defined()) return TensorOptionsInfo{};
  return TensorOptionsInfo{DeviceName(t.device()),
                           DtypeName(t.scalar_type()),
                           LayoutName(t.layout()),
                           t.requires_grad() ? "grad" : "nograd",
                           Pinned(t) ? "pinned" : "unpinned",
                           Memory(t)};
}

// The tensor behind a handle that must hold one, for same/alias.
at::Tensor StoredTensor(const char* fn, Handle h) {
  return OneTensor(fn, h, [](const at::Tensor& t, const Object&) { return t; });
}

}  // namespace

TensorInfo info(Handle h) { return OneTensor("info", h, InfoOf); }

TensorDetail detail(Handle h) {
  return OneTensor("detail", h, [](const at::Tensor& t, const Object& o) {
    return TensorDetail{InfoOf(t, o),
                        Memory(t),
                        Contiguous(t, c10::MemoryFormat::Contiguous),
                        Pinned(t),
                        Coalesced(t),
                        Sptr(t),
                        Sref(t),
                        Weakref(t),
                        Strided(t) ? static_cast<std::int64_t>(t.storage().nbytes()) : 0};
  });
}

PerElement<std::vector<std::int64_t>> stride(Handle h) {
  return EachTensor<std::vector<std::int64_t>>("stride", h, [](const at::Tensor& t) {
    return Strided(t) ? t.strides().vec() : std::vector<std::int64_t>{};
  });
}

PerElement<std::int64_t> dim(Handle h) {
  return EachTensor<std::int64_t>("dim", h,
                                  [](const at::Tensor& t) { return t.defined() ? t.dim() : 0; });
}

PerElement<std::int64_t> numel(Handle h) {
  return EachTensor<std::int64_t>("numel", h,
                                  [](const at::Tensor& t) { return t.defined() ? t.numel() : 0; });
}

PerElement<std::int64_t> elements_each(Handle h) {
  return EachTensor<std::int64_t>("elements", h,
                                  [](const at::Tensor& t) { return Elements(Object(t)); });
}

PerElement<std::int64_t> bytes_each(Handle h) {
  return EachTensor<std::int64_t>("bytes", h, [](const at::Tensor& t) { return Bytes(Object(t)); });
}

PerElement<std::string> device_each(Handle h) {
  return EachTensor<std::string>("device", h, [](const at::Tensor& t) {
    return t.defined() ? DeviceName(t.device()) : std::string();
  });
}

PerElement<std::int64_t> nnz(Handle h) {
  return EachTensor<std::int64_t>("nnz", h, [](const at::Tensor& t) -> std::int64_t {
    if (!t.defined()) return 0;
    return t.is_sparse() ? t._nnz() : at::count_nonzero(t).item<std::int64_t>();
  });
}

PerElement<std::int64_t> densedim(Handle h) {
  return EachTensor<std::int64_t>("densedim", h, [](const at::Tensor& t) -> std::int64_t {
    if (!t.defined()) return 0;
    return t.is_sparse() ? t.dense_dim() : t.dim();
  });
}

PerElement<std::int64_t> sparsedim(Handle h) {
  return EachTensor<std::int64_t>("sparsedim", h, [](const at::Tensor& t) -> std::int64_t {
    return t.defined() && t.is_sparse() ? t.sparse_dim() : 0;
  });
}

PerElement<std::int64_t> itemsize(Handle h) {
  return EachTensor<std::int64_t>("itemsize", h, [](const at::Tensor& t) {
    return t.defined() ? static_cast<std::int64_t>(t.element_size()) : 0;
  });
}

PerElement<std::int64_t> offset(Handle h) {
  return EachTensor<std::int64_t>(
      "offset", h, [](const at::Tensor& t) { return Strided(t) ? t.storage_offset() : 0; });
}

PerElement<std::int64_t> sptr(Handle h) { return EachTensor<std::int64_t>("sptr", h, Sptr); }
PerElement<std::int64_t> sref(Handle h) { return EachTensor<std::int64_t>("sref", h, Sref); }
PerElement<std::int64_t> weakref(Handle h) {
  return EachTensor<std::int64_t>("weakref", h, Weakref);
}

PerElement<std::string> layout(Handle h) {
  return EachTensor<std::string>("layout", h, [](const at::Tensor& t) {
    return t.defined() ? LayoutName(t.layout()) : std::string();
  });
}

PerElement<std::string> memory(Handle h) { return EachTensor<std::string>("memory", h, Memory); }

PerElement<std::string> gradient(Handle h) {
  const auto f = [](const at::Tensor& t) {
    return std::string(t.defined() && t.requires_grad() ? "grad" : "nograd");
  };
  if (auto each = nn::EachParameter<std::string>("gradient", h, f)) return *std::move(each);
  return EachTensor<std::string>("gradient", h, f);
}

PerElement<std::string> gradfn(Handle h) {
  return EachTensor<std::string>("gradfn", h, [](const at::Tensor& t) {
    return t.defined() && t.grad_fn() ? t.grad_fn()->name() : std::string();
  });
}

PerElement<char> ktype(Handle h) {
  if (auto each = nn::EachParameter<char>("ktype", h, KType)) return *std::move(each);
  return EachTensor<char>("ktype", h, KType);
}

PerElement<bool> defined(Handle h) {
  return EachTensor<bool>("defined", h, [](const at::Tensor& t) { return t.defined(); });
}

PerElement<bool> coalesced(Handle h) { return EachTensor<bool>("coalesced", h, Coalesced); }

PerElement<bool> contiguous(Handle h, std::optional<c10::MemoryFormat> format) {
  const c10::MemoryFormat f = format.value_or(c10::MemoryFormat::Contiguous);
  return EachTensor<bool>("contiguous", h, [f](const at::Tensor& t) { return Contiguous(t, f); });
}

PerElement<bool> leaf(Handle h) {
  return EachTensor<bool>("leaf", h,
                          [](const at::Tensor& t) { return t.defined() && t.is_leaf(); });
}

PerElement<bool> pinned(Handle h) { return EachTensor<bool>("pinned", h, Pinned); }

PerElement<bool> sparseflag(Handle h) {
  return EachTensor<bool>("sparseflag", h,
                          [](const at::Tensor& t) { return t.defined() && t.is_sparse(); });
}

char KTypeOf(c10::ScalarType t) {
  switch (t) {
    case c10::ScalarType::Bool: return 'b';
    case c10::ScalarType::Byte: return 'x';
    case c10::ScalarType::Char: return 'c';
    case c10::ScalarType::Short: return 'h';
    case c10::ScalarType::Int: return 'i';
    case c10::ScalarType::Long: return 'j';
    case c10::ScalarType::Double:
    case c10::ScalarType::ComplexDouble: return 'f';
    default: return 'e';  // float, half, bfloat16, complex float
  }
}

std::string MemoryFormatName(c10::MemoryFormat format) {
  switch (format) {
    case c10::MemoryFormat::Contiguous: return "contiguous";
    case c10::MemoryFormat::Preserve: return "preserve";
    case c10::MemoryFormat::ChannelsLast: return "channel2d";
    case c10::MemoryFormat::ChannelsLast3d: return "channel3d";
    default: return "";
  }
}

std::optional<c10::MemoryFormat> MemoryFormatFromName(const std::string& name) {
  for (c10::MemoryFormat f : {c10::MemoryFormat::Contiguous, c10::MemoryFormat::Preserve,
                              c10::MemoryFormat::ChannelsLast, c10::MemoryFormat::ChannelsLast3d}) {
    if (name == MemoryFormatName(f)) return f;
  }
  return std::nullopt;
}

TensorOptionsInfo options() {
  return TensorOptionsInfo{
      "cpu",      DtypeName(c10::typeMetaToScalarType(c10::get_default_dtype())),
      "strided",  "nograd",
      "unpinned", "contiguous"};
}

PerElement<TensorOptionsInfo> options(Handle h) {
  return EachTensor<TensorOptionsInfo>("options", h, OptionsOf);
}

std::string objtype(Handle h) {
  switch (HandleTable::Global().Info(h).object_class) {
    case ObjectClass::kModule: return describe(h, false).at(0).kind;
    case ObjectClass::kLoss: return describe_loss(h, false).kind;
    case ObjectClass::kOptimizer: return describe_opt(h, false).kind;
    case ObjectClass::kModel: return "model";
    case ObjectClass::kGroup: return "group";
    default: return "tensor";
  }
}

void result(Handle h) {
  const ObjectClass c = HandleTable::Global().Info(h).object_class;
  const bool tensors =
      c == ObjectClass::kTensor || c == ObjectClass::kVector || c == ObjectClass::kDictionary;
  Fail("result: not implemented for %s", tensors ? "tensors" : Plural(c));
}

bool same(Handle a, Handle b) {
  const at::Tensor x = StoredTensor("same", a), y = StoredTensor("same", b);
  return x.unsafeGetTensorImpl() == y.unsafeGetTensorImpl();
}

bool alias(Handle a, Handle b) {
  const at::Tensor x = StoredTensor("alias", a), y = StoredTensor("alias", b);
  return x.defined() && y.defined() && x.is_alias_of(y);
}

}  // namespace kscope
