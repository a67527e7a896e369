// Adapters for the pointer API: obj free return use mapped ptr class device dtype size
// elements bytes tensorcount ref addref str.
#include "absl/cleanup/cleanup.h"
#include "api/core/pointer.h"
#include "api/tensor/info.h"
#include "api/tensor/tensor.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/convert/k_obj_rows.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"
#include "runtime/names.h"

namespace kscope::q {
namespace {

using kabi::K;

// The one pointer argument of an attribute function.
Handle OnePointer(const char* fn, K x) {
  if (!IsPointer(x))
    Fail("%s: need allocated torch object, e.g. tensor, module, given %s", fn, KName(x));
  return HandleOf(x);
}

K Obj(K x) {
  return Guard([&] {
    if (!Args("obj", x).empty()) Fail("obj: empty arg expected");
    return KFromObjectRows(obj());
  });
}

K Free(K x) {
  return Guard([&] {
    if (IsNull(x) || (x->t == kabi::kMixed && x->n == 0)) {
      kscope::free();
    } else if (IsPointer(x)) {
      kscope::free(HandleOf(x));
    } else if (x->t == kabi::kMixed) {
      std::vector<Handle> handles;
      for (long long i = 0; i < x->n; ++i) {
        K item = kabi::Items(x)[i];
        if (!IsPointer(item))
          Fail("free: expecting pytorch object but element[%d] is %s", i, KName(item));
        handles.push_back(HandleOf(item));
      }
      kscope::free(handles);
    } else if (x->t == kabi::kDictionary && kabi::DictKeys(x)->t == kabi::kSymbol &&
               kabi::DictValues(x)->t == kabi::kMixed) {
      K keys = kabi::DictKeys(x), values = kabi::DictValues(x);
      std::vector<std::pair<std::string, Handle>> named;
      for (long long i = 0; i < keys->n; ++i) {
        K item = kabi::Items(values)[i];
        if (!IsPointer(item)) {
          Fail("free: expecting pytorch object but dictionary key[`%s] is %s",
               kabi::Symbols(keys)[i], KName(item));
        }
        named.emplace_back(kabi::Symbols(keys)[i], HandleOf(item));
      }
      kscope::free(named);
    } else {
      Fail("free: expecting pytorch object or list/dictionary of objects, given %s", KName(x));
    }
    return K{nullptr};
  });
}

K Return(K x) {
  return Guard([&] {
    if (!IsPointer(x)) Fail("return: expecting tensor, vector or dictionary, given %s", KName(x));
    const Handle h = HandleOf(x);
    // Convert before freeing: if conversion fails the handle is untouched.
    K values = KFromValue(copy_out(h));
    auto drop = absl::MakeCleanup([&] { kabi::r0(values); });
    kscope::free(h);
    std::move(drop).Cancel();
    return values;
  });
}

K Use(K x, K y) {
  return Guard([&] {
    if (!IsPointer(x)) Fail("use: 1st arg must be tensor, vector or dictionary");
    const Handle dst = HandleOf(x);
    if (IsPointer(y)) {
      use(dst, HandleOf(y));
    } else {
      const ObjectClass c = class_(dst);
      if (c != ObjectClass::kTensor && c != ObjectClass::kVector && c != ObjectClass::kDictionary) {
        Fail("use: 1st arg must be tensor, vector or dictionary");
      }
      use(dst, ValueFromK("use", y, c));
    }
    return K{nullptr};
  });
}

K Mapped(K x) {
  return Guard([&] { return kabi::kb(IsPointer(x) && mapped(HandleOf(x))); });
}

K Ptr(K x) {
  return Guard([&] { return KFromPerElement(ptr(PointerArgument("ptr", x))); });
}

K Class(K x) {
  return Guard([&] { return Symbol(std::string(ClassName(class_(OnePointer("class", x))))); });
}

// Whether h is a vector or dictionary, whose attributes ktorch gives per tensor.
bool HoldsTensors(Handle h) {
  const ObjectClass c = class_(h);
  return c == ObjectClass::kVector || c == ObjectClass::kDictionary;
}

// device[] -> the default device; device p -> p's device (per tensor of a vector or dictionary)
K Device(K x) {
  return Guard([&] {
    if (Args("device", x).empty()) return Symbol(default_device());
    const Handle h = PointerArgument("device", x);
    return HoldsTensors(h) ? KFromPerElement(device_each(h)) : Symbol(device(h));
  });
}

// dtype[] -> the default dtype; dtype`double sets it; dtype p -> p's dtype(s)
K Dtype(K x) {
  return Guard([&] {
    if (Args("dtype", x).empty()) return Symbol(default_dtype());
    if (IsSymbol(x)) {
      const auto t = DtypeFromName(SymbolText(x));
      if (!t) Fail("dtype: unrecognized dtype `%s", SymbolText(x));
      set_default_dtype(*t);
      return K{nullptr};
    }
    return KFromPerElement(dtype(PointerArgument("dtype", x)));
  });
}

// ktorch's size: a tensor's dimensions (a list of them per tensor of a vector or dictionary);
// a module's, loss's, optimizer's or model's parameter count as one long (seed 000).
K Size(K x) {
  return Guard([&] {
    const Handle h = PointerArgument("size", x);
    const PerElement<std::vector<std::int64_t>> s = size(h);
    const ObjectClass c = class_(h);
    if (c == ObjectClass::kTensor || HoldsTensors(h)) return KFromPerElement(s);
    return kabi::kj(s.single().at(0));
  });
}

K Elements(K x) {
  return Guard([&] {
    const Handle h = PointerArgument("elements", x);
    return HoldsTensors(h) ? KFromPerElement(elements_each(h)) : kabi::kj(elements(h));
  });
}

K Bytes(K x) {
  return Guard([&] {
    const Handle h = PointerArgument("bytes", x);
    return HoldsTensors(h) ? KFromPerElement(bytes_each(h)) : kabi::kj(bytes(h));
  });
}

K Tensorcount(K x) {
  return Guard([&] { return kabi::kj(tensorcount(OnePointer("tensorcount", x))); });
}

K Ref(K x) {
  return Guard([&] { return KFromPerElement(ref(PointerArgument("ref", x))); });
}

K Addref(K x) {
  return Guard([&] {
    if (!IsPointer(x)) Fail("addref not implemented for %s", KName(x));
    return Pointer(addref(HandleOf(x)));
  });
}

K Str(K x) {
  return Guard([&] {
    const std::string s = str(OnePointer("str", x));
    return kabi::kpn(const_cast<char*>(s.data()), static_cast<long long>(s.size()));
  });
}

}  // namespace

std::vector<Export> PointerExports() {
  return {Unary("obj", Obj),
          Unary("free", Free),
          Unary("return", Return),
          Export{"use", reinterpret_cast<void*>(Use), 2},
          Unary("mapped", Mapped),
          Unary("ptr", Ptr),
          Unary("class", Class),
          Unary("device", Device),
          Unary("dtype", Dtype),
          Unary("size", Size),
          Unary("elements", Elements),
          Unary("bytes", Bytes),
          Unary("tensorcount", Tensorcount),
          Unary("ref", Ref),
          Unary("addref", Addref),
          Unary("str", Str)};
}

}  // namespace kscope::q
