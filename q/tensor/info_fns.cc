// Adapters for the information functions of group A: info detail stride dim numel itemsize
// offset nnz densedim sparsedim sptr sref weakref layout memory gradient gradfn ktype defined
// coalesced contiguous leaf pinned sparseflag objtype same alias result, and a module's
// inputmodule and outputmodule. Each reads api/tensor/info.h and
// shapes the result as ktorch does: an atom for a tensor, a list for a vector, a dictionary for
// a dictionary of tensors.
#include <ATen/ops/empty.h>

#include "api/core/operand.h"
#include "api/core/pointer.h"
#include "api/nn/module.h"
#include "api/tensor/info.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/convert/k_definition.h"
#include "q/env/settings.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// A PerElement of atoms as k: `atom` for one value, a simple list of `type` (filled by `set`)
// for a vector's, a dictionary of such a list for a dictionary's.
template <typename T, typename Atom, typename Set>
K Shaped(const PerElement<T>& v, int type, Atom atom, Set set) {
  return KFromShaped(v, atom, [&](const std::vector<T>& values) {
    K x = kabi::ktn(type, static_cast<long long>(values.size()));
    for (std::size_t i = 0; i < values.size(); ++i) set(x, i, values[i]);
    return x;
  });
}

K KFromFlags(const PerElement<bool>& v) {
  return Shaped(
      v, kabi::kBoolean, [](bool b) { return kabi::kb(b); },
      [](K x, std::size_t i, bool b) { kabi::Bytes(x)[i] = b; });
}

K KFromPerElementChars(const PerElement<char>& v) {
  return Shaped(
      v, kabi::kChar, [](char c) { return kabi::kc(c); },
      [](K x, std::size_t i, char c) { kabi::Chars(x)[i] = c; });
}

K Encode(const PerElement<bool>& v) { return KFromFlags(v); }
K Encode(const PerElement<char>& v) { return KFromPerElementChars(v); }
template <typename T>
K Encode(const PerElement<T>& v) {
  return KFromPerElement(v);
}

// f p: the attribute `read` of every tensor p holds.
template <typename Read>
K Attribute(const char* fn, K x, Read read) {
  return Guard([&] { return Encode(read(PointerArgument(fn, x))); });
}

K Stride(K x) { return Attribute("stride", x, stride); }
K Dim(K x) { return Attribute("dim", x, dim); }
K Numel(K x) { return Attribute("numel", x, numel); }
K Itemsize(K x) { return Attribute("itemsize", x, itemsize); }
K Offset(K x) { return Attribute("offset", x, offset); }
K Nnz(K x) { return Attribute("nnz", x, nnz); }
K Densedim(K x) { return Attribute("densedim", x, densedim); }
K Sparsedim(K x) { return Attribute("sparsedim", x, sparsedim); }

// result p: an attribute ktorch registers for no class (always an error naming p's class).
K Result(K x) {
  return Guard([&]() -> K { result(PointerArgument("result", x)); });
}

// inputmodule p / outputmodule p: the kind at either end of a module's forward (`` for none).
K Inputmodule(K x) {
  return Guard([&] { return Symbol(inputmodule(PointerArgument("inputmodule", x))); });
}
K Outputmodule(K x) {
  return Guard([&] { return Symbol(outputmodule(PointerArgument("outputmodule", x))); });
}
K Sptr(K x) { return Attribute("sptr", x, sptr); }
K Sref(K x) { return Attribute("sref", x, sref); }
K Weakref(K x) { return Attribute("weakref", x, weakref); }
K Layout(K x) { return Attribute("layout", x, layout); }
K Memory(K x) { return Attribute("memory", x, memory); }
K Gradient(K x) { return Attribute("gradient", x, gradient); }
K Gradfn(K x) { return Attribute("gradfn", x, gradfn); }
K Ktype(K x) { return Attribute("ktype", x, ktype); }
K Defined(K x) { return Attribute("defined", x, defined); }
K Coalesced(K x) { return Attribute("coalesced", x, coalesced); }
K Leaf(K x) { return Attribute("leaf", x, leaf); }
K Pinned(K x) { return Attribute("pinned", x, pinned); }
K Sparseflag(K x) { return Attribute("sparseflag", x, sparseflag); }

// contiguous p / contiguous(p;`channel2d)
K Contiguous(K x) {
  return Guard([&] {
    if (IsPointer(x)) return KFromFlags(contiguous(HandleOf(x)));
    const Args a("contiguous", x);
    if (a.size() != 2 || !a.IsPointerAt(0)) a.Unrecognized();
    const std::string name = a.SymbolAt(1);
    const std::optional<c10::MemoryFormat> format = MemoryFormatFromName(name);
    if (!format)
      Fail(
          "contiguous: unrecognized memory format `%s, expecting contiguous, channel2d or "
          "channel3d",
          name);
    return KFromFlags(contiguous(a.PointerAt(0), *format));
  });
}

// info t: ktorch's keys in its order, from the tensor's detail and its sparse dims.
K InfoDictionary(Handle h, const TensorDetail& d) {
  const TensorInfo& i = d.info;
  K keys =
      Symbols({"defined",  "device",     "dtype",     "layout",    "gradient", "pin",    "memory",
               "leaf",     "gradfn",     "dim",       "sparsedim", "size",     "stride", "numel",
               "itemsize", "contiguous", "coalesced", "offset",    "ptr",      "ref"});
  K values = kabi::knk(20, kabi::kb(i.defined), Symbol(i.device), Symbol(i.dtype), Symbol(i.layout),
                       Symbol(i.gradient), Symbol(d.pinned ? "pinned" : "unpinned"),
                       Symbol(d.memory), kabi::kb(i.leaf), Symbol(i.gradfn), kabi::kj(i.dim),
                       kabi::kj(sparsedim(h).single()), KFromLongs(i.size), KFromLongs(i.stride),
                       kabi::kj(i.numel), kabi::kj(i.itemsize), kabi::kb(d.contiguous),
                       kabi::kb(d.coalesced), kabi::kj(i.offset), kabi::kj(i.ptr), kabi::kj(i.ref));
  return kabi::xD(keys, values);
}

// The values of a strided tensor's whole storage, as a flat tensor of its dtype.
at::Tensor StorageValues(const at::Tensor& t) {
  if (!t.defined() || !t.has_storage() || t.is_sparse()) return at::Tensor();
  const std::int64_t n =
      static_cast<std::int64_t>(t.storage().nbytes()) / static_cast<std::int64_t>(t.itemsize());
  return at::empty({0}, t.options()).set_(t.storage(), 0, {n}, {1});
}

K Info(K x) {
  return Guard([&] {
    if (!IsPointer(x)) Fail("info not implemented for %s", KName(x));  // ktorch's text
    const Handle h = HandleOf(x);
    return InfoDictionary(h, detail(h));
  });
}

// detail t: info, then the storage (bytes ref ptr data), as ktorch gives it.
K Detail(K x) {
  return Guard([&] {
    if (!IsPointer(x)) Fail("detail not implemented for %s", KName(x));
    const Handle h = HandleOf(x);
    const TensorDetail d = detail(h);
    K info = InfoDictionary(h, d);
    K storage = kabi::xD(Symbols({"bytes", "ref", "ptr", "data"}),
                         kabi::knk(4, kabi::kj(d.storage_bytes), kabi::kj(d.sref), kabi::kj(d.sptr),
                                   KFromTensor(StorageValues(TensorOf("detail", h)))));
    kabi::js(&kabi::Items(info)[0], kabi::ss(const_cast<char*>("storage")));
    kabi::jk(&kabi::Items(info)[1], storage);
    return info;
  });
}

K Objtype(K x) {
  return Guard([&] {
    if (!IsPointer(x)) {
      Fail("objtype: requires an allocated torch object, e.g. module, loss or optimizer, given %s",
           KName(x));
    }
    return Symbol(objtype(HandleOf(x)));
  });
}

// same(a;b) / alias(a;b)
template <bool (*Compare)(Handle, Handle)>
K Pair(const char* fn, K x) {
  return Guard([&] {
    const Args a(fn, x);
    if (a.size() != 2 || !a.IsPointerAt(0) || !a.IsPointerAt(1)) {
      Fail("%s: expecting two tensors, given %s", fn, KName(x));
    }
    return kabi::kb(Compare(a.PointerAt(0), a.PointerAt(1)));
  });
}

K Same(K x) { return Pair<same>("same", x); }
K Alias(K x) { return Pair<alias>("alias", x); }

}  // namespace

std::vector<Export> InfoExports() {
  return {Unary("info", Info),
          Unary("detail", Detail),
          Unary("stride", Stride),
          Unary("dim", Dim),
          Unary("numel", Numel),
          Unary("itemsize", Itemsize),
          Unary("offset", Offset),
          Unary("sptr", Sptr),
          Unary("sref", Sref),
          Unary("nnz", Nnz),
          Unary("densedim", Densedim),
          Unary("sparsedim", Sparsedim),
          Unary("result", Result),
          Unary("inputmodule", Inputmodule),
          Unary("outputmodule", Outputmodule),
          Unary("weakref", Weakref),
          Unary("layout", Layout),
          Unary("memory", Memory),
          Unary("gradient", Gradient),
          Unary("gradfn", Gradfn),
          Unary("ktype", Ktype),
          Unary("defined", Defined),
          Unary("coalesced", Coalesced),
          Unary("contiguous", Contiguous),
          Unary("leaf", Leaf),
          Unary("pinned", Pinned),
          Unary("sparseflag", Sparseflag),
          Unary("objtype", Objtype),
          Unary("same", Same),
          Unary("alias", Alias)};
}

}  // namespace kscope::q
