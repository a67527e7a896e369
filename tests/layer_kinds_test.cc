// The layer kinds beyond the core ones: transposed convolutions, fractional and power pooling,
// normalization across channels, embedding bags, resampling (upsample interpolate fold unfold),
// distances and padding. One row per kind or option form, as in module_kinds_test.cc: each
// module computes what ATen computes with the module's own parameters, and remakes from its
// query the same; the kinds whose forward takes a second tensor have their own table. Bad
// options fail when the module is made, naming the kind, and leave no handle behind.
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "api/nn/module.h"
#include "tests/error_text.h"
#include "tests/module_case.h"
#include "tests/test_fixture.h"

namespace kscope::testing {
namespace layer_kinds_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using P = const Parms&;
using X = const at::Tensor&;

nn::OptionValue Ds(std::initializer_list<double> v) { return std::vector<double>(v); }

// The sums of x^2 over the channels c-before .. c+after of each channel c, channels being
// dimension 1.
at::Tensor WindowSums(X x, std::int64_t before, std::int64_t after) {
  auto zeros = [&](std::int64_t n) {
    std::vector<std::int64_t> shape = x.sizes().vec();
    shape[1] = n;
    return at::zeros(shape);
  };
  const at::Tensor squares = at::cat({zeros(before), x.pow(2), zeros(after)}, 1);
  at::Tensor sum = at::zeros_like(x);
  for (std::int64_t i = 0; i <= before + after; ++i) sum += squares.narrow(1, i, x.size(1));
  return sum;
}

// Local response normalization: x times (k + alpha/size * sums)^-beta.
at::Tensor ResponseNormalized(X x, X sums, double size, double alpha, double beta, double k) {
  return x * at::pow(k + alpha / size * sums, -beta);
}

// crossmap2d as libtorch's CrossMapLRN2d computes it (as PyTorch's does, and so ktorch): the
// window of channel c is c-h .. c+h, h = (size-1)/2, but from channel h+1 on channel 0 stays in
// it, an off-by-one carried over from Lua torch's 1-based loop.
at::Tensor CrossMap(X x, std::int64_t size, double alpha, double beta, double k) {
  const std::int64_t h = (size - 1) / 2;
  at::Tensor sums = WindowSums(x, h, h);
  sums.narrow(1, h + 1, x.size(1) - h - 1) += x.narrow(1, 0, 1).pow(2);
  return ResponseNormalized(x, sums, size, alpha, beta, k);
}

std::vector<KindCase> ConvAndPoolCases() {
  return {
      {"convtranspose1d",
       Def("convtranspose1d", {J(2), J(4), J(3)}),
       {2, 2, 7},
       [](P p, X x) { return at::conv_transpose1d(x, p.at("weight"), p.at("bias")); }},
      {"convtranspose2d_stride_pad_outpad",
       Def("convtranspose2d", {J(4), J(3), J(3), J(2), J(1), J(1)}),
       {2, 4, 5, 5},
       [](P p, X x) { return at::conv_transpose2d(x, p.at("weight"), p.at("bias"), 2, 1, 1); }},
      {"convtranspose2d_groups_dilate",
       Def("convtranspose2d", {J(4), J(6), Js({3, 2}), J(1), J(0), J(0), J(2), false, J(2)}),
       {1, 4, 5, 5},
       [](P p, X x) { return at::conv_transpose2d(x, p.at("weight"), {}, 1, 0, 0, 2, 2); }},
      {"convtranspose3d",
       Def("convtranspose3d", {J(2), J(2), J(2)}, {{"stride", J(2)}}),
       {1, 2, 3, 3, 3},
       [](P p, X x) { return at::conv_transpose3d(x, p.at("weight"), p.at("bias"), 2); }},
      // Windows of 2 over 8 values into 4 (or 4 into 2) outputs fall at steps of exactly 2,
      // whatever the pseudo-random draw: a plain max pool.
      {"fmaxpool2d_ratio",
       Def("fmaxpool2d", {J(2)}, {{"ratio", Ds({0.5})}}),
       {2, 3, 8, 8},
       [](P, X x) { return at::max_pool2d(x, 2, 2); }},
      {"fmaxpool2d_outsize",
       Def("fmaxpool2d", {J(2), Js({4, 2})}),
       {2, 3, 8, 4},
       [](P, X x) { return at::max_pool2d(x, 2, 2); }},
      {"fmaxpool2d_whole",
       Def("fmaxpool2d", {J(6), J(1)}),
       {2, 3, 6, 6},
       [](P, X x) {
         return x.amax({2, 3}, true);
       }},
      {"fmaxpool3d",
       Def("fmaxpool3d", {J(2)}, {{"ratio", Ds({0.5, 0.5, 0.5})}}),
       {1, 2, 4, 4, 4},
       [](P, X x) { return at::max_pool3d(x, 2, 2); }},
      {"lppool1d_sum",
       Def("lppool1d", {1.0, J(3)}),
       {2, 3, 9},
       [](P, X x) { return at::avg_pool1d(x, 3, 3) * 3; }},
      {"lppool2d_stride",
       Def("lppool2d", {2.0, J(2), J(1)}),
       {2, 3, 6, 6},
       [](P, X x) { return at::sqrt(at::avg_pool2d(x.pow(2), 2, 1) * 4); }},
      {"lppool2d_ceiling",
       Def("lppool2d", {J(2), Js({2, 3})}, {{"ceiling", true}}),
       {1, 2, 4, 6},
       [](P, X x) {
         return at::sqrt(at::avg_pool2d(x.pow(2), {2, 3}, {2, 3}, 0, true) * 6);
       }},
  };
}

std::vector<KindCase> NormAndEmbedCases() {
  return {
      {"localnorm",
       Def("localnorm", {J(3)}),
       {2, 5, 7},
       [](P, X x) { return ResponseNormalized(x, WindowSums(x, 1, 1), 3, 1e-4, 0.75, 1); }},
      {"localnorm_even",
       Def("localnorm", {J(4), 0.1, 0.5, 2.0}),
       {2, 6, 3, 3},
       [](P, X x) { return ResponseNormalized(x, WindowSums(x, 2, 1), 4, 0.1, 0.5, 2); }},
      {"crossmap2d",
       Def("crossmap2d", {J(3), 0.1, 0.75, J(2)}),
       {2, 6, 3, 3},
       [](P, X x) { return CrossMap(x, 3, 0.1, 0.75, 2); }},
      {"crossmap2d_default",
       Def("crossmap2d", {J(5)}),
       {2, 6, 3, 3},
       [](P, X x) { return CrossMap(x, 5, 1e-4, 0.75, 1); }},
      {"embedbag_mean",
       Def("embedbag", {J(10), J(3)}),
       {4, 5},
       [](P p, X x) { return p.at("weight").index({x}).mean(1); },
       false,
       10},
      {"embedbag_sum_padindex",
       Def("embedbag", {J(10), J(3)}, {{"mode", Sym("sum")}, {"padindex", J(0)}}),
       {4, 5},
       [](P p, X x) { return (p.at("weight").index({x}) * (x != 0).unsqueeze(-1)).sum(1); },
       false,
       10},
      {"embedbag_sum_padindex_positional",  // `padindex is 8th: `lastoffset is by name only
       Def("embedbag", {J(10), J(3), nn::OptionValue{}, 2.0, false, Sym("sum"), false, J(0)}),
       {4, 5},
       [](P p, X x) { return (p.at("weight").index({x}) * (x != 0).unsqueeze(-1)).sum(1); },
       false,
       10},
      {"embedbag_max",
       Def("embedbag", {J(10), J(3), nn::OptionValue{}, 2.0, false, Sym("max")}),
       {4, 5},
       [](P p, X x) { return p.at("weight").index({x}).amax(1); },
       false,
       10},
  };
}

std::vector<KindCase> ResampleCases() {
  return {
      {"upsample_nearest",
       Def("upsample", {nn::OptionValue{}, Ds({2, 3})}),
       {1, 2, 3, 3},
       [](P, X x) { return x.repeat_interleave(2, 2).repeat_interleave(3, 3); }},
      {"upsample_bilinear_align",
       Def("upsample", {J(6)}, {{"mode", Sym("bilinear")}, {"align", true}}),
       {1, 2, 3, 4},
       [](P, X x) {
         return at::upsample_bilinear2d(x, {6, 6}, true);
       }},
      {"upsample_linear",
       Def("upsample", {}, {{"scale", Ds({2})}, {"mode", Sym("linear")}}),
       {2, 3, 5},
       [](P, X x) { return at::upsample_linear1d(x, {10}, false, c10::optional<double>(2.0)); }},
      {"upsample_scale_atom",
       Def("upsample", {}, {{"scale", 2.0}, {"mode", Sym("linear")}}),
       {2, 3, 5},
       [](P, X x) { return at::upsample_linear1d(x, {10}, false, c10::optional<double>(2.0)); }},
      {"upsample_trilinear",
       Def("upsample", {J(4)}, {{"mode", Sym("trilinear")}}),
       {1, 1, 2, 2, 2},
       [](P, X x) {
         return at::upsample_trilinear3d(x, {4, 4, 4}, false);
       }},
      {"interpolate_bicubic",
       Def("interpolate", {Js({5, 7})}, {{"mode", Sym("bicubic")}}),
       {1, 2, 3, 4},
       [](P, X x) {
         return at::upsample_bicubic2d(x, {5, 7}, false);
       }},
      {"interpolate_area",
       Def("interpolate", {Js({2, 3})}, {{"mode", Sym("area")}}),
       {1, 2, 6, 6},
       [](P, X x) {
         return at::adaptive_avg_pool2d(x, {2, 3});
       }},
      // Output i takes input floor((i + 0.5) * 3/5); nearest would take floor(i * 3/5).
      {"interpolate_nearestexact",
       Def("interpolate", {J(5)}, {{"mode", Sym("nearestexact")}}),
       {1, 2, 3},
       [](P, X x) {
         return x.index_select(2, at::tensor({0, 0, 1, 2, 2}, at::kLong));
       }},
      {"interpolate_scale",
       Def("interpolate", {}, {{"scale", Ds({1.5})}, {"mode", Sym("linear")}}),
       {1, 1, 5},
       [](P, X x) { return at::upsample_linear1d(x, {7}, false, c10::optional<double>(1.5)); }},
      // With `rescale, the step is the input size over the output's, 5/7, not 1/1.5.
      {"interpolate_rescale",
       Def("interpolate", {}, {{"scale", Ds({1.5})}, {"mode", Sym("linear")}, {"rescale", true}}),
       {1, 1, 5},
       [](P, X x) { return at::upsample_linear1d(x, {7}, false); }},
      {"fold",
       Def("fold", {Js({4, 5}), J(2)}),
       {1, 12, 12},
       [](P, X x) {
         return at::col2im(x, {4, 5}, {2, 2}, {1, 1}, {0, 0}, {1, 1});
       }},
      {"fold_stride",
       Def("fold", {J(4), J(2)}, {{"stride", J(2)}}),
       {2, 8, 4},
       [](P, X x) {
         return at::col2im(x, {4, 4}, {2, 2}, {1, 1}, {0, 0}, {2, 2});
       }},
      {"unfold",
       Def("unfold", {J(2)}, {{"stride", J(2)}}),
       {1, 2, 4, 4},
       [](P, X x) {
         return at::im2col(x, {2, 2}, {1, 1}, {0, 0}, {2, 2});
       }},
      {"unfold_dilate_pad",
       Def("unfold", {Js({2, 3}), J(2), J(1)}),
       {2, 2, 5, 5},
       [](P, X x) {
         return at::im2col(x, {2, 3}, {2, 2}, {1, 1}, {1, 1});
       }},
  };
}

std::vector<KindCase> DistanceAndPaddingCases() {
  return {
      {"normalize", Def("normalize"), {4, 6}, [](P, X x) { return x / x.norm(2, 1, true); }},
      {"normalize_p1_dim0",
       Def("normalize", {1.0, J(0)}),
       {4, 6},
       [](P, X x) { return x / x.abs().sum(0, true); }},
      {"pad1d",
       Def("pad1d", {Js({1, 2}), 3.5}),
       {2, 3, 4},
       [](P, X x) {
         return at::constant_pad_nd(x, {1, 2}, 3.5);
       }},
      {"pad2d",
       Def("pad2d", {J(1), 0.0}),
       {1, 2, 3, 3},
       [](P, X x) {
         return at::constant_pad_nd(x, {1, 1, 1, 1});
       }},
      {"pad3d_crop",
       Def("pad3d", {Js({1, 0, 0, 1, 2, -1}), -1.0}),
       {1, 1, 3, 3, 3},
       [](P, X x) {
         return at::constant_pad_nd(x, {1, 0, 0, 1, 2, -1}, -1);
       }},
      {"reflect1d",
       Def("reflect1d", {J(2)}),
       {2, 3, 5},
       [](P, X x) {
         return at::reflection_pad1d(x, {2, 2});
       }},
      {"reflect2d",
       Def("reflect2d", {Js({1, 2, 0, 1})}),
       {1, 2, 4, 4},
       [](P, X x) {
         return at::reflection_pad2d(x, {1, 2, 0, 1});
       }},
      {"replicate1d",
       Def("replicate1d", {Js({1, 3})}),
       {2, 3, 4},
       [](P, X x) {
         return at::replication_pad1d(x, {1, 3});
       }},
      {"replicate2d",
       Def("replicate2d", {J(1)}),
       {1, 2, 3, 3},
       [](P, X x) {
         return at::replication_pad2d(x, {1, 1, 1, 1});
       }},
      {"replicate3d",
       Def("replicate3d", {Js({0, 1, 1, 0, 2, 0})}),
       {1, 1, 2, 2, 2},
       [](P, X x) {
         return at::replication_pad3d(x, {0, 1, 1, 0, 2, 0});
       }},
      {"zeropad2d",
       Def("zeropad2d", {Js({1, 0, 2, 0})}),
       {1, 2, 3, 3},
       [](P, X x) {
         return at::constant_pad_nd(x, {1, 0, 2, 0});
       }},
  };
}

std::vector<KindCase> AllCases() {
  std::vector<KindCase> all;
  for (auto family :
       {ConvAndPoolCases, NormAndEmbedCases, ResampleCases, DistanceAndPaddingCases}) {
    for (KindCase& c : family()) all.push_back(std::move(c));
  }
  return all;
}

class LayerKindsTest : public LeakCheckTest, public ::testing::WithParamInterface<KindCase> {};

TEST_P(LayerKindsTest, MatchesLibtorchAndRoundTripsThroughDescribe) {
  ExpectMatchesLibtorchAndRoundTrips(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Kinds, LayerKindsTest, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<KindCase>& info) {
                           return info.param.label;
                         });

// A row whose forward takes two tensors: x and y, made by `inputs`.
struct PairCase {
  std::string label;
  ModuleDefinition definition;
  std::function<std::pair<at::Tensor, at::Tensor>()> inputs;
  std::function<at::Tensor(const Parms&, const at::Tensor&, const at::Tensor&)> expected;
};

void PrintTo(const PairCase& c, std::ostream* out) { *out << c.label; }

std::pair<at::Tensor, at::Tensor> Floats(std::vector<std::int64_t> x, std::vector<std::int64_t> y) {
  return {Spread(x), Spread(y)};
}

// Flat indices into 10 rows and the offsets where each bag starts.
std::pair<at::Tensor, at::Tensor> Bags(std::vector<std::int64_t> offsets) {
  return {at::randint(10, {7}), at::tensor(offsets, at::kLong)};
}

// The rows of `weight` that the indices between offsets[i] and offsets[i+1] (or the end) pick,
// reduced by `reduce`, one bag per row.
at::Tensor PerBag(X weight, X indices, X offsets,
                  const std::function<at::Tensor(const at::Tensor&)>& reduce) {
  std::vector<at::Tensor> bags;
  const std::int64_t n = offsets.size(0);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t start = offsets[i].item<std::int64_t>();
    const std::int64_t end = i + 1 < n ? offsets[i + 1].item<std::int64_t>() : indices.size(0);
    bags.push_back(reduce(weight.index({indices.narrow(0, start, end - start)})));
  }
  return at::stack(bags);
}

std::vector<PairCase> PairCases() {
  return {
      {"pairwise", Def("pairwise"),
       [] {
         return Floats({4, 6}, {4, 6});
       },
       [](P, X x, X y) { return (x - y + 1e-6).norm(2, -1); }},
      {"pairwise_p1_keepdim", Def("pairwise", {1.0, 1e-6, true}),
       [] {
         return Floats({4, 6}, {4, 6});
       },
       [](P, X x, X y) { return (x - y + 1e-6).abs().sum(-1, true); }},
      {"similar", Def("similar"),
       [] {
         return Floats({4, 6}, {4, 6});
       },
       [](P, X x, X y) { return (x * y).sum(1) / (x.norm(2, 1) * y.norm(2, 1)); }},
      {"similar_dim0", Def("similar", {J(0)}),
       [] {
         return Floats({4, 6}, {4, 6});
       },
       [](P, X x, X y) { return (x * y).sum(0) / (x.norm(2, 0) * y.norm(2, 0)); }},
      {"bilinear", Def("bilinear", {J(3), J(4), J(2)}),
       [] {
         return Floats({5, 3}, {5, 4});
       },
       [](P p, X x, X y) {
         return at::einsum("bi,oij,bj->bo", {x, p.at("weight"), y}) + p.at("bias");
       }},
      {"bilinear_nobias", Def("bilinear", {J(3), J(4), J(2), false}),
       [] {
         return Floats({5, 3}, {5, 4});
       },
       [](P p, X x, X y) {
         return at::einsum("bi,oij,bj->bo", {x, p.at("weight"), y});
       }},
      {"embedbag_offsets", Def("embedbag", {J(10), J(3)}),
       [] {
         return Bags({0, 2, 5});
       },
       [](P p, X x, X y) {
         return PerBag(p.at("weight"), x, y, [](X rows) { return rows.mean(0); });
       }},
      {"embedbag_lastoffset",
       Def("embedbag", {J(10), J(3)}, {{"mode", Sym("sum")}, {"lastoffset", true}}),
       [] {
         return Bags({0, 2, 5, 7});
       },
       [](P p, X x, X y) {
         return PerBag(p.at("weight"), x, y.narrow(0, 0, 3), [](X rows) { return rows.sum(0); });
       }},
  };
}

class LayerKindsPairTest : public LeakCheckTest, public ::testing::WithParamInterface<PairCase> {};

TEST_P(LayerKindsPairTest, MatchesLibtorchAndRoundTripsThroughDescribe) {
  const PairCase& c = GetParam();
  auto scope = Scope::Open();
  const Remakes m = MakeAndRemake(c.definition);
  const auto [x, y] = c.inputs();
  const at::Tensor expected = c.expected(m.parms, x, y);
  const std::vector<Operand> inputs{x, y};
  const at::Tensor out = forward(m.made, inputs).tensor();
  EXPECT_TRUE(at::allclose(out, expected, 1e-4, 1e-5)) << "forward:\n"
                                                       << out << "\nexpected:\n"
                                                       << expected;
  EXPECT_TRUE(at::allclose(forward(m.remade, inputs).tensor(), out, 1e-5, 1e-6));
  // A sequential passes its children one tensor: the child is checked through its parameters.
}

INSTANTIATE_TEST_SUITE_P(Kinds, LayerKindsPairTest, ::testing::ValuesIn(PairCases()),
                         [](const ::testing::TestParamInfo<PairCase>& info) {
                           return info.param.label;
                         });

class BadLayerKindsTest : public LeakCheckTest, public ::testing::WithParamInterface<BadCase> {};

TEST_P(BadLayerKindsTest, FailsWhenMadeNamingTheKind) { ExpectFailsNamingTheKind(GetParam()); }

std::vector<BadCase> BadCases() {
  return {
      // transposed convolutions
      {"convtranspose3d_missing", Def("convtranspose3d", {J(1), J(2)}),
       "convtranspose3d: option `size required"},
      {"convtranspose2d_padmode",
       Def("convtranspose2d", {J(1), J(2), J(3)}, {{"padmode", Sym("reflect")}}),
       "convtranspose2d: unsupported padmode `reflect, transposed convolutions only pad with "
       "zeros"},
      {"convtranspose1d_outpad", Def("convtranspose1d", {J(1), J(2), J(3), J(1), J(0), J(1)}),
       "convtranspose1d: option `outpad must be smaller than `stride or `dilate, given outpad 1, "
       "stride 1 and dilate 1"},
      {"convtranspose2d_pad", Def("convtranspose2d", {J(1), J(2), J(3), J(1), Js({0, -1})}),
       "convtranspose2d: option `pad must be at least 0, given -1"},
      {"convtranspose2d_pad_symbol", Def("convtranspose2d", {J(1), J(2), J(3), J(1), Sym("same")}),
       "convtranspose2d: option `pad expects long(s), given symbol"},
      // fractional and power pooling
      {"fmaxpool2d_neither", Def("fmaxpool2d", {J(2)}),
       "fmaxpool2d: expecting one of options `outsize and `ratio, given neither"},
      {"fmaxpool3d_both", Def("fmaxpool3d", {J(2), J(3), Ds({0.5})}),
       "fmaxpool3d: expecting one of options `outsize and `ratio, given both"},
      {"fmaxpool2d_ratio", Def("fmaxpool2d", {J(2)}, {{"ratio", Ds({0.5, 1.5})}}),
       "fmaxpool2d: option `ratio must be between 0 and 1 exclusive, given 1.5"},
      {"fmaxpool2d_ratio_count", Def("fmaxpool2d", {J(2)}, {{"ratio", Ds({0.5, 0.5, 0.5})}}),
       "fmaxpool2d: option `ratio expects 1 or 2 doubles, given 3"},
      {"fmaxpool3d_outsize", Def("fmaxpool3d", {J(2), J(0)}),
       "fmaxpool3d: option `outsize must be at least 1, given 0"},
      {"lppool1d_p", Def("lppool1d", {0.0, J(2)}), "lppool1d: option `p must be positive, given 0"},
      {"lppool2d_missing", Def("lppool2d", {2.0}), "lppool2d: option `size required"},
      {"lppool2d_stride", Def("lppool2d", {2.0, J(2), J(0)}),
       "lppool2d: option `stride must be at least 1, given 0"},
      // normalization across channels
      {"localnorm_size", Def("localnorm", {J(0)}),
       "localnorm: option `size must be at least 1, given 0"},
      {"localnorm_missing", Def("localnorm"), "localnorm: option `size required"},
      {"crossmap2d_k", Def("crossmap2d", {J(3)}, {{"k", 1.5}}),
       "crossmap2d: option `k expects long, given double"},
      // embedding bags
      {"embedbag_mode", Def("embedbag", {J(10), J(3)}, {{"mode", Sym("median")}}),
       "embedbag: unrecognized mode `median, expecting mean, sum or max"},
      {"embedbag_max_sparse",
       Def("embedbag", {J(10), J(3)}, {{"mode", Sym("max")}, {"sparse", true}}),
       "embedbag: mode `max does not support sparse gradients"},
      {"embedbag_missing", Def("embedbag", {J(10)}), "embedbag: option `cols required"},
      {"embedbag_nine_positional",
       Def("embedbag", {J(10), J(3), nn::OptionValue{}, 2.0, false, Sym("sum"), false, J(0), true}),
       "embedbag: 9 positional option(s) given, expecting at most 8"},
      // resampling
      {"upsample_neither", Def("upsample"),
       "upsample: expecting one of options `size and `scale, given neither"},
      {"interpolate_both", Def("interpolate", {J(4), Ds({2})}),
       "interpolate: expecting one of options `size and `scale, given both"},
      {"upsample_mode", Def("upsample", {J(2)}, {{"mode", Sym("area")}}),
       "upsample: unrecognized mode `area, expecting nearest, linear, bilinear, bicubic or "
       "trilinear"},
      {"interpolate_mode", Def("interpolate", {J(2)}, {{"mode", Sym("cubic")}}),
       "interpolate: unrecognized mode `cubic, expecting nearest, linear, bilinear, bicubic, "
       "trilinear, nearestexact "
       "or area"},
      {"upsample_align", Def("upsample", {J(2)}, {{"align", true}}),
       "upsample: option `align applies to modes linear, bilinear, bicubic and trilinear, not "
       "`nearest"},
      {"upsample_scale_count",
       Def("upsample", {}, {{"scale", Ds({2, 2})}, {"mode", Sym("trilinear")}}),
       "upsample: option `scale expects 1 or 3 values for mode `trilinear, given 2"},
      {"upsample_scale", Def("upsample", {}, {{"scale", Ds({0})}}),
       "upsample: option `scale must be positive, given 0"},
      {"interpolate_size", Def("interpolate", {Js({4, 0})}),
       "interpolate: option `size must be at least 1, given 0"},
      {"interpolate_rescale", Def("interpolate", {J(4)}, {{"rescale", true}}),
       "interpolate: option `rescale needs `scale, not `size"},
      {"fold_missing", Def("fold", {J(4)}), "fold: option `size required"},
      {"fold_out_count", Def("fold", {Js({4, 4, 4}), J(2)}),
       "fold: option `out expects 1 or 2 longs, given 3"},
      {"unfold_stride", Def("unfold", {J(2)}, {{"stride", J(0)}}),
       "unfold: option `stride must be at least 1, given 0"},
      {"unfold_pad", Def("unfold", {J(2), J(1), J(-1)}),
       "unfold: option `pad must be at least 0, given -1"},
      // distances
      {"normalize_type", Def("normalize", {2.0, 1.0}),
       "normalize: option `dim expects long, given double"},
      {"pairwise_type", Def("pairwise", {Sym("a")}),
       "pairwise: option `p expects double, given symbol"},
      {"similar_type", Def("similar", {J(1), Sym("a")}),
       "similar: option `eps expects double, given symbol"},
      {"bilinear_missing", Def("bilinear", {J(3), J(4)}), "bilinear: option `out required"},
      {"bilinear_in", Def("bilinear", {J(0), J(4), J(2)}),
       "bilinear: option `in1 must be at least 1, given 0"},
      // padding
      {"pad2d_missing", Def("pad2d", {J(1)}), "pad2d: option `value required"},
      {"pad1d_count", Def("pad1d", {Js({1, 1, 1}), 0.0}),
       "pad1d: option `pad expects 1 or 2 longs, given 3"},
      {"reflect2d_count", Def("reflect2d", {Js({1, 1})}),
       "reflect2d: option `pad expects 1 or 4 longs, given 2"},
      {"replicate3d_type", Def("replicate3d", {1.0}),
       "replicate3d: option `pad expects long(s), given double"},
      {"zeropad2d_missing", Def("zeropad2d"), "zeropad2d: option `pad required"},
  };
}

INSTANTIATE_TEST_SUITE_P(Kinds, BadLayerKindsTest, ::testing::ValuesIn(BadCases()),
                         [](const ::testing::TestParamInfo<BadCase>& info) {
                           return info.param.label;
                         });

using LayerKindsTableTest = LeakCheckTest;

TEST_F(LayerKindsTableTest, OptionsInTheCatalogueOrder) {
  EXPECT_THAT(module_options("convtranspose2d"),
              ElementsAre("in", "out", "size", "stride", "pad", "outpad", "groups", "bias",
                          "dilate", "padmode"));
  EXPECT_THAT(module_options("fmaxpool3d"), ElementsAre("size", "outsize", "ratio"));
  EXPECT_THAT(module_options("lppool1d"), ElementsAre("p", "size", "stride", "ceiling"));
  EXPECT_THAT(module_options("crossmap2d"), ElementsAre("size", "alpha", "beta", "k"));
  EXPECT_THAT(module_options("embedbag"), ElementsAre("rows", "cols", "maxnorm", "p", "scale",
                                                      "mode", "sparse", "lastoffset", "padindex"));
  EXPECT_THAT(module_options("upsample"), ElementsAre("size", "scale", "mode", "align"));
  EXPECT_THAT(module_options("interpolate"),
              ElementsAre("size", "scale", "mode", "align", "rescale"));
  EXPECT_THAT(module_options("fold"), ElementsAre("out", "size", "dilate", "pad", "stride"));
  EXPECT_THAT(module_options("unfold"), ElementsAre("size", "dilate", "pad", "stride"));
  EXPECT_THAT(module_options("normalize"), ElementsAre("p", "dim", "eps"));
  EXPECT_THAT(module_options("pairwise"), ElementsAre("p", "eps", "keepdim"));
  EXPECT_THAT(module_options("similar"), ElementsAre("dim", "eps"));
  EXPECT_THAT(module_options("bilinear"), ElementsAre("in1", "in2", "out", "bias"));
  EXPECT_THAT(module_options("pad3d"), ElementsAre("pad", "value"));
  EXPECT_THAT(module_options("replicate1d"), ElementsAre("pad"));
}

TEST_F(LayerKindsTableTest, DefaultsShowInTheQuery) {
  auto scope = Scope::Open();
  const std::vector<ModuleRow> norm = describe(module(Def("localnorm", {J(2)})));
  EXPECT_EQ(norm[0].options[1].second, nn::OptionValue(1e-4));
  EXPECT_EQ(norm[0].options[2].second, nn::OptionValue(0.75));
  EXPECT_EQ(norm[0].options[3].second, nn::OptionValue(1.0));
  const std::vector<ModuleRow> bag = describe(module(Def("embedbag", {J(10), J(3)})));
  EXPECT_EQ(bag[0].options[5].second, Sym("mean"));
  EXPECT_EQ(describe(module(Def("upsample", {J(2)})))[0].options[2].second, Sym("nearest"));
  const std::vector<ModuleRow> similar = describe(module(Def("similar")));
  EXPECT_EQ(similar[0].options[0].second, J(1));
  EXPECT_EQ(similar[0].options[1].second, nn::OptionValue(1e-8));
  EXPECT_EQ(describe(module(Def("pairwise")), false)[0].options.size(), 0u);
}

TEST_F(LayerKindsTableTest, InputCountsAndLibtorchChecks) {
  auto scope = Scope::Open();
  const Handle bilinear = module(Def("bilinear", {J(3), J(4), J(2)}));
  EXPECT_EQ(ErrorOf([&] {
              forward(bilinear, Spread({5, 3}));
            }),
            "forward: `bilinear expects 2 inputs, given 1");
  const Handle bag = module(Def("embedbag", {J(10), J(3)}));
  const std::vector<Operand> three{at::zeros({4}, at::kLong), at::zeros({1}, at::kLong),
                                   at::ones({4})};
  EXPECT_EQ(ErrorOf([&] { forward(bag, three); }),
            "forward: `embedbag expects 1 to 2 inputs, given 3");
  // A bag of rows given as a matrix: one bag per row, as a sequential's child too.
  ModuleDefinition wrapped = Def("sequential");
  wrapped.children = {Def("embedbag", {J(10), J(3)})};
  const at::Tensor indices = at::randint(10, {2, 4});
  EXPECT_EQ(forward(module(wrapped), indices).tensor().sizes(), at::IntArrayRef({2, 3}));
  // libtorch's own checks at make time pass through.
  const std::size_t before = live_handles();
  EXPECT_THAT(ErrorOf([] {
                module(Def("convtranspose2d", {J(3), J(4), J(3)}, {{"groups", J(2)}}));
              }),
              HasSubstr("in_channels must be divisible by groups"));
  EXPECT_THAT(ErrorOf([] {
                module(Def("embedbag", {J(10), J(3)}, {{"padindex", J(10)}}));
              }),
              HasSubstr("Padding_idx must be within num_embeddings"));
  EXPECT_EQ(live_handles(), before);
}

}  // namespace layer_kinds_test
}  // namespace kscope::testing
