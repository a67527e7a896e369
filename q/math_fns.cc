// Adapters for math and reshaping, with ktorch's names (q keywords capitalised: Div Neg Abs
// Exp Log Sqrt Sum Max Min View) and argument forms: k arrays in -> k arrays out, a pointer in
// -> a pointer out, a trailing output pointer -> written there and `::` returned. k data is
// read in place (InputAt): results are new tensors, or views converted back to k at once; beside
// a pointer it is copied (OwnDataBesideHandles), as the result's graph may keep it.
#include "api/math.h"
#include "api/shape.h"
#include "q/args.h"
#include "q/convert.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// The output pointer after `inputs` arguments, if one is given.
Handle OutAt(const Args& a, std::size_t inputs) {
  if (a.size() == inputs) return Handle();
  if (a.size() == inputs + 1 && a.IsPointerAt(inputs)) return a.PointerAt(inputs);
  a.Unrecognized();
}

using BinaryOp = Result (*)(const Operand&, const Operand&, Handle);
using UnaryOp = Result (*)(const Operand&, Handle);

K Binary(const char* fn, BinaryOp op, K x) {
  return Guard([&] {
    const Args a(fn, x);
    if (a.size() < 2) a.Unrecognized();
    std::vector<Operand> inputs{a.InputAt(0), a.InputAt(1)};
    OwnDataBesideHandles(&inputs);
    return KFromResult(op(inputs[0], inputs[1], OutAt(a, 2)));
  });
}

K Unary(const char* fn, UnaryOp op, K x) {
  return Guard([&] {
    const Args a(fn, x);
    if (a.empty()) a.Unrecognized();
    if (IsPointer(x) || x->t != kabi::kMixed) return KFromResult(op(InputFromK(fn, x), Handle()));
    return KFromResult(op(a.InputAt(0), OutAt(a, 1)));
  });
}

// The single input of a reduction or reshape: the whole argument when it is a pointer or an
// array, else the first item.
Operand Input(const Args& a, K x) {
  if (a.empty()) a.Unrecognized();
  return IsPointer(x) || x->t != kabi::kMixed ? InputFromK(a.fn(), x) : a.InputAt(0);
}

bool Whole(K x) { return IsPointer(x) || x->t != kabi::kMixed; }

// mean/Sum: f x | f(x;dim) | f(x;dim;keepdim) | f(x;dim;keepdim;out)
using MeanLike = Result (*)(const Operand&, std::optional<std::int64_t>, bool, Handle);
K Reduction(const char* fn, MeanLike op, K x) {
  return Guard([&] {
    const Args a(fn, x);
    const Operand in = Input(a, x);
    if (Whole(x) || a.size() == 1) return KFromResult(op(in, std::nullopt, false, Handle()));
    const bool keepdim = a.size() > 2 && a.BoolAt(2);
    return KFromResult(op(in, a.LongAt(1), keepdim, a.size() > 3 ? OutAt(a, 3) : Handle()));
  });
}

// std/variance: f x | f(x;unbiased) | f(x;dim;unbiased) | f(x;dim;unbiased;keepdim)
using StdLike = Result (*)(const Operand&, std::optional<std::int64_t>, bool, bool, Handle);
K Spread(const char* fn, StdLike op, K x) {
  return Guard([&] {
    const Args a(fn, x);
    const Operand in = Input(a, x);
    if (Whole(x) || a.size() == 1) return KFromResult(op(in, std::nullopt, true, false, Handle()));
    if (a.size() == 2 && a[1]->t == -kabi::kBoolean) return KFromResult(op(in, std::nullopt, a.BoolAt(1), false, Handle()));
    const bool unbiased = a.size() > 2 ? a.BoolAt(2) : true;
    const bool keepdim = a.size() > 3 ? a.BoolAt(3) : false;
    return KFromResult(op(in, a.LongAt(1), unbiased, keepdim, Handle()));
  });
}

// Max/Min: f x -> the extreme element; f(x;dim[;keepdim]) -> (values;indices)
using WholeExtreme = Result (*)(const Operand&, Handle);
using DimExtreme = Result (*)(const Operand&, std::int64_t, bool);
K Extreme(const char* fn, WholeExtreme all, DimExtreme along, K x) {
  return Guard([&] {
    const Args a(fn, x);
    const Operand in = Input(a, x);
    if (Whole(x) || a.size() == 1) return KFromResult(all(in, Handle()));
    return KFromResult(along(in, a.LongAt(1), a.size() > 2 && a.BoolAt(2)));
  });
}

#define KSCOPE_Q_BINARY(fn, op) \
  K fn##_(K x) { return Binary(#fn, kscope::op, x); }
KSCOPE_Q_BINARY(add, add)
KSCOPE_Q_BINARY(sub, sub)
KSCOPE_Q_BINARY(mul, mul)
KSCOPE_Q_BINARY(Div, div)
KSCOPE_Q_BINARY(pow, pow)
KSCOPE_Q_BINARY(matmul, matmul)
KSCOPE_Q_BINARY(mm, mm)
#undef KSCOPE_Q_BINARY

#define KSCOPE_Q_UNARY(fn, op) \
  K fn##_(K x) { return Unary(#fn, kscope::op, x); }
KSCOPE_Q_UNARY(Neg, neg)
KSCOPE_Q_UNARY(Abs, abs)
KSCOPE_Q_UNARY(Exp, exp)
KSCOPE_Q_UNARY(Log, log)
KSCOPE_Q_UNARY(Sqrt, sqrt)
#undef KSCOPE_Q_UNARY

K mean_(K x) { return Reduction("mean", kscope::mean, x); }
K Sum_(K x) { return Reduction("Sum", kscope::sum, x); }
K std_(K x) { return Spread("std", kscope::std_, x); }
K variance_(K x) { return Spread("variance", kscope::var, x); }
K Max_(K x) { return Extreme("Max", kscope::max, kscope::max, x); }
K Min_(K x) { return Extreme("Min", kscope::min, kscope::min, x); }

K argmax_(K x) {
  return Guard([&] {
    const Args a("argmax", x);
    const Operand in = Input(a, x);
    if (Whole(x) || a.size() == 1) return KFromResult(argmax(in));
    return KFromResult(argmax(in, a.LongAt(1), a.size() > 2 && a.BoolAt(2)));
  });
}

// f(x;dim) forms: softmax logsoftmax unsqueeze
template <Result (*Op)(const Operand&, std::int64_t, Handle)>
K WithDim(const char* fn, K x) {
  return Guard([&] {
    const Args a(fn, x);
    if (a.size() < 2) a.Unrecognized();
    return KFromResult(Op(a.InputAt(0), a.LongAt(1), OutAt(a, 2)));
  });
}
K softmax_(K x) { return WithDim<kscope::softmax>("softmax", x); }
K logsoftmax_(K x) { return WithDim<kscope::logsoftmax>("logsoftmax", x); }

// f(x;sizes) forms: View reshape permute
template <Result (*Op)(const Operand&, const Shape&)>
K WithSizes(const char* fn, K x) {
  return Guard([&] {
    const Args a(fn, x);
    if (a.size() != 2) a.Unrecognized();
    return KFromResult(Op(a.InputAt(0), a.LongsAt(1)));
  });
}
K View_(K x) { return WithSizes<kscope::view>("View", x); }
K reshape_(K x) { return WithSizes<kscope::reshape>("reshape", x); }

K transpose_(K x) {
  return Guard([&] {
    const Args a("transpose", x);
    const Operand in = Input(a, x);
    if (Whole(x) || a.size() == 1) return KFromResult(transpose(in));
    if (a.size() != 3) a.Unrecognized();
    return KFromResult(transpose(in, a.LongAt(1), a.LongAt(2)));
  });
}

K permute_(K x) { return WithSizes<kscope::permute>("permute", x); }

K squeeze_(K x) {
  return Guard([&] {
    const Args a("squeeze", x);
    const Operand in = Input(a, x);
    if (Whole(x) || a.size() == 1) return KFromResult(squeeze(in));
    return KFromResult(squeeze(in, a.LongAt(1)));
  });
}

K unsqueeze_(K x) {
  return Guard([&] {
    const Args a("unsqueeze", x);
    if (a.size() != 2) a.Unrecognized();
    return KFromResult(unsqueeze(a.InputAt(0), a.LongAt(1)));
  });
}

// cat/stack: f v | f(v;dim[;out]) | f((x;y;..);dim[;out]) | f(x;y;..)
template <Result (*Op)(const std::vector<Operand>&, std::int64_t, Handle)>
K Join(const char* fn, K x) {
  return Guard([&] {
    const Args a(fn, x);
    if (IsPointer(x)) return KFromResult(Op({Operand(HandleOf(x))}, 0, Handle()));
    const bool with_dim = a.size() >= 2 && a[1]->t == -kabi::kLong &&
                          (a.IsPointerAt(0) || a[0]->t == kabi::kMixed);
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
    return KFromResult(Op(items, a.LongAt(1), OutAt(a, 2)));
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

std::vector<Export> MathExports() {
  return {Unary("add", add_),           Unary("sub", sub_),           Unary("mul", mul_),
          Unary("Div", Div_),           Unary("pow", pow_),           Unary("matmul", matmul_),
          Unary("mm", mm_),             Unary("Neg", Neg_),           Unary("Abs", Abs_),
          Unary("Exp", Exp_),           Unary("Log", Log_),           Unary("Sqrt", Sqrt_),
          Unary("mean", mean_),         Unary("Sum", Sum_),           Unary("std", std_),
          Unary("variance", variance_), Unary("Max", Max_),           Unary("Min", Min_),
          Unary("argmax", argmax_),     Unary("softmax", softmax_),   Unary("logsoftmax", logsoftmax_),
          Unary("View", View_),         Unary("reshape", reshape_),   Unary("transpose", transpose_),
          Unary("permute", permute_),   Unary("squeeze", squeeze_),   Unary("unsqueeze", unsqueeze_),
          Unary("cat", cat_),           Unary("stack", stack_),       Unary("narrow", narrow_),
          Unary("index", index_)};
}

}  // namespace kscope::q
