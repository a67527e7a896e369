// The catalogue's reductions (ktorch-api.md §1.5 D5): f(x[;dim][;keepdim][;dtype]), over every
// element when no dim is given (several dims where libtorch takes several). Max Min median
// nanmedian return the extreme element, or by dim (values;indices) as mode does; aminmax gives
// (min;max), meanstd (mean;std), meanvar (mean;variance); unique and uniquec the values, then
// the inverse indices and the counts when asked for (they have no output form).
// std/variance/meanstd/meanvar take (x;dim;unbiased;keepdim), unbiased by default; dist
// (x;y[;p]); the norms' forms are beside their entries. Errors are the catalogue's, and mnorm's
// "ord expected a number, `fro or `nuc".
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <ATen/ops/_unique2.h>
#include <ATen/ops/aminmax.h>
#include <ATen/ops/dist.h>
#include <ATen/ops/linalg_matrix_norm.h>
#include <ATen/ops/linalg_vector_norm.h>
#include <ATen/ops/logsumexp.h>
#include <ATen/ops/std_mean.h>
#include <ATen/ops/unique_consecutive.h>
#include <ATen/ops/unique_dim.h>
#include <ATen/ops/var_mean.h>

#include "api/math/math_catalogue.h"
#include "runtime/errors.h"

namespace kscope::math {
namespace {

// The dims parameter i names, or every dim when it is absent.
class Dims {
 public:
  Dims(const Call& c, std::size_t i) : given_(c.has(i)), dims_(c.integers(i, {})) {}
  operator at::OptionalIntArrayRef() const {  // NOLINT: read where ATen takes its dims
    return given_ ? at::OptionalIntArrayRef(dims_) : at::OptionalIntArrayRef();
  }

 private:
  bool given_;
  std::vector<std::int64_t> dims_;
};

std::vector<at::Tensor> Both(std::tuple<at::Tensor, at::Tensor> t) {
  return {std::move(std::get<0>(t)), std::move(std::get<1>(t))};
}

// Over every element without keepdim, the reductions that have one use libtorch's
// whole-tensor overload, as ktorch does (its graphs show MeanBackward0, StdBackward0).
bool Whole(const Call& c, std::size_t keepdim) { return !c.has(1) && !c.flag(keepdim, false); }

// f(x[;dims][;keepdim][;dtype]): Sum mean.
#define KSCOPE_OVER_DIMS(name, op)                                     \
  Function {                                                           \
    name, "t|Lbd", [](const Call& c) -> Output {                       \
      if (Whole(c, 2)) return c.tensor(0).op(c.dtype(3));              \
      return c.tensor(0).op(Dims(c, 1), c.flag(2, false), c.dtype(3)); \
    }                                                                  \
  }
// f(x[;dims][;keepdim][;dtype]): nansum nanmean, which have no whole-tensor overload.
#define KSCOPE_NAN_OVER_DIMS(name, op)                                 \
  Function {                                                           \
    name, "t|Lbd", [](const Call& c) -> Output {                       \
      return c.tensor(0).op(Dims(c, 1), c.flag(2, false), c.dtype(3)); \
    }                                                                  \
  }
// f(x[;dims][;unbiased][;keepdim]): std variance.
#define KSCOPE_SPREAD(name, op)                                             \
  Function {                                                                \
    name, "t|Lbb", [](const Call& c) -> Output {                            \
      if (Whole(c, 3)) return c.tensor(0).op(c.flag(2, true));              \
      return c.tensor(0).op(Dims(c, 1), c.flag(2, true), c.flag(3, false)); \
    }                                                                       \
  }
// meanstd meanvar: (mean;spread), as libtorch's op gives (spread;mean).
#define KSCOPE_MEAN_SPREAD(name, op)                                                        \
  Function {                                                                                \
    name, "t|Lbb", [](const Call& c) -> Output {                                            \
      auto [spread, mean] =                                                                 \
          Whole(c, 3) ? at::op(c.tensor(0), c.flag(2, true))                                \
                      : at::op(c.tensor(0), Dims(c, 1), c.flag(2, true), c.flag(3, false)); \
      return std::vector<at::Tensor>{mean, spread};                                         \
    }                                                                                       \
  }
// f(x[;dim][;keepdim]): the extreme element, or (values;indices) along dim.
#define KSCOPE_EXTREME(name, op)                                   \
  Function {                                                       \
    name, "t|lb", [](const Call& c) -> Output {                    \
      if (!c.has(1)) return c.tensor(0).op();                      \
      return Both(c.tensor(0).op(c.integer(1), c.flag(2, false))); \
    }                                                              \
  }
// Any All: over every element, or along dim.
#define KSCOPE_LOGICAL(name, op)                                                           \
  Function {                                                                               \
    name, "t|lb", [](const Call& c) -> Output {                                            \
      return c.has(1) ? c.tensor(0).op(c.integer(1), c.flag(2, false)) : c.tensor(0).op(); \
    }                                                                                      \
  }
// amax amin: dims none for every dim.
#define KSCOPE_BOUND(name, op)                                    \
  Function {                                                      \
    name, "t|Lb", [](const Call& c) -> Output {                   \
      return c.tensor(0).op(c.integers(1, {}), c.flag(2, false)); \
    }                                                             \
  }
// argmax argmin: the flat index, or indices along dim.
#define KSCOPE_INDEX(name, op)                                        \
  Function {                                                          \
    name, "t|lb", [](const Call& c) -> Output {                       \
      return c.tensor(0).op(c.optional_integer(1), c.flag(2, false)); \
    }                                                                 \
  }

// unique's and uniquec's values, then the inverse indices and counts asked for.
Output Unique(std::tuple<at::Tensor, at::Tensor, at::Tensor> r, bool inverse, bool counts) {
  if (!inverse && !counts) return std::get<0>(r);
  std::vector<at::Tensor> parts{std::get<0>(r)};
  if (inverse) parts.push_back(std::get<1>(r));
  if (counts) parts.push_back(std::get<2>(r));
  return parts;
}

// unique(x[;dim][;sort][;indices][;counts]).
Output UniqueValues(const Call& c) {
  const bool sorted = c.flag(2, true), inverse = c.flag(3, false), counts = c.flag(4, false);
  const at::Tensor& x = c.tensor(0);
  if (c.has(1))
    return Unique(at::unique_dim(x, c.integer(1), sorted, inverse, counts), inverse, counts);
  return Unique(at::_unique2(x, sorted, inverse, counts), inverse, counts);
}

// uniquec(x[;dim][;indices][;counts]): values unique among their neighbours.
Output UniqueConsecutive(const Call& c) {
  const bool inverse = c.flag(2, false), counts = c.flag(3, false);
  return Unique(at::unique_consecutive(c.tensor(0), inverse, counts, c.optional_integer(1)),
                inverse, counts);
}

// mnorm(x[;ord][;dims][;keepdim][;dtype]): ord a number, or `fro (the default) or `nuc.
Output MatrixNorm(const Call& c) {
  const std::vector<std::int64_t> dims = c.integers(3, {-2, -1});
  const bool keepdim = c.flag(4, false);
  if (c.has(1)) {
    if (c.has(2)) Fail("%s: ord is a number or a symbol, given both", c.fn());
    return at::linalg_matrix_norm(c.tensor(0), c.scalar(1), dims, keepdim, c.dtype(5));
  }
  const std::string ord = c.symbol(2, "fro");
  if (ord != "fro" && ord != "nuc")
    Fail("%s: ord expected a number, `fro or `nuc, given `%s", c.fn(), ord);
  return at::linalg_matrix_norm(c.tensor(0), c10::string_view(ord), dims, keepdim, c.dtype(5));
}

const Function kReduction[] = {
    KSCOPE_LOGICAL("Any", any),
    KSCOPE_LOGICAL("All", all),
    KSCOPE_BOUND("amax", amax),
    KSCOPE_BOUND("amin", amin),
    Function{"aminmax", "t|lb",
             [](const Call& c) -> Output {
               return Both(at::aminmax(c.tensor(0), c.optional_integer(1), c.flag(2, false)));
             }},
    KSCOPE_INDEX("argmax", argmax),
    KSCOPE_INDEX("argmin", argmin),
    KSCOPE_EXTREME("Max", max),
    KSCOPE_EXTREME("Min", min),
    KSCOPE_OVER_DIMS("mean", mean),
    KSCOPE_NAN_OVER_DIMS("nanmean", nanmean),
    KSCOPE_EXTREME("median", median),
    KSCOPE_EXTREME("nanmedian", nanmedian),
    Function{"mode", "t|lb",
             [](const Call& c) -> Output {
               return Both(c.tensor(0).mode(c.integer(1, -1), c.flag(2, false)));
             }},
    KSCOPE_SPREAD("std", std),
    KSCOPE_SPREAD("variance", var),
    KSCOPE_MEAN_SPREAD("meanstd", std_mean),
    KSCOPE_MEAN_SPREAD("meanvar", var_mean),
    Function{"prod", "t|lbd",
             [](const Call& c) -> Output {
               if (!c.has(1)) return c.tensor(0).prod(c.dtype(3));
               return c.tensor(0).prod(c.integer(1), c.flag(2, false), c.dtype(3));
             }},
    KSCOPE_OVER_DIMS("Sum", sum),
    KSCOPE_NAN_OVER_DIMS("nansum", nansum),
    Function{"unique", "t|lbbb", UniqueValues, nullptr, /*writes_output=*/false},
    Function{"uniquec", "t|lbb", UniqueConsecutive, nullptr, /*writes_output=*/false},
    Function{"dist", "tt|s",
             [](const Call& c) -> Output {
               return at::dist(c.tensor(0), c.tensor(1), c.optional_scalar(2).value_or(2));
             }},
    Function{"logsumexp", "tL|b",
             [](const Call& c) -> Output {
               return at::logsumexp(c.tensor(0), c.integers(1), c.flag(2, false));
             }},
    // fnorm(x[;dims][;keepdim][;dtype]): the Frobenius norm, the 2-norm of the elements.
    Function{"fnorm", "t|Lbd",
             [](const Call& c) -> Output {
               return at::linalg_vector_norm(c.tensor(0), 2, Dims(c, 1), c.flag(2, false),
                                             c.dtype(3));
             }},
    // nnorm(x[;dims][;keepdim]): the nuclear norm of the matrices in dims (the last two).
    Function{"nnorm", "t|Lb",
             [](const Call& c) -> Output {
               return at::linalg_matrix_norm(c.tensor(0), c10::string_view("nuc"),
                                             c.integers(1, {-2, -1}), c.flag(2, false));
             }},
    Function{"mnorm", "t|syLbd", MatrixNorm},
    // vnorm(x[;ord][;dims][;keepdim][;dtype]): ord 2 by default.
    Function{"vnorm", "t|sLbd",
             [](const Call& c) -> Output {
               return at::linalg_vector_norm(c.tensor(0), c.optional_scalar(1).value_or(2),
                                             Dims(c, 2), c.flag(3, false), c.dtype(4));
             }},
};

#undef KSCOPE_OVER_DIMS
#undef KSCOPE_NAN_OVER_DIMS
#undef KSCOPE_SPREAD
#undef KSCOPE_MEAN_SPREAD
#undef KSCOPE_EXTREME
#undef KSCOPE_LOGICAL
#undef KSCOPE_BOUND
#undef KSCOPE_INDEX

}  // namespace

absl::Span<const Function> ReductionFunctions() { return kReduction; }

}  // namespace kscope::math
