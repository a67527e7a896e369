// Adapters for module introspection and parameter values: buffer buffers buffernames names
// modules moduletypes parmtypes freeze unfreeze copyparms avgparms.
#include "api/nn/module_parameters.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// f q | f(q;child): the module, and the child's name when given.
K KFromNameKinds(const NameKinds& v) {
  std::vector<std::string> names, kinds;
  for (const auto& [name, kind] : v) {
    names.push_back(name);
    kinds.push_back(kind);
  }
  return kabi::xD(Symbols(names), Symbols(kinds));
}

// buffer(q;name) -> pointer | buffer(q;name;value) -> null
K Buffer(K x) {
  return Guard([&] {
    const Args a("buffer", x);
    if (a.size() == 2) return Pointer(buffer(a.PointerAt(0), a.SymbolAt(1)));
    if (a.size() != 3) a.Unrecognized();
    buffer(a.PointerAt(0), a.SymbolAt(1), a.InputAt(2));
    return K{nullptr};
  });
}

K Buffers(K x) {
  return Guard([&] {
    const auto [q, child] = PointerAndNameOf(Args("buffers", x));
    return Pointer(buffers(q, child));
  });
}

K Buffernames(K x) {
  return Guard([&] { return Symbols(buffernames(Args("buffernames", x).PointerAt(0))); });
}

K Names(K x) {
  return Guard([&] {
    const auto [q, child] = PointerAndNameOf(Args("names", x));
    return Symbols(names(q, child));
  });
}

// modules q | modules(q;child) -> a dictionary name -> new module pointers
K Modules(K x) {
  return Guard([&] {
    const auto [q, child] = PointerAndNameOf(Args("modules", x));
    return KDictionary(modules(q, child), [](Handle h) { return Pointer(h); });
  });
}

// moduletypes q | moduletypes(q;types) -> a dictionary name -> kind (q's own under `) |
// moduletypes(q;`type) -> the names of the modules of that one kind, as in ktorch
K Moduletypes(K x) {
  return Guard([&] {
    const Args a("moduletypes", x);
    if (a.size() > 2) a.Unrecognized();
    const NameKinds kinds =
        moduletypes(a.PointerAt(0), a.size() == 2 ? a.SymbolsAt(1) : std::vector<std::string>{});
    if (a.size() == 2 && a.IsSymbolAt(1)) {
      std::vector<std::string> names;
      for (const auto& [name, kind] : kinds) names.push_back(name);
      return Symbols(names);
    }
    return KFromNameKinds(kinds);
  });
}

K Parmtypes(K x) {
  return Guard([&] { return KFromNameKinds(parmtypes(Args("parmtypes", x).PointerAt(0))); });
}

// The values of freeze(q;names;values) (one per name: the value itself for a single name) or
// of freeze(q;dict), read in place.
std::vector<Operand> ValuesOf(const char* fn, K values, std::size_t count, bool single) {
  if (single) return {InputFromK(fn, values)};
  if (values->t == kabi::kMixed && !IsPointer(values)) {
    std::vector<Operand> out;
    for (long long i = 0; i < values->n; ++i) out.push_back(InputFromK(fn, kabi::Items(values)[i]));
    return out;
  }
  const at::Tensor scalars = TensorViewOfK(fn, values);  // a simple list: one scalar per name
  if (scalars.dim() != 1 || static_cast<std::size_t>(scalars.size(0)) != count) {
    Fail("%s: %d name(s) but %d value(s)", fn, count, scalars.dim() == 1 ? scalars.size(0) : 1);
  }
  std::vector<Operand> out;
  for (std::int64_t i = 0; i < scalars.size(0); ++i) out.push_back(scalars[i]);
  return out;
}

// f q | f(q;names) | f(q;names;values) | f(q;dict) for freeze and unfreeze.
using SetAll = void (*)(Handle);
using SetNamed = void (*)(Handle, const std::vector<std::string>&);
using SetValues = void (*)(Handle, const std::vector<std::string>&, const std::vector<Operand>&);

K SetRequiresGrad(const char* fn, SetAll all, SetNamed named, SetValues with_values, K x) {
  return Guard([&] {
    const Args a(fn, x);
    if (a.size() == 1) {
      all(a.PointerAt(0));
    } else if (a.size() == 2 && a[1]->t == kabi::kDictionary) {
      K keys = kabi::DictKeys(a[1]);
      if (keys->t != kabi::kSymbol) a.Unrecognized();
      const std::vector<std::string> names(kabi::Symbols(keys), kabi::Symbols(keys) + keys->n);
      with_values(a.PointerAt(0), names, ValuesOf(fn, kabi::DictValues(a[1]), names.size(), false));
    } else if (a.size() == 2) {
      named(a.PointerAt(0), a.SymbolsAt(1));
    } else if (a.size() == 3) {
      const std::vector<std::string> names = a.SymbolsAt(1);
      with_values(a.PointerAt(0), names, ValuesOf(fn, a[2], names.size(), a.IsSymbolAt(1)));
    } else {
      a.Unrecognized();
    }
    return K{nullptr};
  });
}

K Freeze(K x) { return SetRequiresGrad("freeze", freeze, freeze, freeze, x); }
K Unfreeze(K x) { return SetRequiresGrad("unfreeze", unfreeze, unfreeze, unfreeze, x); }

// copyparms q -> dictionary pointer | copyparms(q;d) -> a dictionary name -> copied
K Copyparms(K x) {
  return Guard([&] {
    const Args a("copyparms", x);
    if (a.size() == 1) return Pointer(copyparms(a.PointerAt(0)));
    if (a.size() != 2) a.Unrecognized();
    const std::vector<std::pair<std::string, bool>> copied =
        copyparms(a.PointerAt(0), a.PointerAt(1));
    std::vector<std::string> names;
    K flags = kabi::ktn(kabi::kBoolean, static_cast<long long>(copied.size()));
    for (std::size_t i = 0; i < copied.size(); ++i) {
      names.push_back(copied[i].first);
      kabi::Bytes(flags)[i] = copied[i].second;
    }
    return kabi::xD(Symbols(names), flags);
  });
}

K Avgparms(K x) {
  return Guard([&] {
    const Args a("avgparms", x);
    if (a.size() != 2) a.Unrecognized();
    return kabi::kj(avgparms(a.PointerAt(0), a.PointerAt(1)));
  });
}

}  // namespace

std::vector<Export> ModuleParameterExports() {
  return {
      Unary("buffer", Buffer),       Unary("buffers", Buffers),  Unary("buffernames", Buffernames),
      Unary("names", Names),         Unary("modules", Modules),  Unary("moduletypes", Moduletypes),
      Unary("parmtypes", Parmtypes), Unary("freeze", Freeze),    Unary("unfreeze", Unfreeze),
      Unary("copyparms", Copyparms), Unary("avgparms", Avgparms)};
}

}  // namespace kscope::q
