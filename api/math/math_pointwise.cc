// The catalogue's pointwise functions (ktorch-api.md §1.5 D1-D3): one input, two inputs, and
// add addcdiv addcmul clamp lerp mvlgamma. Every one has ktorch's in-place form (x;...;::)
// except angle, whose result type differs from a complex input's.
#include "api/math/math_catalogue.h"

namespace kscope::math {
namespace {

// f x: at::op and the in-place method op_ (and the direct form).
#define KSCOPE_ONE_INPUT(name, op)                                              \
  Function {                                                                    \
    name, "t", [](const Call& c) -> Output { return c.tensor(0).op(); },        \
        [](const Call& c) { c.tensor(0).op##_(); }, true, Returns::kLikeInputs, \
        [](const at::Tensor& x) { return x.op(); }                              \
  }
// f(x;y): y a tensor or a number.
#define KSCOPE_TWO_INPUTS(name, op)                                                        \
  Function {                                                                               \
    name, "tn", [](const Call& c) -> Output { return c.tensor(0).op(c.tensor(1)); },       \
        [](const Call& c) { c.tensor(0).op##_(c.tensor(1)); }, true, Returns::kLikeInputs, \
        nullptr, [](const at::Tensor& x, const at::Tensor& y) { return x.op(y); }          \
  }
// f(x;y[;alpha]): x + alpha * y, x - alpha * y.
#define KSCOPE_WITH_ALPHA(name, op)                                                              \
  Function {                                                                                     \
    name, "tn|s",                                                                                \
        [](const Call& c) -> Output {                                                            \
          return c.tensor(0).op(c.tensor(1), c.optional_scalar(2).value_or(1));                  \
        },                                                                                       \
        [](const Call& c) { c.tensor(0).op##_(c.tensor(1), c.optional_scalar(2).value_or(1)); }, \
        true, Returns::kLikeInputs, nullptr,                                                     \
        [](const at::Tensor& x, const at::Tensor& y) { return x.op(y); }                         \
  }
// f(x;y;z[;value]): x + value * (y op z).
#define KSCOPE_THREE_INPUTS(name, op)                                                        \
  Function {                                                                                 \
    name, "ttt|s",                                                                           \
        [](const Call& c) -> Output {                                                        \
          return c.tensor(0).op(c.tensor(1), c.tensor(2), c.optional_scalar(3).value_or(1)); \
        },                                                                                   \
        [](const Call& c) {                                                                  \
          c.tensor(0).op##_(c.tensor(1), c.tensor(2), c.optional_scalar(3).value_or(1));     \
        }                                                                                    \
  }

// lerp's weight: a number (0-dim) is a scalar weight, as libtorch wants tensor weights of the
// inputs' dtype.
at::Tensor Lerp(const Call& c) {
  const at::Tensor& w = c.tensor(2);
  return w.dim() == 0 ? c.tensor(0).lerp(c.tensor(1), w.item()) : c.tensor(0).lerp(c.tensor(1), w);
}

const Function kPointwise[] = {
    // D1: one input.
    KSCOPE_ONE_INPUT("Abs", abs),
    KSCOPE_ONE_INPUT("Acos", acos),
    Function{"angle", "t", [](const Call& c) -> Output { return c.tensor(0).angle(); }},
    KSCOPE_ONE_INPUT("Asin", asin),
    KSCOPE_ONE_INPUT("Atan", atan),
    KSCOPE_ONE_INPUT("bitwisenot", bitwise_not),
    KSCOPE_ONE_INPUT("ceil", ceil),
    KSCOPE_ONE_INPUT("cosh", cosh),
    KSCOPE_ONE_INPUT("Cos", cos),
    KSCOPE_ONE_INPUT("digamma", digamma),
    KSCOPE_ONE_INPUT("erf", erf),
    KSCOPE_ONE_INPUT("erfc", erfc),
    KSCOPE_ONE_INPUT("erfinv", erfinv),
    KSCOPE_ONE_INPUT("Exp", exp),
    KSCOPE_ONE_INPUT("expm1", expm1),
    KSCOPE_ONE_INPUT("Floor", floor),
    KSCOPE_ONE_INPUT("frac", frac),
    KSCOPE_ONE_INPUT("lgamma", lgamma),
    KSCOPE_ONE_INPUT("Log", log),
    KSCOPE_ONE_INPUT("log10", log10),
    KSCOPE_ONE_INPUT("log1p", log1p),
    KSCOPE_ONE_INPUT("log2", log2),
    KSCOPE_ONE_INPUT("Neg", neg),
    KSCOPE_ONE_INPUT("Not", logical_not),
    KSCOPE_ONE_INPUT("Reciprocal", reciprocal),
    KSCOPE_ONE_INPUT("round", round),
    KSCOPE_ONE_INPUT("rsqrt", rsqrt),
    KSCOPE_ONE_INPUT("sgn", sgn),
    KSCOPE_ONE_INPUT("sigmoid", sigmoid),
    KSCOPE_ONE_INPUT("sign", sign),
    KSCOPE_ONE_INPUT("Sin", sin),
    KSCOPE_ONE_INPUT("sinh", sinh),
    KSCOPE_ONE_INPUT("Sqrt", sqrt),
    KSCOPE_ONE_INPUT("Tan", tan),
    KSCOPE_ONE_INPUT("tanh", tanh),
    KSCOPE_ONE_INPUT("trunc", trunc),
    // D2: two inputs.
    KSCOPE_TWO_INPUTS("atan2", atan2),
    KSCOPE_TWO_INPUTS("Div", div),
    KSCOPE_TWO_INPUTS("fmod", fmod),
    KSCOPE_TWO_INPUTS("fpow", float_power),
    KSCOPE_TWO_INPUTS("mul", mul),
    KSCOPE_TWO_INPUTS("pow", pow),
    KSCOPE_TWO_INPUTS("remainder", remainder),
    KSCOPE_TWO_INPUTS("xor", logical_xor),
    // D3: other pointwise (sub beside add: kscope's, ktorch has add with a negative alpha).
    KSCOPE_WITH_ALPHA("add", add),
    KSCOPE_WITH_ALPHA("sub", sub),
    KSCOPE_THREE_INPUTS("addcdiv", addcdiv),
    KSCOPE_THREE_INPUTS("addcmul", addcmul),
    Function{"clamp", "t|ss",
             [](const Call& c) -> Output {
               return c.tensor(0).clamp(c.optional_scalar(1), c.optional_scalar(2));
             },
             [](const Call& c) { c.tensor(0).clamp_(c.optional_scalar(1), c.optional_scalar(2)); }},
    Function{"lerp", "ttn", [](const Call& c) -> Output { return Lerp(c); },
             [](const Call& c) { c.tensor(0).copy_(Lerp(c)); }},
    Function{"mvlgamma", "tl",
             [](const Call& c) -> Output { return c.tensor(0).mvlgamma(c.integer(1)); },
             [](const Call& c) { c.tensor(0).mvlgamma_(c.integer(1)); }},
};

#undef KSCOPE_ONE_INPUT
#undef KSCOPE_TWO_INPUTS
#undef KSCOPE_WITH_ALPHA
#undef KSCOPE_THREE_INPUTS

}  // namespace

absl::Span<const Function> PointwiseFunctions() { return kPointwise; }

}  // namespace kscope::math
