// The math catalogue's q adapter: every function of api/math/math_catalogue.h exported under its
// ktorch name, its k arguments read by one parser that follows the function's signature.
//
// Forms: `f x` (a pointer or k array: the one argument) or `f(a;b;...)`, one item per
// parameter in order. Required parameters take the next item; an optional one takes it when
// it fits its kind (else it is left at its default and the item is offered to the next
// parameter), and `::` in its place leaves it at its default. A function whose one parameter
// is a list of tensors takes every item as one (`multidot(a;b;c)`), or a vector pointer and
// an optional output (`multidot(v;out)`). After the parameters, one
// trailing pointer is the output (written, `::` returned); a trailing `::` asks for the
// in-place form. A general list of k data that makes a rectangular array (a matrix,
// `Abs(1 2;3 4)`) is the one tensor of a function with a single required tensor parameter;
// otherwise it is an argument list (`amin((1 5 3;4 2 6);0 1)`). k data is read in
// place unless a pointer is among the items (then copied, as the result's graph may keep it).
// `f p`, `f(p;q)` and `f(x;y)` on two k arrays, on a function with a direct form, skip the parse
// (math::RunDirect, math::RunOperands).
#include <array>
#include <optional>
#include <utility>

#include "api/core/pointer.h"
#include "api/math/math_catalogue.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

bool IsNumberAtom(K x) {
  switch (x->t) {
    case -kabi::kBoolean:
    case -kabi::kByte:
    case -kabi::kShort:
    case -kabi::kInt:
    case -kabi::kLong:
    case -kabi::kReal:
    case -kabi::kFloat: return true;
    default: return false;
  }
}

bool IsIntegerAtom(K x) {
  return x->t == -kabi::kLong || x->t == -kabi::kInt || x->t == -kabi::kShort;
}

// A tensor item: a pointer, or k data that is not an atom of another kind.
bool IsTensorItem(K x) { return IsPointer(x) || (x->t >= 0 && x->t < 20) || IsNumberAtom(x); }

// Whether item x fits a parameter of `kind` (used to place optional arguments).
bool Fits(char kind, K x) {
  switch (kind) {
    case 't': return IsPointer(x) || (x->t >= 0 && x->t < 20 && x->t != kabi::kSymbol);
    case 'n': return IsTensorItem(x) && x->t != kabi::kSymbol;
    case 'T': return IsPointer(x) || x->t == kabi::kMixed;
    case 's': return IsNumberAtom(x);
    case 'l': return IsIntegerAtom(x);
    case 'L': return IsIntegerAtom(x) || x->t == kabi::kLong || x->t == kabi::kInt;
    case 'b': return x->t == -kabi::kBoolean;
    case 'f': return x->t == -kabi::kFloat || x->t == -kabi::kReal || IsIntegerAtom(x);
    case 'y':
    case 'd': return x->t == -kabi::kSymbol;
    default: return x->t == -kabi::kSymbol || x->t == kabi::kSymbol;  // o
  }
}

struct Parsed {
  math::ArgList args;
  Handle out;
  bool in_place = false;
};

class Parser {
 public:
  Parser(const math::Function& f, const std::vector<math::Parameter>& params, const Args& a)
      : f_(f), params_(params), a_(a) {
    for (std::size_t i = 0; i < a.size(); ++i) copy_ = copy_ || a.IsPointerAt(i);
  }

  Parsed Parse() const {
    Parsed p;
    std::size_t end = a_.size();
    if (f_.in_place != nullptr && end > 1 && IsNull(a_[end - 1])) {
      p.in_place = true;
      --end;
    }
    if (params_.size() == 1 && params_[0].kind == 'T' && end > 1 &&
        !IsPointerTo(a_[0], ObjectClass::kVector)) {
      // f(x;y;z): every item is one of the tensors.
      std::vector<Operand> items;
      for (std::size_t i = 0; i < end; ++i) items.push_back(TensorAt(i));
      p.args.emplace_back(std::move(items));
      return p;
    }
    std::size_t next = 0;
    for (const math::Parameter& param : params_) {
      if (next < end && param.optional && IsNull(a_[next])) {
        p.args.emplace_back(std::monostate());
        ++next;
        continue;
      }
      if (next >= end || (param.optional && !Fits(param.kind, a_[next]))) {
        p.args.emplace_back(std::monostate());  // a required one: math::Run reports it
        continue;
      }
      p.args.push_back(Item(param.kind, next++));
    }
    if (next + 1 == end && a_.IsPointerAt(next)) {
      p.out = a_.PointerAt(next);
    } else if (next != end) {
      a_.Unrecognized();
    }
    return p;
  }

 private:
  Operand TensorAt(std::size_t i) const { return copy_ ? a_.OperandAt(i) : a_.InputAt(i); }

  // One item holding several tensors: a vector pointer, or a general list of pointers and k
  // arrays.
  math::Arg Tensors(std::size_t i) const {
    if (a_.IsPointerAt(i)) return a_.PointerAt(i);
    K list = a_[i];
    if (list->t != kabi::kMixed)
      Fail("%s: arg[%d] expected a vector or a list of tensors, given %s", f_.name, i, KName(list));
    std::vector<Operand> items;
    bool copy = copy_;
    for (long long j = 0; j < list->n; ++j) copy = copy || IsPointer(kabi::Items(list)[j]);
    for (long long j = 0; j < list->n; ++j) {
      K item = kabi::Items(list)[j];
      items.push_back(copy ? OperandFromK(f_.name, item) : InputFromK(f_.name, item));
    }
    return items;
  }

  math::Arg Item(char kind, std::size_t i) const {
    K x = a_[i];
    switch (kind) {
      case 'n':
        if (IsNumberAtom(x)) return a_.ScalarAt(i);
        return TensorAt(i);
      case 't': return TensorAt(i);
      case 'T': return Tensors(i);
      case 's': return a_.ScalarAt(i);
      case 'l': return a_.LongAt(i);
      case 'L': return a_.LongsAt(i);
      case 'b': return a_.BoolAt(i);
      case 'f':
        if (IsIntegerAtom(x)) return static_cast<double>(a_.LongAt(i));
        if (x->t == -kabi::kReal) return static_cast<double>(x->e);
        if (x->t != -kabi::kFloat)
          Fail("%s: arg[%d] expected double, given %s", f_.name, i, KName(x));
        return x->f;
      case 'y':
      case 'd': return a_.SymbolAt(i);
      default: return a_.SymbolsAt(i);
    }
  }

  const math::Function& f_;
  const std::vector<math::Parameter>& params_;
  const Args& a_;
  bool copy_ = false;
};

// A function whose only required parameter is one tensor can take a matrix given as a
// general list (`Abs(1 2;3 4)`) as that tensor.
bool TakesOneTensor(const std::vector<math::Parameter>& params) {
  std::size_t required = 0;
  for (const auto& p : params) required += p.optional ? 0 : 1;
  return required == 1 && (params[0].kind == 't' || params[0].kind == 'n');
}

bool IsDataList(K x) {
  if (x->t != kabi::kMixed || IsPointer(x)) return false;
  for (long long i = 0; i < x->n; ++i) {
    K item = kabi::Items(x)[i];
    if (IsPointer(item) || IsNull(item) || item->t < 0 || item->t >= 20 ||
        item->t == kabi::kSymbol) {
      return false;
    }
  }
  return x->n > 0;
}

bool IsPointerPair(K x) {
  return x != nullptr && x->t == kabi::kMixed && x->n == 2 && IsPointer(kabi::Items(x)[0]) &&
         IsPointer(kabi::Items(x)[1]);
}

// k data the parse reads as one tensor argument: a list of a basic type or a general list that
// is not a pointer (its nesting checked by the conversion). Not an atom: a number atom is a
// Scalar where the parameter takes one.
bool IsArray(K x) { return !IsPointer(x) && Fits('t', x); }

bool IsArrayPair(K x) {
  return x != nullptr && x->t == kabi::kMixed && x->n == 2 && IsArray(kabi::Items(x)[0]) &&
         IsArray(kabi::Items(x)[1]);
}

K RunFunction(const math::Function& f, K x) {
  return Guard([&] {
    // f p, f(p;q) and f(x;y) on two k arrays, on a function with a direct form, go straight to
    // it: the parse below would give the same arguments (a direct form's first parameters are
    // tensors, the two of a binary one both required), read in the same order.
    if (f.unary != nullptr && IsPointer(x)) return KFromResult(math::RunDirect(f, HandleOf(x)));
    if (f.binary != nullptr && IsPointerPair(x)) {
      return KFromResult(
          math::RunDirect(f, HandleOf(kabi::Items(x)[0]), HandleOf(kabi::Items(x)[1])));
    }
    if (f.binary != nullptr && IsArrayPair(x)) {
      const Operand first = InputFromK(f.name, kabi::Items(x)[0]);
      const Operand second = InputFromK(f.name, kabi::Items(x)[1]);
      return KFromResult(math::RunOperands(f, first, second, Handle()));
    }
    const Args a(f.name, x);
    const std::vector<math::Parameter>& params = math::Parameters(f);
    if (TakesOneTensor(params) && IsDataList(x)) {
      std::optional<at::Tensor> whole;
      try {
        whole = TensorViewOfK(f.name, x);
      } catch (const Error&) {
        // Not rectangular: an argument list, as amin((1 5 3;4 2 6);0 1).
      }
      if (whole) return KFromResult(math::Run(f, {Operand(*whole)}));
    }
    const Parsed p = Parser(f, params, a).Parse();
    return KFromResult(math::Run(f, p.args, p.out, p.in_place));
  });
}

// One exported C function per catalogue entry: dl needs a distinct pointer for each name.
constexpr std::size_t kMaxFunctions = 256;

template <std::size_t I>
K Entry(K x) {
  static const math::Function& f = math::Functions()[I];
  return RunFunction(f, x);
}

template <std::size_t... I>
constexpr std::array<K (*)(K), sizeof...(I)> EntryTable(std::index_sequence<I...>) {
  return {&Entry<I>...};
}

}  // namespace

std::vector<Export> MathCatalogueExports() {
  static constexpr auto entries = EntryTable(std::make_index_sequence<kMaxFunctions>());
  const auto functions = math::Functions();
  if (functions.size() > kMaxFunctions)
    Fail("math: catalogue has more than %d functions", kMaxFunctions);
  std::vector<Export> exports;
  for (std::size_t i = 0; i < functions.size(); ++i)
    exports.push_back(Unary(functions[i].name, entries[i]));
  return exports;
}

}  // namespace kscope::q
