// The catalogue's other functions (ktorch-api.md §1.5 D9), with libtorch's defaults for what is
// left out:
//   bincount(x;weight;bins)          counts of non-negative longs, weighted, at least bins long
//   cumprod cumsum (x;dim;dtype)     running product/sum along dim, optionally as dtype; in place
//   diag(x;offset) diagflat(x;offset)  a diagonal of a matrix / a vector (flattened) as one
//   diagonal(x;offset;dim1;dim2)     a view of a diagonal (dims default 0 1)
//   Flip(x;dims)                     elements reversed along dims
//   histc(x;bins;lo;hi)              a histogram (bins default 100; lo=hi=0: x's min and max)
//   renorm(x;p;dim;maxnorm)          slices along dim scaled to p-norm at most maxnorm; in place
//   roll(x;shifts;dims)              elements rotated (no dims: the flattened tensor)
//   tensordot(x;y;n) / (x;y;dimsx;dimsy)  contraction: x's last n dims (default 2) with y's
//                                    first n, or the dims listed
//   trace x                          sum of a matrix's diagonal
//   tril triu (x;offset)             lower/upper triangle from the offset diagonal; in place
// Outputs (f(...;out)) as ktorch lists them: cumprod cumsum diag histc tril triu.
#include <algorithm>

#include <ATen/ops/bincount.h>
#include <ATen/ops/tensordot.h>

#include "api/math/math_catalogue.h"
#include "runtime/errors.h"

namespace kscope::math {
namespace {

at::Tensor Bincount(const Call& c) {
  AtOptional<at::Tensor> weight;
  if (c.has(1)) weight = c.tensor(1);
  return at::bincount(c.tensor(0), weight, c.integer(2, 0));
}

// tensordot(x;y;dimsx;dimsy), or (x;y[;n]): x's last n dims with y's first n.
at::Tensor Tensordot(const Call& c) {
  const at::Tensor& x = c.tensor(0);
  const at::Tensor& y = c.tensor(1);
  if (c.has(3)) return at::tensordot(x, y, c.integers(2), c.integers(3));
  const std::vector<std::int64_t> count = c.integers(2, {2});
  if (count.size() != 1 || count[0] < 0 || count[0] > x.dim() || count[0] > y.dim()) {
    Fail("%s: expected a count of dims (at most %d), or dims of x and dims of y", c.fn(),
         std::min(x.dim(), y.dim()));
  }
  std::vector<std::int64_t> dims_x, dims_y;
  for (std::int64_t i = 0; i < count[0]; ++i) {
    dims_x.push_back(x.dim() - count[0] + i);
    dims_y.push_back(i);
  }
  return at::tensordot(x, y, dims_x, dims_y);
}

// f(x;dim;dtype): a new tensor, or in place; dim defaults to the last (as in ktorch).
#define KSCOPE_CUMULATIVE(name, op)                                                           \
  Function {                                                                                  \
    name, "t|ld",                                                                             \
        [](const Call& c) -> Output { return c.tensor(0).op(c.integer(1, -1), c.dtype(2)); }, \
        [](const Call& c) { c.tensor(0).op##_(c.integer(1, -1), c.dtype(2)); }                \
  }
// f(x;offset): a new tensor, or in place.
#define KSCOPE_TRIANGLE(name, op)                                                         \
  Function {                                                                              \
    name, "t|l", [](const Call& c) -> Output { return c.tensor(0).op(c.integer(1, 0)); }, \
        [](const Call& c) { c.tensor(0).op##_(c.integer(1, 0)); }                         \
  }

const Function kOther[] = {
    Function{"bincount", "t|tl", [](const Call& c) -> Output { return Bincount(c); }, nullptr,
             false},
    KSCOPE_CUMULATIVE("cumprod", cumprod),
    KSCOPE_CUMULATIVE("cumsum", cumsum),
    Function{"diag", "t|l",
             [](const Call& c) -> Output { return c.tensor(0).diag(c.integer(1, 0)); }},
    Function{"diagflat", "t|l",
             [](const Call& c) -> Output { return c.tensor(0).diagflat(c.integer(1, 0)); }, nullptr,
             false},
    Function{"diagonal", "t|lll",
             [](const Call& c) -> Output {
               return c.tensor(0).diagonal(c.integer(1, 0), c.integer(2, 0), c.integer(3, 1));
             },
             nullptr, false},
    Function{"Flip", "tL", [](const Call& c) -> Output { return c.tensor(0).flip(c.integers(1)); },
             nullptr, false},
    Function{"histc", "t|lss",
             [](const Call& c) -> Output {
               return c.tensor(0).histc(c.integer(1, 100), c.optional_scalar(2).value_or(0),
                                        c.optional_scalar(3).value_or(0));
             }},
    Function{"renorm", "tsls",
             [](const Call& c) -> Output {
               return c.tensor(0).renorm(c.scalar(1), c.integer(2), c.scalar(3));
             },
             [](const Call& c) { c.tensor(0).renorm_(c.scalar(1), c.integer(2), c.scalar(3)); },
             false},
    Function{
        "roll", "tL|L",
        [](const Call& c) -> Output { return c.tensor(0).roll(c.integers(1), c.integers(2, {})); },
        nullptr, false},
    Function{"tensordot", "tt|LL", [](const Call& c) -> Output { return Tensordot(c); }, nullptr,
             false},
    Function{"trace", "t", [](const Call& c) -> Output { return c.tensor(0).trace(); }, nullptr,
             false},
    KSCOPE_TRIANGLE("tril", tril),
    KSCOPE_TRIANGLE("triu", triu),
};

#undef KSCOPE_CUMULATIVE
#undef KSCOPE_TRIANGLE

}  // namespace

absl::Span<const Function> OtherFunctions() { return kOther; }

}  // namespace kscope::math
