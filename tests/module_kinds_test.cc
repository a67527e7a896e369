// The module kind tables (api/nn/kinds/*.cc), one row per kind or option form: each
// module is made from a positional (and named) definition, run against the same computation
// written with ATen's functions and the module's own parameters, queried back with describe,
// and remade from the query, standalone and as a sequential's child, to give the same query and
// the same output. Bad options fail when the module is made, naming the kind, and leave no
// handle behind.
#include <cmath>
#include <limits>

#include "api/nn/module.h"
#include "api/nn/options.h"
#include "tests/error_text.h"
#include "tests/module_case.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace module_kinds_test {

using testing::BadCase;
using testing::Def;
using testing::ErrorOf;
using ::testing::HasSubstr;
using testing::J;
using testing::Js;
using testing::KindCase;
using testing::LeakCheckTest;
using testing::Parms;
using testing::Sym;

// (x - mean) / sqrt(biased variance + eps) over `dims, as batch, instance, group and layer
// normalization compute it.
at::Tensor Normalized(const at::Tensor& x, at::IntArrayRef dims, double eps) {
  const at::Tensor centered = x - x.mean(dims, true);
  return centered / at::sqrt(centered.pow(2).mean(dims, true) + eps);
}

// A per-channel parameter shaped to broadcast over x's channel dimension 1.
at::Tensor PerChannel(const at::Tensor& p, const at::Tensor& x) {
  std::vector<std::int64_t> shape(x.dim(), 1);
  shape[1] = p.numel();
  return p.view(shape);
}

// x wrapped around by `pad on each side of its last two dimensions (circular padding).
at::Tensor Circular(const at::Tensor& x, std::int64_t pad) {
  at::Tensor y = x;
  for (std::int64_t d : {-1, -2}) {
    const std::int64_t n = y.size(d);
    y = at::cat({y.narrow(d, n - pad, pad), y, y.narrow(d, 0, pad)}, d);
  }
  return y;
}

at::Tensor Identity(const Parms&, const at::Tensor& x) { return x; }

std::vector<KindCase> ActivationCases() {
  using P = const Parms&;
  using X = const at::Tensor&;
  return {
      {"relu", Def("relu"), {4, 6}, [](P, X x) { return at::clamp_min(x, 0); }},
      {"relu_inplace", Def("relu", {true}), {4, 6}, [](P, X x) { return at::clamp_min(x, 0); }},
      {"relu6", Def("relu6"), {4, 6}, [](P, X x) { return at::clamp(x, 0, 6); }},
      {"relu6_inplace", Def("relu6", {true}), {4, 6}, [](P, X x) { return at::clamp(x, 0, 6); }},
      {"selu",
       Def("selu"),
       {4, 6},
       [](P, X x) {
         const double alpha = 1.6732632423543772, scale = 1.0507009873554805;
         return scale * at::where(x > 0, x, alpha * (at::exp(x) - 1));
       }},
      {"elu",
       Def("elu", {0.5}),
       {4, 6},
       [](P, X x) { return at::where(x > 0, x, 0.5 * (at::exp(x) - 1)); }},
      {"celu",
       Def("celu", {2.0}),
       {4, 6},
       [](P, X x) { return at::where(x > 0, x, 2 * (at::exp(x / 2) - 1)); }},
      {"leakyrelu",
       Def("leakyrelu", {0.2}),
       {4, 6},
       [](P, X x) { return at::where(x > 0, x, 0.2 * x); }},
      {"prelu",
       Def("prelu", {J(3), 0.1}),
       {2, 3, 4},
       [](P, X x) { return at::where(x > 0, x, 0.1 * x); }},
      {"prelu_parameter",
       Def("prelu"),
       {2, 3, 4},
       [](P p, X x) { return at::where(x > 0, x, p.at("weight") * x); }},
      {"rrelu_eval",
       Def("rrelu", {0.1, 0.3}),
       {4, 6},
       [](P, X x) { return at::where(x > 0, x, 0.2 * x); },
       true},
      {"hardtanh",
       Def("hardtanh", {-0.5, 0.5}),
       {4, 6},
       [](P, X x) { return at::clamp(x, -0.5, 0.5); }},
      {"hardshrink",
       Def("hardshrink", {0.3}),
       {4, 6},
       [](P, X x) { return at::where(x.abs() > 0.3, x, 0); }},
      {"softshrink",
       Def("softshrink", {0.3}),
       {4, 6},
       [](P, X x) { return at::where(x > 0.3, x - 0.3, at::where(x < -0.3, x + 0.3, 0)); }},
      {"softplus",
       Def("softplus", {2.0, 1.0}),
       {4, 6},
       [](P, X x) { return at::where(2 * x > 1, x, at::log1p(at::exp(2 * x)) / 2); }},
      {"threshold",
       Def("threshold", {0.1, 20.0}),
       {4, 6},
       [](P, X x) { return at::where(x > 0.1, x, 20); }},
      {"glu",
       Def("glu"),
       {4, 6},
       [](P, X x) { return x.narrow(-1, 0, 3) * at::sigmoid(x.narrow(-1, 3, 3)); }},
      {"glu_dim0",
       Def("glu", {J(0)}),
       {4, 6},
       [](P, X x) { return x.narrow(0, 0, 2) * at::sigmoid(x.narrow(0, 2, 2)); }},
      {"softmax",
       Def("softmax", {J(1)}),
       {4, 6},
       [](P, X x) { return at::exp(x) / at::exp(x).sum(1, true); }},
      {"softmin",
       Def("softmin", {J(0)}),
       {4, 6},
       [](P, X x) { return at::exp(-x) / at::exp(-x).sum(0, true); }},
      {"logsoftmax",
       Def("logsoftmax", {J(1)}),
       {4, 6},
       [](P, X x) { return x - at::log(at::exp(x).sum(1, true)); }},
      {"sigmoid", Def("sigmoid"), {4, 6}, [](P, X x) { return 1 / (1 + at::exp(-x)); }},
      {"tanh", Def("tanh"), {4, 6}, [](P, X x) { return at::tanh(x); }},
      {"softmax2d", Def("softmax2d"), {2, 3, 4, 5}, [](P, X x) { return at::softmax(x, -3); }},
      {"gelu",
       Def("gelu"),
       {4, 6},
       [](P, X x) { return x * (1 + at::erf(x / std::sqrt(2.0))) / 2; }},
      {"logsigmoid",
       Def("logsigmoid"),
       {4, 6},
       [](P, X x) { return at::log(1 / (1 + at::exp(-x))); }},
      {"softsign", Def("softsign"), {4, 6}, [](P, X x) { return x / (1 + x.abs()); }},
      {"tanhshrink", Def("tanhshrink"), {4, 6}, [](P, X x) { return x - at::tanh(x); }},
      {"silu", Def("silu"), {4, 6}, [](P, X x) { return x / (1 + at::exp(-x)); }},
      {"mish", Def("mish"), {4, 6}, [](P, X x) { return x * at::tanh(at::log1p(at::exp(x))); }},
  };
}

std::vector<KindCase> CoreAndDropoutCases() {
  using P = const Parms&;
  using X = const at::Tensor&;
  return {
      {"identity", Def("identity"), {4, 6}, Identity},
      {"linear",
       Def("linear", {J(6), J(3)}),
       {4, 6},
       [](P p, X x) { return x.matmul(p.at("weight").t()) + p.at("bias"); }},
      {"flatten",
       Def("flatten"),
       {2, 3, 4},
       [](P, X x) {
         return x.reshape({2, 12});
       }},
      {"flatten_named",
       Def("flatten", {}, {{"start", J(0)}, {"end", J(1)}}),
       {2, 3, 4},
       [](P, X x) {
         return x.reshape({6, 4});
       }},
      {"drop_eval", Def("drop"), {4, 6}, Identity, true},
      {"drop_all", Def("drop", {1.0}), {4, 6}, [](P, X x) { return at::zeros_like(x); }},
      {"drop2d_eval", Def("drop2d"), {2, 3, 4, 4}, Identity, true},
      {"drop2d_none", Def("drop2d", {0.0}), {2, 3, 4, 4}, Identity},
      {"drop3d_eval", Def("drop3d", {0.2, true}), {2, 3, 2, 2, 2}, Identity, true},
      {"drop3d_all",
       Def("drop3d", {1.0}),
       {2, 3, 2, 2, 2},
       [](P, X x) { return at::zeros_like(x); }},
      {"adrop_eval", Def("adrop"), {4, 6}, Identity, true},
      {"adrop_none", Def("adrop", {0.0}), {4, 6}, Identity},
      {"fadrop_eval", Def("fadrop", {0.3}), {2, 3, 4, 4}, Identity, true},
      {"fadrop_none", Def("fadrop", {0.0}), {2, 3, 4, 4}, Identity},
  };
}

std::vector<KindCase> ConvCases() {
  using P = const Parms&;
  using X = const at::Tensor&;
  return {
      {"conv1d",
       Def("conv1d", {J(2), J(4), J(3)}),
       {2, 2, 10},
       [](P p, X x) { return at::conv1d(x, p.at("weight"), p.at("bias")); }},
      {"conv2d_stride_pad",
       Def("conv2d", {J(4), J(6), J(3), J(2), J(1)}),
       {2, 4, 9, 9},
       [](P p, X x) { return at::conv2d(x, p.at("weight"), p.at("bias"), 2, 1); }},
      {"conv2d_lists",
       Def("conv2d", {J(4), J(6), Js({3, 2}), J(1), Js({1, 0}), Js({2, 1}), J(2), false}),
       {2, 4, 10, 10},
       [](P p, X x) {
         return at::conv2d(x, p.at("weight"), {}, 1, {1, 0}, {2, 1}, 2);
       }},
      {"conv2d_same",
       Def("conv2d", {J(4), J(4), J(3)}, {{"pad", Sym("same")}, {"dilate", J(2)}}),
       {2, 4, 9, 9},
       [](P p, X x) { return at::conv2d(x, p.at("weight"), p.at("bias"), 1, 2, 2); }},
      {"conv2d_valid",
       Def("conv2d", {J(4), J(4), J(3), J(1), Sym("valid")}),
       {2, 4, 9, 9},
       [](P p, X x) { return at::conv2d(x, p.at("weight"), p.at("bias")); }},
      {"conv2d_reflect",
       Def("conv2d", {J(4), J(4), J(3)}, {{"pad", J(1)}, {"padmode", Sym("reflect")}}),
       {2, 4, 9, 9},
       [](P p, X x) {
         return at::conv2d(at::reflection_pad2d(x, {1, 1, 1, 1}), p.at("weight"), p.at("bias"));
       }},
      {"conv2d_circular",
       Def("conv2d", {J(4), J(4), J(3)}, {{"pad", J(1)}, {"padmode", Sym("circular")}}),
       {2, 4, 9, 9},
       [](P p, X x) { return at::conv2d(Circular(x, 1), p.at("weight"), p.at("bias")); }},
      {"conv3d",
       Def("conv3d", {J(2), J(3), Js({3, 3, 1}), J(1), Js({1, 1, 0})}),
       {1, 2, 5, 5, 4},
       [](P p, X x) {
         return at::conv3d(x, p.at("weight"), p.at("bias"), 1, {1, 1, 0});
       }},
      {"conv3d_replicate",
       Def("conv3d", {J(2), J(3), J(3)}, {{"pad", J(1)}, {"padmode", Sym("replicate")}}),
       {1, 2, 5, 5, 5},
       [](P p, X x) {
         return at::conv3d(at::replication_pad3d(x, {1, 1, 1, 1, 1, 1}), p.at("weight"),
                           p.at("bias"));
       }},
  };
}

std::vector<KindCase> PoolCases() {
  using P = const Parms&;
  using X = const at::Tensor&;
  return {
      {"maxpool1d",
       Def("maxpool1d", {J(3)}),
       {2, 3, 10},
       [](P, X x) { return at::max_pool1d(x, 3, 3); }},
      {"maxpool2d",
       Def("maxpool2d", {J(3), J(2), J(1), J(1), true}),
       {2, 3, 9, 9},
       [](P, X x) { return at::max_pool2d(x, 3, 2, 1, 1, true); }},
      {"maxpool2d_dilate",
       Def("maxpool2d", {Js({2, 3}), J(1)}, {{"dilate", J(2)}}),
       {2, 3, 9, 9},
       [](P, X x) {
         return at::max_pool2d(x, {2, 3}, 1, 0, 2);
       }},
      {"maxpool3d",
       Def("maxpool3d", {J(2)}),
       {1, 2, 6, 6, 6},
       [](P, X x) { return at::max_pool3d(x, 2, 2); }},
      {"avgpool1d",
       Def("avgpool1d", {J(3), J(2), J(1)}),
       {2, 3, 10},
       [](P, X x) { return at::avg_pool1d(x, 3, 2, 1); }},
      {"avgpool2d",
       Def("avgpool2d", {J(3), J(2), J(1), false, false}),
       {2, 3, 9, 9},
       [](P, X x) { return at::avg_pool2d(x, 3, 2, 1, false, false); }},
      {"avgpool2d_divisor",
       Def("avgpool2d", {J(2)}, {{"divisor", J(3)}}),
       {2, 3, 8, 8},
       [](P, X x) { return at::avg_pool2d(x, 2, 2, 0, false, true, 3); }},
      {"avgpool3d",
       Def("avgpool3d", {J(2)}, {{"ceiling", true}}),
       {1, 2, 5, 5, 5},
       [](P, X x) { return at::avg_pool3d(x, 2, 2, 0, true); }},
      {"adaptavg1d",
       Def("adaptavg1d", {J(4)}),
       {2, 3, 10},
       [](P, X x) { return at::adaptive_avg_pool1d(x, 4); }},
      {"adaptavg2d",
       Def("adaptavg2d", {Js({3, 2})}),
       {2, 3, 9, 8},
       [](P, X x) {
         return at::adaptive_avg_pool2d(x, {3, 2});
       }},
      {"adaptavg3d",
       Def("adaptavg3d", {J(2)}),
       {1, 2, 5, 5, 5},
       [](P, X x) {
         return at::adaptive_avg_pool3d(x, {2, 2, 2});
       }},
      {"adaptmax1d",
       Def("adaptmax1d", {J(4)}),
       {2, 3, 10},
       [](P, X x) { return std::get<0>(at::adaptive_max_pool1d(x, 4)); }},
      {"adaptmax2d",
       Def("adaptmax2d", {Js({3, 2})}),
       {2, 3, 9, 8},
       [](P, X x) {
         return std::get<0>(at::adaptive_max_pool2d(x, {3, 2}));
       }},
      {"adaptmax3d",
       Def("adaptmax3d", {J(2)}),
       {1, 2, 5, 5, 5},
       [](P, X x) {
         return std::get<0>(at::adaptive_max_pool3d(x, {2, 2, 2}));
       }},
  };
}

std::vector<KindCase> NormAndEmbedCases() {
  using P = const Parms&;
  using X = const at::Tensor&;
  // Batch statistics over every dimension but the channels, scaled and shifted per channel.
  auto batch = [](P p, X x) {
    std::vector<std::int64_t> dims{0};
    for (std::int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
    return Normalized(x, dims, 1e-5) * PerChannel(p.at("weight"), x) + PerChannel(p.at("bias"), x);
  };
  return {
      {"batchnorm1d", Def("batchnorm1d", {J(4)}), {8, 4}, batch},
      {"batchnorm2d_eval",
       Def("batchnorm2d", {J(3), 1e-3, 0.2, false}),
       {2, 3, 4, 4},
       [](P, X x) { return x / std::sqrt(1 + 1e-3); },
       true},
      {"batchnorm3d", Def("batchnorm3d", {J(2)}), {2, 2, 3, 3, 3}, batch},
      {"instancenorm1d",
       Def("instancenorm1d", {J(3)}),
       {2, 3, 8},
       [](P, X x) { return Normalized(x, {2}, 1e-5); }},
      {"instancenorm2d_affine",
       Def("instancenorm2d", {J(3), 1e-3}, {{"affine", true}}),
       {2, 3, 4, 4},
       [](P p, X x) {
         return Normalized(x, {2, 3}, 1e-3) * PerChannel(p.at("weight"), x) +
                PerChannel(p.at("bias"), x);
       }},
      {"instancenorm3d",
       Def("instancenorm3d", {J(2)}),
       {1, 2, 3, 3, 3},
       [](P, X x) {
         return Normalized(x, {2, 3, 4}, 1e-5);
       }},
      {"groupnorm",
       Def("groupnorm", {J(2), J(4)}),
       {2, 4, 3, 3},
       [](P p, X x) {
         const at::Tensor y = Normalized(x.reshape({2, 2, -1}), {2}, 1e-5).reshape(x.sizes());
         return y * PerChannel(p.at("weight"), x) + PerChannel(p.at("bias"), x);
       }},
      {"layernorm",
       Def("layernorm", {Js({3, 4})}),
       {2, 3, 4},
       [](P p, X x) {
         return Normalized(x, {1, 2}, 1e-5) * p.at("weight") + p.at("bias");
       }},
      {"layernorm_plain",
       Def("layernorm", {J(4), 1e-3, false}),
       {2, 3, 4},
       [](P, X x) { return Normalized(x, {2}, 1e-3); }},
      {"embed",
       Def("embed", {J(10), J(3)}),
       {2, 5},
       [](P p, X x) { return p.at("weight").index({x}); },
       false,
       10},
      {"embed_padindex",
       Def("embed", {J(10), J(3), J(0)}),
       {2, 5},
       [](P p, X x) { return p.at("weight").index({x}) * (x != 0).unsqueeze(-1); },
       false,
       10},
      {"embed_maxnorm",
       Def("embed", {J(10), J(3)}, {{"maxnorm", 1.0}}),
       {2, 5},
       [](P p, X x) {
         const at::Tensor rows = p.at("weight").index({x});
         const at::Tensor norm = rows.norm(2, -1, true);
         return rows * at::where(norm > 1, 1 / (norm + 1e-7), at::ones_like(norm));
       },
       false,
       10},
  };
}

std::vector<KindCase> AllCases() {
  std::vector<KindCase> all;
  for (auto family :
       {ActivationCases, CoreAndDropoutCases, ConvCases, PoolCases, NormAndEmbedCases}) {
    for (KindCase& c : family()) all.push_back(std::move(c));
  }
  return all;
}

class ModuleKindsTest : public LeakCheckTest, public ::testing::WithParamInterface<KindCase> {};

TEST_P(ModuleKindsTest, MatchesLibtorchAndRoundTripsThroughDescribe) {
  ExpectMatchesLibtorchAndRoundTrips(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Kinds, ModuleKindsTest, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<KindCase>& info) {
                           return info.param.label;
                         });

class BadModuleKindsTest : public LeakCheckTest, public ::testing::WithParamInterface<BadCase> {};

TEST_P(BadModuleKindsTest, FailsWhenMadeNamingTheKind) { ExpectFailsNamingTheKind(GetParam()); }

std::vector<BadCase> BadCases() {
  return {
      // activations
      {"threshold_type", Def("threshold", {Sym("a"), 1.0}),
       "threshold: option `threshold expects double, given symbol"},
      {"threshold_missing", Def("threshold", {0.1}), "threshold: option `value required"},
      {"softmin_missing", Def("softmin"), "softmin: option `dim required"},
      {"prelu_in", Def("prelu", {J(0)}), "prelu: option `in must be at least 1, given 0"},
      {"rrelu_bounds", Def("rrelu", {0.5, 0.1}),
       "rrelu: option `lower must not exceed `upper, given 0.5 and 0.1"},
      {"celu_alpha", Def("celu", {0.0}), "celu: option `alpha must not be 0"},
      {"softshrink_lambda", Def("softshrink", {-1.0}),
       "softshrink: option `lambda must be at least 0, given -1"},
      // dropout (no required options)
      {"drop2d_type", Def("drop2d", {Sym("a")}), "drop2d: option `p expects double, given symbol"},
      {"fadrop_inplace_type", Def("fadrop", {0.5, J(1)}),
       "fadrop: option `inplace expects boolean, given long"},
      // convolutions
      {"conv2d_type", Def("conv2d", {J(1), J(2), 3.0}),
       "conv2d: option `size expects long(s), given double"},
      {"conv2d_missing", Def("conv2d", {J(1), J(2)}), "conv2d: option `size required"},
      {"conv2d_pad_type", Def("conv2d", {J(1), J(2), J(3), J(1), 1.5}),
       "conv2d: option `pad expects long(s) or symbol, given double"},
      {"conv1d_size_count", Def("conv1d", {J(1), J(2), Js({3, 3})}),
       "conv1d: option `size expects 1 long, given 2"},
      {"conv3d_stride_count", Def("conv3d", {J(1), J(2), J(3), Js({1, 1})}),
       "conv3d: option `stride expects 1 or 3 longs, given 2"},
      {"conv2d_pad_symbol", Def("conv2d", {J(1), J(2), J(3), J(1), Sym("full")}),
       "conv2d: unrecognized pad `full, expecting same or valid"},
      {"conv2d_padmode", Def("conv2d", {J(1), J(2), J(3)}, {{"padmode", Sym("mirror")}}),
       "conv2d: unrecognized padmode `mirror, expecting zeros, reflect, replicate or circular"},
      {"conv2d_groups", Def("conv2d", {J(2), J(2), J(3)}, {{"groups", J(0)}}),
       "conv2d: option `groups must be at least 1, given 0"},
      {"conv2d_stride", Def("conv2d", {J(2), J(2), J(3), Js({1, 0})}),
       "conv2d: option `stride must be at least 1, given 0"},
      {"conv1d_pad", Def("conv1d", {J(2), J(2), J(3), J(1), J(-1)}),
       "conv1d: option `pad must be at least 0, given -1"},
      // pooling
      {"maxpool2d_type", Def("maxpool2d", {J(2), true}),
       "maxpool2d: option `stride expects long(s) or null, given boolean"},
      {"avgpool2d_missing", Def("avgpool2d"), "avgpool2d: option `size required"},
      {"maxpool2d_pad", Def("maxpool2d", {J(2), J(2), Js({1, 2})}),
       "maxpool2d: option `pad must be at most half of `size, given pad 2 and size 2"},
      {"maxpool1d_dilate", Def("maxpool1d", {J(2)}, {{"dilate", J(0)}}),
       "maxpool1d: option `dilate must be at least 1, given 0"},
      {"avgpool3d_size", Def("avgpool3d", {J(0)}),
       "avgpool3d: option `size must be at least 1, given 0"},
      {"avgpool2d_divisor", Def("avgpool2d", {J(2)}, {{"divisor", J(0)}}),
       "avgpool2d: option `divisor must not be 0"},
      {"adaptmax2d_size", Def("adaptmax2d", {Js({2, -1})}),
       "adaptmax2d: option `size must be at least 0, given -1"},
      {"adaptavg3d_type", Def("adaptavg3d", {2.0}),
       "adaptavg3d: option `size expects long(s), given double"},
      // normalization
      {"batchnorm2d_type", Def("batchnorm2d", {Sym("a")}),
       "batchnorm2d: option `in expects long, given symbol"},
      {"instancenorm1d_missing", Def("instancenorm1d"), "instancenorm1d: option `in required"},
      {"groupnorm_missing", Def("groupnorm", {J(2)}), "groupnorm: option `channels required"},
      {"groupnorm_divisible", Def("groupnorm", {J(3), J(4)}),
       "groupnorm: option `channels must be divisible by `groups, given 4 and 3"},
      {"groupnorm_groups", Def("groupnorm", {J(0), J(4)}),
       "groupnorm: option `groups must be at least 1, given 0"},
      {"layernorm_type", Def("layernorm", {1.5}),
       "layernorm: option `shape expects long(s), given double"},
      {"layernorm_shape", Def("layernorm", {Js({3, -1})}, {{"affine", false}}),
       "layernorm: option `shape must be at least 0, given -1"},
      // embedding
      {"embed_type", Def("embed", {J(10), 3.5}), "embed: option `cols expects long, given double"},
      {"embed_missing", Def("embed", {J(10)}), "embed: option `cols required"},
      {"embed_maxnorm_type", Def("embed", {J(10), J(3)}, {{"maxnorm", Sym("a")}}),
       "embed: option `maxnorm expects double or null, given symbol"},
  };
}

INSTANTIATE_TEST_SUITE_P(Kinds, BadModuleKindsTest, ::testing::ValuesIn(BadCases()),
                         [](const ::testing::TestParamInfo<BadCase>& info) {
                           return info.param.label;
                         });

using KindTableTest = LeakCheckTest;

TEST_F(KindTableTest, ValuesLibtorchRejectsFailWhenMade) {
  // libtorch's own checks run when the module is made; its message passes through.
  const std::size_t before = live_handles();
  EXPECT_THAT(ErrorOf([] {
                module(Def("hardtanh", {1.0, -1.0}));
              }),
              HasSubstr("max_val must be greater than min_val"));
  EXPECT_THAT(ErrorOf([] { module(Def("drop2d", {2.0})); }),
              HasSubstr("dropout probability has to be between 0 and 1"));
  EXPECT_THAT(ErrorOf([] {
                module(Def("conv2d", {J(3), J(4), J(3)}, {{"groups", J(2)}}));
              }),
              HasSubstr("in_channels must be divisible by groups"));
  EXPECT_THAT(ErrorOf([] {
                module(Def("conv2d", {J(4), J(4), J(3), J(2), Sym("same")}));
              }),
              HasSubstr("padding='same' is not supported for strided convolutions"));
  EXPECT_THAT(ErrorOf([] {
                module(Def("embed", {J(10), J(3), J(10)}));
              }),
              HasSubstr("Padding_idx must be within num_embeddings"));
  EXPECT_EQ(live_handles(), before);
}

TEST_F(KindTableTest, DefaultsShowInTheQuery) {
  auto scope = Scope::Open();
  const std::vector<ModuleRow> conv = describe(module(Def("conv2d", {J(1), J(2), J(3)})));
  ASSERT_EQ(conv.size(), 1u);
  std::vector<std::string> names;
  for (const auto& [name, value] : conv[0].options) names.push_back(name);
  EXPECT_THAT(names, ::testing::ElementsAre("in", "out", "size", "stride", "pad", "dilate",
                                            "groups", "bias", "padmode"));
  EXPECT_EQ(conv[0].options[4].second, J(0));  // per dimension: one number when all agree
  EXPECT_EQ(conv[0].options[8].second, Sym("zeros"));
  const std::vector<ModuleRow> pool = describe(module(Def("maxpool2d", {J(3)})), false);
  ASSERT_EQ(pool[0].options.size(), 1u);  // only `size: the stride follows it while null
  // avgpool's divisor: none, echoed as q's long null (0N) as ktorch does
  EXPECT_EQ(describe(module(Def("avgpool1d", {J(2)})))[0].options[5].second,
            J(std::numeric_limits<std::int64_t>::min()));
  const std::vector<ModuleRow> norm = describe(module(Def("instancenorm2d", {J(3)})));
  EXPECT_EQ(norm[0].options[3].second, nn::OptionValue(false));  // affine
  EXPECT_EQ(norm[0].options[4].second, nn::OptionValue(false));  // track
  const std::vector<ModuleRow> rrelu = describe(module(Def("rrelu")));
  EXPECT_EQ(rrelu[0].options[0].second, nn::OptionValue(1.0 / 8));
  EXPECT_EQ(rrelu[0].options[1].second, nn::OptionValue(1.0 / 3));
}

// A kind's code reads its options by type; reading one as another type is a kscope::Error naming
// the kind and the option, not a std::bad_variant_access.
TEST_F(KindTableTest, OptionsReadAsAnotherTypeFailNamingTheOption) {
  const nn::OptionSpec specs[] = {{"in", nn::OptionType::kLong, std::int64_t{1}},
                                  {"fn", nn::OptionType::kSymbol, std::string("relu")}};
  const nn::OptionSet o = nn::OptionSet::Parse("probe", specs, {std::int64_t{3}}, {});
  EXPECT_EQ(o.Long("in"), 3);
  EXPECT_EQ(o.Symbol("fn"), "relu");
  EXPECT_EQ(ErrorOf([&] { o.Double("in"); }), "probe: option `in read as double, holds long");
  EXPECT_EQ(ErrorOf([&] { o.Longs("fn"); }), "probe: option `fn read as long list, holds symbol");
  EXPECT_EQ(ErrorOf([&] { o.Bool("out"); }), "probe: no option `out");
}

}  // namespace module_kinds_test
}  // namespace kscope
