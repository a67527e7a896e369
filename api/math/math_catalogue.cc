#include "api/math/math_catalogue.h"

#include <ATen/ops/scalar_tensor.h>
#include <c10/core/GradMode.h>

#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "api/tensor/tensor.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "runtime/names.h"

namespace kscope::math {
namespace {

constexpr absl::string_view kKinds = "tnTslLbfydo";

const char* KindName(char kind) {
  switch (kind) {
    case 't': return "tensor";
    case 'n': return "tensor or number";
    case 'T': return "tensors";
    case 's': return "scalar";
    case 'l': return "long";
    case 'L': return "long(s)";
    case 'b': return "boolean";
    case 'f': return "double";
    case 'y': return "symbol";
    case 'd': return "dtype";
    default: return "tensor options";
  }
}

std::vector<Parameter> Parse(const Function& f) {
  std::vector<Parameter> params;
  bool optional = false;
  for (const char* c = f.signature; *c != '\0'; ++c) {
    if (*c == '|') {
      optional = true;
    } else if (kKinds.find(*c) != absl::string_view::npos) {
      params.push_back(Parameter{*c, optional});
    } else {
      Fail("math: `%s has a bad signature \"%s\"", f.name, f.signature);
    }
  }
  return params;
}

struct Catalogue {
  std::vector<Function> functions;
  absl::flat_hash_map<std::string, std::size_t> index;
  std::vector<std::vector<Parameter>> parameters;
};

const Catalogue& TheCatalogue() {
  static const Catalogue* catalogue = [] {
    auto* c = new Catalogue;
    for (auto group : {PointwiseFunctions(), ComparisonFunctions(), ReductionFunctions(),
                       LinearAlgebraFunctions(), SpectralFunctions(), OtherFunctions()}) {
      for (const Function& f : group) {
        if (!c->index.emplace(f.name, c->functions.size()).second) {
          Fail("math: `%s is in the catalogue twice", f.name);
        }
        c->functions.push_back(f);
        c->parameters.push_back(Parse(f));
      }
    }
    return c;
  }();
  return *catalogue;
}

// A number argument as a scalar, whatever C++ type it came in.
std::optional<c10::Scalar> AsScalar(const Arg& a) {
  if (const auto* s = std::get_if<c10::Scalar>(&a)) return *s;
  if (const auto* l = std::get_if<std::int64_t>(&a)) return c10::Scalar(*l);
  if (const auto* d = std::get_if<double>(&a)) return c10::Scalar(*d);
  if (const auto* b = std::get_if<bool>(&a)) return c10::Scalar(*b);
  return std::nullopt;
}

[[noreturn]] void Mismatch(const Function& f, std::size_t i, char kind) {
  Fail("%s: arg[%d] expected %s", f.name, i, KindName(kind));
}

at::TensorOptions TensorOptionsFrom(const char* fn, const std::vector<std::string>& names) {
  const Options o = Options::Parse(fn, names);
  return o.factory().requires_grad(o.grad);
}

// The tensors of vector handle h, or nullopt when h is not a vector.
std::optional<TensorVector> VectorTensors(Handle h) {
  std::optional<TensorVector> tensors;
  HandleTable::Global().Read(h, [&](const Object& o) {
    if (o.vector() != nullptr) tensors = *o.vector();
  });
  return tensors;
}

// The argument of parameter i: args[i], or std::monostate past the end of `args`.
const Arg& ArgAt(absl::Span<const Arg> args, std::size_t i) {
  static const Arg kAbsent;
  return i < args.size() ? args[i] : kAbsent;
}

// A vector handle of several tensors given for a tensor parameter whose following tensor
// parameters are not given fills them with its tensors in order (lun(lu x), lusolve(b;lu x)):
// their slots receive the tensors. True if any did.
bool SpreadVectors(const std::vector<Parameter>& params, absl::Span<const Arg> args, Call* call) {
  bool spread = false;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto* given = std::get_if<Operand>(&ArgAt(args, i));
    if (params[i].kind != 't' || given == nullptr || !given->is_handle()) continue;
    // Only a handle followed by an unfilled tensor parameter can be a vector to spread: the
    // common call pays no table lookup here.
    if (i + 1 >= params.size() || params[i + 1].kind != 't' ||
        !std::holds_alternative<std::monostate>(ArgAt(args, i + 1))) {
      continue;
    }
    std::optional<TensorVector> tensors = VectorTensors(given->handle());
    if (!tensors) continue;
    const std::size_t n = tensors->size();
    bool fits = n > 1 && i + n <= params.size();
    for (std::size_t j = i + 1; fits && j < i + n; ++j) {
      fits = params[j].kind == 't' && std::holds_alternative<std::monostate>(ArgAt(args, j));
    }
    if (!fits) continue;  // left for the type check to report
    for (std::size_t j = 0; j < n; ++j) call->slot(i + j) = std::move((*tensors)[j]);
    spread = true;
    i += n - 1;
  }
  return spread;
}

// Stores `a` in `slot` if it holds a T; whether it did.
template <typename T>
bool Take(const Arg& a, Call::Slot* slot) {
  const auto* value = std::get_if<T>(&a);
  if (value != nullptr) *slot = *value;
  return value != nullptr;
}

// Checks argument `a` against a parameter of `kind` that takes no tensor and stores it in
// `slot` in the form the kernel reads (a number as a scalar, one long as a list of longs ...).
void FillValue(const Function& f, std::size_t i, char kind, const Arg& a, Call::Slot* slot) {
  const auto* one_long = std::get_if<std::int64_t>(&a);
  switch (kind) {
    case 's':
      if (auto s = AsScalar(a)) {
        *slot = *s;
        return;
      }
      break;
    case 'l':
      if (Take<std::int64_t>(a, slot)) return;
      break;
    case 'L':
      if (one_long != nullptr) {
        *slot = std::vector<std::int64_t>{*one_long};
        return;
      }
      if (Take<std::vector<std::int64_t>>(a, slot)) return;
      break;
    case 'b':
      if (Take<bool>(a, slot)) return;
      break;
    case 'f':
      if (one_long != nullptr) {
        *slot = static_cast<double>(*one_long);
        return;
      }
      if (Take<double>(a, slot)) return;
      break;
    case 'y':
      if (Take<std::string>(a, slot)) return;
      break;
    case 'd':
      if (const auto* name = std::get_if<std::string>(&a)) {
        if (!DtypeFromName(*name)) Fail("%s: unrecognized dtype `%s", f.name, *name);
        *slot = *name;
        return;
      }
      break;
    default:  // 'o'
      if (const auto* names = std::get_if<std::vector<std::string>>(&a)) {
        *slot = TensorOptionsFrom(f.name, *names);
        return;
      }
      break;
  }
  Mismatch(f, i, kind);
}

// Whether a function's result is a handle: always (creating functions), never (allclose ...),
// or when any tensor argument was one.
bool AsHandle(const Function& f, bool any_handle) {
  return f.returns == Returns::kHandle || (f.returns == Returns::kLikeInputs && any_handle);
}

// f x or f(x;y) through f's direct form when the call is exactly that: one (unary) or two
// (binary) tensor arguments and nothing else given. nullopt for any other shape, which the
// generic path handles (numbers, vectors to spread, optional arguments). Resolve and Emit are
// the generic path's own, so results and errors are the same.
std::optional<Result> RunDirectForm(const Function& f, absl::Span<const Arg> args, Handle out) {
  std::size_t given = args.size();
  while (given > 0 && std::holds_alternative<std::monostate>(args[given - 1])) --given;
  const Operand* x = given >= 1 ? std::get_if<Operand>(&args[0]) : nullptr;
  const Operand* y = given == 2 ? std::get_if<Operand>(&args[1]) : nullptr;
  if (f.unary != nullptr && given == 1 && x != nullptr) return RunOperands(f, *x, out);
  if (f.binary != nullptr && x != nullptr && y != nullptr) return RunOperands(f, *x, *y, out);
  return std::nullopt;
}

// Replaces the tensors of vector handle `out` with `results`.
void WriteVector(const char* fn, Handle out, std::vector<at::Tensor> results) {
  const Object current = HandleTable::Global().Get(out);
  if (current.object_class() != ObjectClass::kVector) {
    Fail("%s: output for several results must be a vector, given %s", fn,
         ClassName(current.object_class()));
  }
  HandleTable::Global().Replace(out, Object(std::move(results)));
}

}  // namespace

absl::Span<const Function> Functions() { return TheCatalogue().functions; }

const Function* Find(const std::string& name) {
  const Catalogue& c = TheCatalogue();
  auto it = c.index.find(name);
  return it == c.index.end() ? nullptr : &c.functions[it->second];
}

const std::vector<Parameter>& Parameters(const Function& f) {
  const Catalogue& c = TheCatalogue();
  // A catalogue entry is found from its address (std::less orders any two pointers).
  const Function* first = c.functions.data();
  const Function* last = first + c.functions.size();
  if (!std::less<const Function*>()(&f, first) && std::less<const Function*>()(&f, last)) {
    return c.parameters[&f - first];
  }
  // A function outside the catalogue: its signature parsed once and kept.
  static absl::Mutex mu(absl::kConstInit);
  static auto* others = new absl::node_hash_map<std::string, std::vector<Parameter>>;
  absl::MutexLock lock(&mu);
  auto it = others->find(f.signature);
  if (it == others->end()) it = others->emplace(f.signature, Parse(f)).first;
  return it->second;
}

Result Run(const Function& f, absl::Span<const Arg> args, Handle out, bool in_place) {
  const std::vector<Parameter>& params = Parameters(f);
  if (args.size() > params.size()) {
    Fail("%s: expects at most %d argument(s), given %d", f.name, params.size(), args.size());
  }
  if (!out.is_null() && !f.writes_output) Fail("%s: has no output form", f.name);
  if (in_place && f.in_place == nullptr) Fail("%s: has no in-place form", f.name);
  if (!in_place) {
    if (std::optional<Result> direct = RunDirectForm(f, args, out)) return *std::move(direct);
  }
  Call call(f.name, params.size());
  const bool from_vector = SpreadVectors(params, args, &call);

  // Check every argument and fill the slots of those that are not tensors; collect the tensor
  // operands (read where they are, not copied) to resolve under one lock.
  absl::InlinedVector<const Operand*, 4> operands;
  absl::InlinedVector<std::size_t, 4> operand_slot;  // the parameter each operand belongs to
  bool from_vector_handle = false;                   // a T argument given as one vector handle
  for (std::size_t i = 0; i < params.size(); ++i) {
    Call::Slot& slot = call.slot(i);
    if (!std::holds_alternative<std::monostate>(slot)) continue;  // spread from a vector
    const Arg& a = ArgAt(args, i);
    const char kind = params[i].kind;
    if (std::holds_alternative<std::monostate>(a)) {
      if (!params[i].optional) Fail("%s: arg[%d] (%s) is required", f.name, i, KindName(kind));
      continue;
    }
    switch (kind) {
      case 'n':
        if (auto s = AsScalar(a)) {
          // A number is a 0-dim tensor in its own type (Operand's rule).
          slot = at::scalar_tensor(*s, at::TensorOptions().dtype(s->type()));
          continue;
        }
        [[fallthrough]];
      case 't':
        if (!std::holds_alternative<Operand>(a)) Mismatch(f, i, kind);
        operands.push_back(&std::get<Operand>(a));
        operand_slot.push_back(i);
        break;
      case 'T':
        if (const auto* list = std::get_if<std::vector<Operand>>(&a)) {
          slot.emplace<std::vector<at::Tensor>>().reserve(list->size());
          for (const Operand& o : *list) {
            operands.push_back(&o);
            operand_slot.push_back(i);
          }
        } else if (const auto* one = std::get_if<Operand>(&a); one != nullptr && one->is_handle()) {
          std::optional<TensorVector> tensors = VectorTensors(one->handle());
          if (!tensors) Mismatch(f, i, kind);
          slot = std::move(*tensors);
          from_vector_handle = true;
        } else {
          Mismatch(f, i, kind);
        }
        break;
      default: FillValue(f, i, kind, a, &slot); break;
    }
  }

  Resolved resolved = Resolve(f.name, absl::MakeConstSpan(operands));
  const bool any_handle = resolved.any_handle || from_vector_handle || from_vector;
  for (std::size_t j = 0; j < operands.size(); ++j) {
    Call::Slot& slot = call.slot(operand_slot[j]);
    if (auto* list = std::get_if<std::vector<at::Tensor>>(&slot)) {
      list->push_back(std::move(resolved.tensors[j]));
    } else {
      slot = std::move(resolved.tensors[j]);
    }
  }

  if (in_place) {
    const auto* first = params.empty() ? nullptr : std::get_if<Operand>(&ArgAt(args, 0));
    if (first == nullptr || !first->is_handle()) {
      Fail("%s: in-place form needs a tensor pointer as first argument", f.name);
    }
    f.in_place(call);
    return Result();
  }
  const bool as_handle = AsHandle(f, any_handle);
  Output result = f.kernel(call);
  if (auto* one = std::get_if<at::Tensor>(&result))
    return Emit(f.name, std::move(*one), as_handle, out);
  auto& several = std::get<std::vector<at::Tensor>>(result);
  if (!out.is_null()) {
    WriteVector(f.name, out, std::move(several));
    return Result();
  }
  return EmitVector(f.name, std::move(several), as_handle);
}

Result RunDirect(const Function& f, Handle x) {
  if (f.unary == nullptr) Fail("%s: has no one-tensor direct form", f.name);
  OperandTensor t;
  TensorsOf(f.name, {x}, &t);
  return Emit(f.name, f.unary(*t), AsHandle(f, true));
}

Result RunDirect(const Function& f, Handle x, Handle y) {
  if (f.binary == nullptr) Fail("%s: has no two-tensor direct form", f.name);
  OperandTensor t[2];
  TensorsOf(f.name, {x, y}, t);
  return Emit(f.name, f.binary(*t[0], *t[1]), AsHandle(f, true));
}

Result RunOperands(const Function& f, const Operand& x, Handle out) {
  if (f.unary == nullptr) return Run(f, {x}, out);
  if (!out.is_null() && !f.writes_output) Fail("%s: has no output form", f.name);
  if (!x.is_handle()) return Emit(f.name, f.unary(x.data()), AsHandle(f, false), out);  // no lookup
  OperandTensor t;
  const bool any_handle = ResolveInto(f.name, {&x}, &t);
  return Emit(f.name, f.unary(*t), AsHandle(f, any_handle), out);
}

Result RunOperands(const Function& f, const Operand& x, const Operand& y, Handle out) {
  if (f.binary == nullptr) return Run(f, {x, y}, out);
  if (!out.is_null() && !f.writes_output) Fail("%s: has no output form", f.name);
  if (!x.is_handle() && !y.is_handle())  // data only: nothing to look up
    return Emit(f.name, f.binary(x.data(), y.data()), AsHandle(f, false), out);
  OperandTensor t[2];
  const bool any_handle = ResolveInto(f.name, {&x, &y}, t);
  return Emit(f.name, f.binary(*t[0], *t[1]), AsHandle(f, any_handle), out);
}

Result Run(const std::string& name, absl::Span<const Arg> args, Handle out, bool in_place) {
  if (const Function* f = Find(name)) return Run(*f, args, out, in_place);
  Fail("math: unknown function `%s", name);
}

}  // namespace kscope::math
