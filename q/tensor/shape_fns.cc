// Adapters for reshaping and joining, with ktorch's names and argument forms (View reshape
// expand transpose permute squeeze unsqueeze cat stack narrow index): k arrays in -> k arrays
// out, a pointer in -> a pointer out, a trailing in-place flag (transpose squeeze unsqueeze,
// pointers only) -> null. k data is read in place (InputAt); results that are views are
// converted back to k at once. A general list that matches none of a function's forms and does
// not start with a pointer is the input itself (a k matrix: transpose(1 2;3 4)).
#include <optional>
#include <vector>

#include "api/tensor/shape.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/convert/math_args.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// f(x;sizes) forms: View permute
template <Result (*Op)(const Operand&, const Shape&)>
K WithSizes(const char* fn, K x) {
  return Guard([&] {
    const Args a(fn, x);
    if (a.size() != 2) a.Unrecognized();
    return KFromResult(Op(a.InputAt(0), a.LongsAt(1)));
  });
}
K View_(K x) { return WithSizes<kscope::view>("View", x); }
K permute_(K x) { return WithSizes<kscope::permute>("permute", x); }

// f(x;sizes) | f(x;exampleTensor): reshape expand
template <Result (*Op)(const Operand&, const Shape&),
          Result (*OpAs)(const Operand&, const Operand&)>
K WithSizesOrExample(const char* fn, K x) {
  return Guard([&] {
    const Args a(fn, x);
    if (a.size() != 2) a.Unrecognized();
    if (a.IsPointerAt(1)) {
      std::vector<Operand> inputs{a.InputAt(0), a.InputAt(1)};
      OwnDataBesideHandles(&inputs);  // the result, a handle, may view the data
      return KFromResult(OpAs(inputs[0], inputs[1]));
    }
    return KFromResult(Op(a.InputAt(0), a.LongsAt(1)));
  });
}
K reshape_(K x) { return WithSizesOrExample<kscope::reshape, kscope::reshape_as>("reshape", x); }
K expand_(K x) { return WithSizesOrExample<kscope::expand, kscope::expand_as>("expand", x); }

bool IsLongAt(const Args& a, std::size_t i) { return i < a.size() && a[i]->t == -kabi::kLong; }
bool IsBoolAt(const Args& a, std::size_t i) { return i < a.size() && a[i]->t == -kabi::kBoolean; }

// A call's input and its trailing arguments: `rest` are the items after the input, or none when
// the whole argument is the input (see the header comment; `matches` says whether the items
// after the first fit one of the function's forms).
struct Input {
  Operand operand;
  std::size_t rest;  // the number of arguments after the input
};
Input InputOf(const Args& a, K x, bool matches) {
  if (IsWholeInput(x) || (!matches && !a.IsPointerAt(0))) return {InputFromK(a.fn(), x), 0};
  if (!matches) a.Unrecognized();
  return {a.InputAt(0), a.size() - 1};
}

// The in-place forms need a pointer: its handle.
Handle InPlaceTarget(const Args& a, const Operand& in) {
  if (!in.is_handle())
    Fail("%s: in-place form expects a tensor pointer, given %s", a.fn(), KName(a[0]));
  return in.handle();
}

// transpose x | (x;inplace) | (x;d1;d2) | (x;d1;d2;inplace)
K transpose_(K x) {
  return Guard([&] {
    const Args a("transpose", x);
    const std::size_t n = a.size();
    const bool dims = n >= 3 && IsLongAt(a, 1) && IsLongAt(a, 2);
    const Input in = InputOf(
        a, x, (n == 2 && IsBoolAt(a, 1)) || (dims && (n == 3 || (n == 4 && IsBoolAt(a, 3)))));
    const bool inplace = in.rest % 2 == 1 && a.BoolAt(in.rest);
    const std::int64_t d1 = in.rest >= 2 ? a.LongAt(1) : 0, d2 = in.rest >= 2 ? a.LongAt(2) : 1;
    if (!inplace) return KFromResult(transpose(in.operand, d1, d2));
    kscope::transpose_(InPlaceTarget(a, in.operand), d1, d2);
    return K{nullptr};
  });
}

// squeeze x | (x;dim) | (x;inplace) | (x;dim;inplace)
K squeeze_(K x) {
  return Guard([&] {
    const Args a("squeeze", x);
    const std::size_t n = a.size();
    const Input in = InputOf(a, x,
                             (n == 2 && (IsBoolAt(a, 1) || IsLongAt(a, 1))) ||
                                 (n == 3 && IsLongAt(a, 1) && IsBoolAt(a, 2)));
    const bool inplace = in.rest > 0 && IsBoolAt(a, in.rest) && a.BoolAt(in.rest);
    const std::optional<std::int64_t> dim =
        in.rest > 0 && IsLongAt(a, 1) ? std::optional(a.LongAt(1)) : std::nullopt;
    if (!inplace) return KFromResult(squeeze(in.operand, dim));
    kscope::squeeze_(InPlaceTarget(a, in.operand), dim);
    return K{nullptr};
  });
}

// unsqueeze(x;dim) | (x;dim;inplace)
K unsqueeze_(K x) {
  return Guard([&] {
    const Args a("unsqueeze", x);
    if (a.size() != 2 && a.size() != 3) a.Unrecognized();
    const Operand in = a.InputAt(0);
    if (a.size() == 2 || !a.BoolAt(2)) return KFromResult(unsqueeze(in, a.LongAt(1)));
    kscope::unsqueeze_(InPlaceTarget(a, in), a.LongAt(1));
    return K{nullptr};
  });
}

// cat/stack: f v | f(v;dim[;out]) | f((x;y;..);dim[;out]) | f(x;y;..)
template <Result (*Op)(const std::vector<Operand>&, std::int64_t, Handle)>
K Join(const char* fn, K x) {
  return Guard([&] {
    const Args a(fn, x);
    if (IsPointer(x)) return KFromResult(Op({Operand(HandleOf(x))}, 0, Handle()));
    const bool with_dim =
        a.size() >= 2 && a[1]->t == -kabi::kLong && (a.IsPointerAt(0) || a[0]->t == kabi::kMixed);
    if (!with_dim) {
      std::vector<Operand> items;
      for (std::size_t i = 0; i < a.size(); ++i) items.push_back(a.InputAt(i));
      return KFromResult(Op(items, 0, Handle()));
    }
    std::vector<Operand> items;
    if (a.IsPointerAt(0)) {
      items.push_back(a.InputAt(0));
    } else {
      for (long long i = 0; i < a[0]->n; ++i) items.push_back(InputFromK(fn, kabi::Items(a[0])[i]));
    }
    return KFromResult(Op(items, a.LongAt(1), OutputAt(a, 2)));
  });
}
K cat_(K x) { return Join<kscope::cat>("cat", x); }
K stack_(K x) { return Join<kscope::stack>("stack", x); }

K narrow_(K x) {
  return Guard([&] {
    const Args a("narrow", x);
    if (a.size() != 4) a.Unrecognized();
    return KFromResult(narrow(a.InputAt(0), a.LongAt(1), a.LongAt(2), a.LongAt(3)));
  });
}

// index(x;dim;i): select with a long atom, index_select with a list of indices.
K index_(K x) {
  return Guard([&] {
    const Args a("index", x);
    if (a.size() != 3) a.Unrecognized();
    if (a[2]->t == -kabi::kLong) return KFromResult(select(a.InputAt(0), a.LongAt(1), a.LongAt(2)));
    std::vector<Operand> inputs{a.InputAt(0), a.InputAt(2)};
    OwnDataBesideHandles(&inputs);  // index_select's graph keeps the indices for backward
    return KFromResult(index(inputs[0], a.LongAt(1), inputs[1]));
  });
}

}  // namespace

std::vector<Export> ShapeExports() {
  return {Unary("View", View_),           Unary("reshape", reshape_), Unary("expand", expand_),
          Unary("transpose", transpose_), Unary("permute", permute_), Unary("squeeze", squeeze_),
          Unary("unsqueeze", unsqueeze_), Unary("cat", cat_),         Unary("stack", stack_),
          Unary("narrow", narrow_),       Unary("index", index_)};
}

}  // namespace kscope::q
