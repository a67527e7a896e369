#include "api/math/math_catalogue.h"

#include <ATen/ops/scalar_tensor.h>
#include <c10/core/GradMode.h>

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

// A vector handle of several tensors given for a tensor parameter whose following tensor
// parameters are not given fills them with its tensors in order (lun(lu x), lusolve(b;lu x)).
// True if any did.
bool SpreadVectors(const std::vector<Parameter>& params, std::vector<Arg>* args) {
  bool spread = false;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto* given = std::get_if<Operand>(&(*args)[i]);
    if (params[i].kind != 't' || given == nullptr || !given->is_handle()) continue;
    // Only a handle followed by an unfilled tensor parameter can be a vector to spread: the
    // common call pays no table lookup here.
    if (i + 1 >= params.size() || params[i + 1].kind != 't' ||
        !std::holds_alternative<std::monostate>((*args)[i + 1])) {
      continue;
    }
    std::optional<TensorVector> tensors = VectorTensors(given->handle());
    if (!tensors) continue;
    const std::size_t n = tensors->size();
    bool fits = n > 1 && i + n <= params.size();
    for (std::size_t j = i + 1; fits && j < i + n; ++j) {
      fits = params[j].kind == 't' && std::holds_alternative<std::monostate>((*args)[j]);
    }
    if (!fits) continue;  // left for the type check to report
    for (std::size_t j = 0; j < n; ++j) (*args)[i + j] = Operand((*tensors)[j]);
    spread = true;
    i += n - 1;
  }
  return spread;
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

bool Call::has(std::size_t i) const {
  return i < slots_.size() && !std::holds_alternative<std::monostate>(slots_[i]);
}

const Call::Slot& Call::At(std::size_t i, const char* what) const {
  if (!has(i)) Fail("%s: arg[%d] (%s) is required", fn_, i, what);
  return slots_[i];
}

const at::Tensor& Call::tensor(std::size_t i) const {
  return std::get<at::Tensor>(At(i, "tensor"));
}

const std::vector<at::Tensor>& Call::tensors(std::size_t i) const {
  return std::get<std::vector<at::Tensor>>(At(i, "tensors"));
}

c10::Scalar Call::scalar(std::size_t i) const { return std::get<c10::Scalar>(At(i, "scalar")); }

AtOptional<c10::Scalar> Call::optional_scalar(std::size_t i) const {
  if (!has(i)) return {};
  return scalar(i);
}

std::int64_t Call::integer(std::size_t i) const { return std::get<std::int64_t>(At(i, "long")); }

std::int64_t Call::integer(std::size_t i, std::int64_t fallback) const {
  return has(i) ? integer(i) : fallback;
}

AtOptional<std::int64_t> Call::optional_integer(std::size_t i) const {
  if (!has(i)) return {};
  return integer(i);
}

std::vector<std::int64_t> Call::integers(std::size_t i) const {
  return std::get<std::vector<std::int64_t>>(At(i, "longs"));
}

std::vector<std::int64_t> Call::integers(std::size_t i, std::vector<std::int64_t> fallback) const {
  return has(i) ? integers(i) : fallback;
}

bool Call::flag(std::size_t i, bool fallback) const {
  return has(i) ? std::get<bool>(slots_[i]) : fallback;
}

double Call::real(std::size_t i) const { return std::get<double>(At(i, "double")); }

double Call::real(std::size_t i, double fallback) const { return has(i) ? real(i) : fallback; }

AtOptional<double> Call::optional_real(std::size_t i) const {
  if (!has(i)) return {};
  return real(i);
}

std::string Call::symbol(std::size_t i, std::string fallback) const {
  return has(i) ? std::get<std::string>(slots_[i]) : fallback;
}

AtOptional<c10::ScalarType> Call::dtype(std::size_t i) const {
  if (!has(i)) return {};
  const std::string& name = std::get<std::string>(slots_[i]);
  return *DtypeFromName(name);  // checked when the call was built
}

at::TensorOptions Call::options(std::size_t i) const {
  return has(i) ? std::get<at::TensorOptions>(slots_[i]) : at::TensorOptions();
}

absl::Span<const Function> Functions() { return TheCatalogue().functions; }

const Function* Find(const std::string& name) {
  const Catalogue& c = TheCatalogue();
  auto it = c.index.find(name);
  return it == c.index.end() ? nullptr : &c.functions[it->second];
}

const std::vector<Parameter>& Parameters(const Function& f) {
  const Catalogue& c = TheCatalogue();
  if (auto it = c.index.find(f.name); it != c.index.end() && &c.functions[it->second] == &f) {
    return c.parameters[it->second];
  }
  // A function outside the catalogue: its signature parsed once and kept.
  static absl::Mutex mu(absl::kConstInit);
  static auto* others = new absl::node_hash_map<std::string, std::vector<Parameter>>;
  absl::MutexLock lock(&mu);
  auto it = others->find(f.signature);
  if (it == others->end()) it = others->emplace(f.signature, Parse(f)).first;
  return it->second;
}

Result Run(const Function& f, std::vector<Arg> args, Handle out, bool in_place) {
  const std::vector<Parameter>& params = Parameters(f);
  if (args.size() > params.size()) {
    Fail("%s: expects at most %d argument(s), given %d", f.name, params.size(), args.size());
  }
  if (!out.is_null() && !f.writes_output) Fail("%s: has no output form", f.name);
  if (in_place && f.in_place == nullptr) Fail("%s: has no in-place form", f.name);
  args.resize(params.size());
  const bool from_vector = SpreadVectors(params, &args);

  // Check every argument, and collect the tensor operands to resolve under one lock.
  std::vector<Operand> operands;
  std::vector<std::size_t> operand_slot;   // the parameter each operand belongs to
  std::optional<std::size_t> vector_slot;  // a T argument given as one vector handle
  TensorVector vector_tensors;
  for (std::size_t i = 0; i < params.size(); ++i) {
    Arg& a = args[i];
    const char kind = params[i].kind;
    if (std::holds_alternative<std::monostate>(a)) {
      if (!params[i].optional) Fail("%s: arg[%d] (%s) is required", f.name, i, KindName(kind));
      continue;
    }
    switch (kind) {
      case 'n':
        if (auto s = AsScalar(a)) {
          operands.emplace_back(*s);
          operand_slot.push_back(i);
          continue;
        }
        [[fallthrough]];
      case 't':
        if (!std::holds_alternative<Operand>(a)) Mismatch(f, i, kind);
        operands.push_back(std::get<Operand>(a));
        operand_slot.push_back(i);
        break;
      case 'T':
        if (const auto* list = std::get_if<std::vector<Operand>>(&a)) {
          for (const Operand& o : *list) {
            operands.push_back(o);
            operand_slot.push_back(i);
          }
        } else if (const auto* one = std::get_if<Operand>(&a); one != nullptr && one->is_handle()) {
          std::optional<TensorVector> tensors = VectorTensors(one->handle());
          if (!tensors) Mismatch(f, i, kind);
          vector_tensors = std::move(*tensors);
          vector_slot = i;
        } else {
          Mismatch(f, i, kind);
        }
        break;
      case 's':
        if (auto s = AsScalar(a)) {
          a = *s;
        } else {
          Mismatch(f, i, kind);
        }
        break;
      case 'l':
        if (!std::holds_alternative<std::int64_t>(a)) Mismatch(f, i, kind);
        break;
      case 'L':
        if (const auto* l = std::get_if<std::int64_t>(&a)) {
          a = std::vector<std::int64_t>{*l};
        } else if (!std::holds_alternative<std::vector<std::int64_t>>(a)) {
          Mismatch(f, i, kind);
        }
        break;
      case 'b':
        if (!std::holds_alternative<bool>(a)) Mismatch(f, i, kind);
        break;
      case 'f':
        if (const auto* l = std::get_if<std::int64_t>(&a)) {
          a = static_cast<double>(*l);
        } else if (!std::holds_alternative<double>(a)) {
          Mismatch(f, i, kind);
        }
        break;
      case 'y':
        if (!std::holds_alternative<std::string>(a)) Mismatch(f, i, kind);
        break;
      case 'd': {
        const auto* name = std::get_if<std::string>(&a);
        if (name == nullptr) Mismatch(f, i, kind);
        if (!DtypeFromName(*name)) Fail("%s: unrecognized dtype `%s", f.name, *name);
        break;
      }
      default:
        if (!std::holds_alternative<std::vector<std::string>>(a)) Mismatch(f, i, kind);
        break;
    }
  }

  const Resolved resolved = Resolve(f.name, absl::MakeConstSpan(operands));
  const bool any_handle = resolved.any_handle || vector_slot.has_value() || from_vector;
  std::vector<Call::Slot> slots(params.size());
  if (vector_slot) slots[*vector_slot] = std::move(vector_tensors);
  for (std::size_t j = 0; j < operands.size(); ++j) {
    const std::size_t i = operand_slot[j];
    if (params[i].kind == 'T') {
      if (!std::holds_alternative<std::vector<at::Tensor>>(slots[i]))
        slots[i] = std::vector<at::Tensor>{};
      std::get<std::vector<at::Tensor>>(slots[i]).push_back(resolved.tensors[j]);
    } else {
      slots[i] = resolved.tensors[j];
    }
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (!std::holds_alternative<std::monostate>(slots[i])) continue;
    if (params[i].kind == 'T' && !std::holds_alternative<std::monostate>(args[i])) {
      slots[i] = std::vector<at::Tensor>{};  // an empty list of tensors
      continue;
    }
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, std::vector<std::string>>) {
            slots[i] = TensorOptionsFrom(f.name, v);
          } else if constexpr (!std::is_same_v<V, Operand> &&
                               !std::is_same_v<V, std::vector<Operand>>) {
            slots[i] = v;
          }
        },
        args[i]);
  }
  const Call call(f.name, std::move(slots));

  if (in_place) {
    const auto* first = params.empty() ? nullptr : std::get_if<Operand>(&args[0]);
    if (first == nullptr || !first->is_handle()) {
      Fail("%s: in-place form needs a tensor pointer as first argument", f.name);
    }
    f.in_place(call);
    return Result();
  }
  const bool as_handle =
      f.returns == Returns::kHandle || (f.returns == Returns::kLikeInputs && any_handle);
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

Result Run(const std::string& name, std::vector<Arg> args, Handle out, bool in_place) {
  const Function* f = Find(name);
  if (f == nullptr) Fail("math: unknown function `%s", name);
  return Run(*f, std::move(args), out, in_place);
}

}  // namespace kscope::math
