// The k-api layers (api/nn/kinds/ktorch_shape.cc, ktorch_transform.cc, ktorch_embed.cc,
// self_attention.cc): each kind made from a definition, run against the same computation
// written with ATen (attention against libtorch's functional multi-head attention), queried back
// and remade from the query; bad options failing when made, naming the kind; random layers
// passing their input through outside training and drawing from the seeded generator in it.
#include <algorithm>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <torch/nn/functional/activation.h>

#include "tests/module_case.h"

namespace kscope {
namespace ktorch_layers_test {

using testing::BadCase;
using testing::Bools;
using testing::Def;
using testing::ErrorOf;
using testing::J;
using testing::Js;
using testing::KindCase;
using testing::LeakCheckTest;
using testing::Parms;
using testing::Spread;
using testing::Sym;

using P = const Parms&;
using X = const at::Tensor&;

nn::OptionValue Ds(std::initializer_list<double> v) { return std::vector<double>(v); }

at::Tensor Identity(P, X x) { return x; }

// x wrapped around by one element on each side of dimension d.
at::Tensor WrapOne(X x, std::int64_t d) {
  return at::cat({x.narrow(d, x.size(d) - 1, 1), x, x.narrow(d, 0, 1)}, d);
}

// libtorch's multi-head attention of batch-first x with selfattention's parameters `p (after the
// pre-LayerNorm when `norm), with an optional additive attention mask and boolean key padding
// mask.
at::Tensor Attention(P p, X x, std::int64_t heads, bool norm, X mask = {}, X padmask = {}) {
  namespace F = torch::nn::functional;
  const std::int64_t dim = x.size(2);
  const at::Tensor y = norm ? at::layer_norm(x, {dim}, p.at("norm.weight"), p.at("norm.bias")) : x;
  const at::Tensor in_bias = p.count("in.bias") ? p.at("in.bias") : at::Tensor();
  const at::Tensor seq = y.transpose(0, 1);
  auto options =
      F::MultiheadAttentionForwardFuncOptions(dim, heads, p.at("in.weight"), in_bias, {}, {}, false,
                                              0.0, p.at("out.weight"), p.at("out.bias"))
          .training(false)
          .attn_mask(mask)
          .key_padding_mask(padmask);
  return std::get<0>(F::multi_head_attention_forward(seq, seq, seq, options)).transpose(0, 1);
}

std::vector<KindCase> ShapeCases() {
  return {
      {"expand",
       Def("expand", {Js({3, -1})}),
       {1, 4},
       [](P, X x) {
         return x.repeat({3, 1});
       }},
      {"reshape",
       Def("reshape", {Js({-1, 2, 3})}),
       {4, 6},
       [](P, X x) {
         return x.view({4, 2, 3});
       }},
      {"permute",
       Def("permute", {Js({2, 0, 1})}),
       {2, 3, 4},
       [](P, X x) {
         return x.permute({2, 0, 1});
       }},
      {"transpose", Def("transpose"), {2, 3, 4}, [](P, X x) { return x.transpose(1, 2); }},
      {"transpose_named",
       Def("transpose", {}, {{"dim0", J(0)}, {"dim1", J(2)}}),
       {2, 3, 4},
       [](P, X x) { return x.transpose(0, 2); }},
      {"squeeze",
       Def("squeeze"),
       {2, 1, 3, 1},
       [](P, X x) {
         return x.reshape({2, 3});
       }},
      {"squeeze_dim_inplace",
       Def("squeeze", {J(1), true}),
       {2, 1, 3, 1},
       [](P, X x) {
         return x.reshape({2, 3, 1});
       }},
      {"unsqueeze",
       Def("unsqueeze", {J(1)}),
       {2, 3},
       [](P, X x) {
         return x.reshape({2, 1, 3});
       }},
      {"unsqueeze_inplace",
       Def("unsqueeze", {J(-1)}, {{"inplace", true}}),
       {2, 3},
       [](P, X x) {
         return x.reshape({2, 3, 1});
       }},
      {"select",
       Def("select", {J(1), J(2)}),
       {3, 4},
       [](P, X x) { return x.narrow(1, 2, 1).reshape({3}); }},
      {"select_last",
       Def("select", {J(0), J(-1)}),
       {3, 4},
       [](P, X x) { return x.narrow(0, 2, 1).reshape({4}); }},
      {"indexselect",
       Def("indexselect", {J(1), Js({3, 0, 3})}),
       {3, 4},
       [](P, X x) {
         return at::stack({x.select(1, 3), x.select(1, 0), x.select(1, 3)}, 1);
       }},
  };
}

std::vector<KindCase> TransformCases() {
  // (x - mean) / std per channel of a 4-d input.
  auto zscore = [](P, X x) {
    return (x - at::tensor({1.0, 2.0, 3.0}, at::kFloat).view({1, 3, 1, 1})) /
           at::tensor({2.0, 4.0, 8.0}, at::kFloat).view({1, 3, 1, 1});
  };
  return {
      {"onehot",
       Def("onehot", {J(5)}),
       {2, 3},
       [](P, X x) { return (x.unsqueeze(-1) == at::arange(5)).to(at::kFloat); },
       false,
       5},
      {"onehot_double",
       Def("onehot", {J(4), Sym("double")}),
       {6},
       [](P, X x) { return (x.unsqueeze(-1) == at::arange(4)).to(at::kDouble); },
       false,
       4},
      {"pad",
       Def("pad", {Js({1, 2}), Sym("constant"), 0.5}),
       {2, 3},
       [](P, X x) {
         return at::cat({at::full({2, 1}, 0.5), x, at::full({2, 2}, 0.5)}, 1);
       }},
      {"pad_reflect",
       Def("pad", {Js({1, 1, 2, 2})}, {{"mode", Sym("reflect")}}),
       {1, 2, 4, 4},
       [](P, X x) {
         return at::reflection_pad2d(x, {1, 1, 2, 2});
       }},
      {"pad_replicate",
       Def("pad", {Js({1, 1})}, {{"mode", Sym("replicate")}}),
       {1, 2, 5},
       [](P, X x) {
         return at::replication_pad1d(x, {1, 1});
       }},
      {"pad_circular",
       Def("pad", {Js({1, 1, 1, 1}), Sym("circular")}),
       {1, 2, 4, 4},
       [](P, X x) { return WrapOne(WrapOne(x, -1), -2); }},
      {"randomcrop_eval", Def("randomcrop", {J(2), J(1)}), {1, 3, 4, 4}, Identity, true},
      {"randomcrop_whole",
       Def("randomcrop", {Js({6, 5})}, {{"pad", J(1)}, {"value", 2.0}}),
       {2, 3, 4, 3},
       [](P, X x) {
         return at::constant_pad_nd(x, {1, 1, 1, 1}, 2.0);
       }},
      {"randomcrop_unpadded", Def("randomcrop", {J(4)}), {3, 4, 4}, Identity},
      {"randomcrop_reflect",
       Def("randomcrop", {Js({6, 7}), Js({2, 1, 1, 1}), Sym("reflect")}),
       {1, 2, 4, 4},
       [](P, X x) {
         return at::reflection_pad2d(x, {2, 1, 1, 1});
       }},
      {"randomflip_eval", Def("randomflip", {1.0}), {2, 3}, Identity, true},
      {"randomflip_always", Def("randomflip", {1.0}), {2, 3}, [](P, X x) { return x.flip(-1); }},
      {"randomflip_dim0", Def("randomflip", {1.0, J(0)}), {2, 3}, [](P, X x) { return x.flip(0); }},
      {"randomflip_never", Def("randomflip", {0.0}), {2, 3}, Identity},
      {"zscore", Def("zscore", {Ds({1, 2, 3}), Ds({2, 4, 8})}), {2, 3, 4, 4}, zscore},
      {"zscore_inplace_2d",
       Def("zscore", {Ds({1, 2, 3}), Ds({2, 4, 8}), true}),
       {5, 3},
       [](P, X x) {
         return (x - at::tensor({1.0, 2.0, 3.0}, at::kFloat)) /
                at::tensor({2.0, 4.0, 8.0}, at::kFloat);
       }},
      {"zscore_one_value",
       Def("zscore", {Ds({0.5}), Js({2})}),
       {2, 3, 2, 2},
       [](P, X x) { return (x - 0.5) / 2; }},
      {"zscore_atoms",
       Def("zscore", {0.5, 2.0}),
       {2, 3, 2, 2},
       [](P, X x) { return (x - 0.5) / 2; }},
      {"droppath_eval", Def("droppath", {0.5}), {4, 3}, Identity, true},
      {"droppath_none", Def("droppath", {0.0}), {4, 3}, Identity},
  };
}

std::vector<KindCase> EmbedAndAttentionCases() {
  return {
      {"embedpos",
       Def("embedpos", {J(10), J(4)}),
       {2, 6, 4},
       [](P p, X) { return p.at("pos").narrow(1, 0, 6); }},
      {"embedpos_tokens",
       Def("embedpos", {J(6), J(4)}),
       {2, 6},
       [](P p, X) { return p.at("pos"); },
       false,
       10},
      {"embedseq",
       Def("embedseq", {J(10), J(4), J(8)}),
       {2, 6},
       [](P p, X x) { return p.at("tok.weight").index({x}) + p.at("pos.pos").narrow(1, 0, 6); },
       false,
       10},
      {"selfattention",
       Def("selfattention", {J(8), J(2)}),
       {2, 5, 8},
       [](P p, X x) { return Attention(p, x, 2, false); }},
      {"selfattention_norm_eval",
       Def("selfattention", {J(8), J(4), 0.1, true}),
       {2, 5, 8},
       [](P p, X x) { return Attention(p, x, 4, true); },
       true},
  };
}

std::vector<KindCase> AllCases() {
  std::vector<KindCase> all;
  for (auto family : {ShapeCases, TransformCases, EmbedAndAttentionCases}) {
    for (KindCase& c : family()) all.push_back(std::move(c));
  }
  return all;
}

class KLayersKindTest : public LeakCheckTest, public ::testing::WithParamInterface<KindCase> {};

TEST_P(KLayersKindTest, MatchesLibtorchAndRoundTripsThroughDescribe) {
  testing::ExpectMatchesLibtorchAndRoundTrips(GetParam());
}

INSTANTIATE_TEST_SUITE_P(KLayers, KLayersKindTest, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<KindCase>& info) {
                           return info.param.label;
                         });

// A kind of two inputs, x and y of the given shapes.
struct BinaryCase {
  std::string label;
  ModuleDefinition definition;
  std::vector<std::int64_t> x, y;
  std::function<at::Tensor(X, X)> expected;
};

void PrintTo(const BinaryCase& c, std::ostream* out) { *out << c.label; }

class KLayersBinaryTest : public LeakCheckTest, public ::testing::WithParamInterface<BinaryCase> {};

TEST_P(KLayersBinaryTest, MatchesLibtorchAndRoundTripsThroughDescribe) {
  const BinaryCase& c = GetParam();
  auto scope = Scope::Open();
  const testing::Remakes m = testing::MakeAndRemake(c.definition);
  const at::Tensor x = Spread(c.x), y = Spread(c.y);
  const at::Tensor expected = c.expected(x, y);
  for (Handle q : {m.made, m.remade}) {
    const at::Tensor out = forward(q, {x, y}).tensor();
    EXPECT_TRUE(at::allclose(out, expected, 1e-4, 1e-5)) << "forward:\n"
                                                         << out << "\nexpected:\n"
                                                         << expected;
  }
}

INSTANTIATE_TEST_SUITE_P(
    KLayers, KLayersBinaryTest,
    ::testing::Values(
        BinaryCase{"cat",
                   Def("cat"),
                   {2, 3},
                   {4, 3},
                   [](X x, X y) {
                     return at::cat({x, y});
                   }},
        BinaryCase{
            "cat_dim1",
            Def("cat", {J(1)}),
            {2, 3},
            {2, 1},
            [](X x, X y) {
              return at::stack({x.select(1, 0), x.select(1, 1), x.select(1, 2), y.select(1, 0)}, 1);
            }},
        BinaryCase{"mul",
                   Def("mul"),
                   {2, 3},
                   {3},
                   [](X x, X y) {
                     return x * y.view({1, 3}).expand({2, 3});
                   }},
        BinaryCase{"matmul",
                   Def("matmul"),
                   {2, 3, 4},
                   {4, 5},
                   [](X x, X y) { return (x.unsqueeze(-1) * y).sum(-2); }}),
    [](const ::testing::TestParamInfo<BinaryCase>& info) { return info.param.label; });

class KLayersBadTest : public LeakCheckTest, public ::testing::WithParamInterface<BadCase> {};

TEST_P(KLayersBadTest, FailsWhenMadeNamingTheKind) {
  testing::ExpectFailsNamingTheKind(GetParam());
}

std::vector<BadCase> BadCases() {
  return {
      {"cat_type", Def("cat", {1.5}), "cat: option `dim expects long, given double"},
      {"expand_size", Def("expand", {Js({2, -2})}),
       "expand: option `size must be at least -1, given -2"},
      {"reshape_infer", Def("reshape", {Js({-1, 2, -1})}),
       "reshape: option `size may infer one dimension (-1), given 2"},
      {"permute_missing", Def("permute"), "permute: option `size required"},
      {"permute_repeat", Def("permute", {Js({0, 1, 1})}),
       "permute: option `size repeats dimension 1"},
      {"squeeze_type", Def("squeeze", {1.0}),
       "squeeze: option `dim expects long or null, given double"},
      {"unsqueeze_missing", Def("unsqueeze"), "unsqueeze: option `dim required"},
      {"select_missing", Def("select", {J(0)}), "select: option `ind required"},
      {"indexselect_negative", Def("indexselect", {J(0), Js({1, -1})}),
       "indexselect: option `ind must be at least 0, given -1"},
      {"indexselect_type", Def("indexselect", {J(0), 1.5}),
       "indexselect: option `ind expects long(s), given double"},
      {"onehot_classes", Def("onehot", {J(-2)}),
       "onehot: option `classes must be at least -1, given -2"},
      {"onehot_dtype", Def("onehot", {J(3), Sym("quad")}), "onehot: unrecognized dtype `quad"},
      {"pad_odd", Def("pad", {Js({1, 1, 1})}),
       "pad: option `pad expects an even number of longs, given 3"},
      {"pad_mode", Def("pad", {Js({1, 1}), Sym("mirror")}),
       "pad: unrecognized mode `mirror, expecting constant, reflect, replicate or circular"},
      {"randomcrop_size_count", Def("randomcrop", {Js({3, 3, 3})}),
       "randomcrop: option `size expects 1 or 2 longs, given 3"},
      {"randomcrop_pad_count", Def("randomcrop", {J(3), Js({1, 1})}),
       "randomcrop: option `pad expects 1 or 4 longs, given 2"},
      {"randomcrop_size", Def("randomcrop", {J(0)}),
       "randomcrop: option `size must be at least 1, given 0"},
      {"randomcrop_padmode", Def("randomcrop", {J(3)}, {{"padmode", Sym("zeros")}}),
       "randomcrop: unrecognized padmode `zeros, expecting constant, reflect, replicate or "
       "circular"},
      {"randomflip_p", Def("randomflip", {1.5}),
       "randomflip: option `p must be between 0 and 1, given 1.5"},
      {"zscore_missing", Def("zscore", {Ds({1})}), "zscore: option `std required"},
      {"zscore_null", Def("zscore", {std::monostate(), Ds({1})}), "zscore: option `mean required"},
      {"zscore_counts", Def("zscore", {Ds({1, 2}), Ds({1})}),
       "zscore: options `mean and `std expect the same number of values, given 2 and 1"},
      {"zscore_std", Def("zscore", {Ds({1}), Ds({0})}),
       "zscore: option `std must be positive, given 0"},
      {"droppath_missing", Def("droppath"), "droppath: option `p required"},
      {"droppath_p", Def("droppath", {1.0}),
       "droppath: option `p must be at least 0 and below 1, given 1"},
      {"embedpos_cols", Def("embedpos", {J(10), J(0)}),
       "embedpos: option `cols must be at least 1, given 0"},
      {"embedseq_missing", Def("embedseq", {J(10), J(4)}), "embedseq: option `length required"},
      {"selfattention_missing", Def("selfattention", {J(8)}),
       "selfattention: option `heads required"},
      {"selfattention_heads", Def("selfattention", {J(10), J(3)}),
       "selfattention: option `dim must be divisible by `heads, given 10 and 3"},
      {"selfattention_dropout", Def("selfattention", {J(8), J(2), 1.5}),
       "selfattention: option `dropout must be between 0 and 1, given 1.5"},
  };
}

INSTANTIATE_TEST_SUITE_P(KLayers, KLayersBadTest, ::testing::ValuesIn(BadCases()),
                         [](const ::testing::TestParamInfo<BadCase>& info) {
                           return info.param.label;
                         });

using KLayersTest = LeakCheckTest;

TEST_F(KLayersTest, ForwardErrorsNameTheKind) {
  auto scope = Scope::Open();
  const std::size_t before = live_handles();
  const Handle embedpos = module(Def("embedpos", {J(4), J(3)}));
  EXPECT_EQ(ErrorOf([&] {
              forward(embedpos, at::zeros({1, 5, 3}));
            }),
            "embedpos: sequence of 5 longer than the 4 rows of the embedding");
  EXPECT_EQ(
      ErrorOf([&] {
        forward(module(Def("zscore", {Ds({1, 2, 3}), Ds({1, 1, 1})})), at::zeros({2, 2, 4, 4}));
      }),
      "zscore: 3 means and deviations given for input of 2 channels");
  EXPECT_EQ(ErrorOf([&] {
              forward(module(Def("randomcrop", {J(5)})), at::zeros({1, 4, 4}));
            }),
            "randomcrop: crop of 5 x 5 larger than padded input of 4 x 4");
  const Handle attention = module(Def("selfattention", {J(8), J(2)}));
  EXPECT_EQ(ErrorOf([&] {
              forward(attention, at::zeros({2, 5, 6}));
            }),
            "selfattention: expects input of (batch, sequence, 8), given size [2, 5, 6]");
  const at::Tensor x = at::zeros({2, 5, 8});
  EXPECT_EQ(ErrorOf([&] {
              forward(attention, {x, x, x, x});
            }),
            "forward: `selfattention expects 1 to 3 inputs, given 4");
  EXPECT_EQ(ErrorOf([&] { forward(module(Def("cat")), x); }),
            "forward: `cat expects 2 inputs, given 1");
  EXPECT_EQ(live_handles(), before + 5);  // the modules only
}

TEST_F(KLayersTest, SelfAttentionMasksMatchMultiheadAttention) {
  auto scope = Scope::Open();
  const testing::Remakes m = testing::MakeAndRemake(Def("selfattention", {J(8), J(2)}));
  EXPECT_THAT(parmnames(m.made),
              ::testing::ElementsAre("in.weight", "in.bias", "out.weight", "out.bias"));
  const at::Tensor x = Spread({2, 5, 8});
  const at::Tensor causal = at::ones({5, 5}).triu(1).to(at::kBool);
  const at::Tensor padded = Bools({0, 0, 0, 0, 0, 0, 0, 0, 1, 1}).view({2, 5});
  // A float mask is added to the scores (libtorch's multi-head attention takes only that form);
  // a boolean one is -inf where true.
  const at::Tensor additive =
      at::zeros({5, 5}).masked_fill(causal, -std::numeric_limits<double>::infinity());
  const at::Tensor with_mask = Attention(m.parms, x, 2, false, additive);
  EXPECT_TRUE(at::allclose(forward(m.made, {x, causal}).tensor(), with_mask, 1e-4, 1e-5));
  EXPECT_TRUE(at::allclose(forward(m.made, {x, additive}).tensor(), with_mask, 1e-4, 1e-5));
  const at::Tensor with_both = Attention(m.parms, x, 2, false, additive, padded);
  EXPECT_TRUE(at::allclose(forward(m.remade, {x, causal, padded}).tensor(), with_both, 1e-4, 1e-5));
  EXPECT_FALSE(at::allclose(with_both, with_mask, 1e-4, 1e-5));  // the padding mask mattered
}

TEST_F(KLayersTest, NormedSelfAttentionHasNoQkvBias) {
  auto scope = Scope::Open();
  const Handle q = module(Def("selfattention", {J(8), J(2)}, {{"norm", true}}));
  EXPECT_THAT(parmnames(q), ::testing::ElementsAre("norm.weight", "norm.bias", "in.weight",
                                                   "out.weight", "out.bias"));
}

TEST_F(KLayersTest, RandomCropTakesOneSeededWindow) {
  auto scope = Scope::Open();
  const Handle q = module(Def("randomcrop", {J(3)}));
  const at::Tensor x = at::arange(50, at::kFloat).view({2, 1, 5, 5});
  // The offset of the crop y within x's 3 x 3 windows.
  auto offset = [&](X y) {
    std::vector<std::pair<int, int>> found;
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        if (at::equal(y, x.narrow(2, i, 3).narrow(3, j, 3))) found.emplace_back(i, j);
      }
    }
    EXPECT_EQ(found.size(), 1u);
    return found.empty() ? std::make_pair(-1, -1) : found[0];
  };
  std::vector<std::pair<int, int>> offsets;
  seed(11);
  for (int k = 0; k < 12; ++k) offsets.push_back(offset(forward(q, x).tensor()));
  const std::set<std::pair<int, int>> distinct(offsets.begin(), offsets.end());
  EXPECT_GT(distinct.size(), 1u);
  seed(11);
  EXPECT_EQ(offset(forward(q, x).tensor()), offsets[0]);
  training(q, false);
  EXPECT_TRUE(at::equal(forward(q, x).tensor(), x));
}

TEST_F(KLayersTest, RandomFlipFlipsWithProbabilityP) {
  auto scope = Scope::Open();
  const Handle q = module(Def("randomflip", {0.5, J(1)}));
  const at::Tensor x = at::arange(6, at::kFloat).view({2, 3});
  std::vector<bool> flips;
  seed(5);
  for (int k = 0; k < 20; ++k) {
    const at::Tensor y = forward(q, x).tensor();
    EXPECT_TRUE(at::equal(y, x) || at::equal(y, x.flip(1)));
    flips.push_back(at::equal(y, x.flip(1)));
  }
  const auto flipped = std::count(flips.begin(), flips.end(), true);
  EXPECT_GT(flipped, 3);
  EXPECT_LT(flipped, 17);
  seed(5);
  EXPECT_EQ(at::equal(forward(q, x).tensor(), x.flip(1)), flips[0]);
}

TEST_F(KLayersTest, DropPathDropsWholeSamplesAndScalesTheRest) {
  auto scope = Scope::Open();
  const Handle q = module(Def("droppath", {0.25}));
  const at::Tensor x = at::rand({400, 3, 2}) + 1;
  seed(9);
  const at::Tensor y = forward(q, x).tensor();
  const at::Tensor dropped = (y == 0).all(2).all(1);
  const at::Tensor kept = at::isclose(y, x / 0.75).all(2).all(1);
  EXPECT_TRUE((dropped ^ kept).all().item<bool>());  // each sample wholly dropped or kept
  const double rate = dropped.to(at::kDouble).mean().item<double>();
  EXPECT_GT(rate, 0.15);
  EXPECT_LT(rate, 0.35);
  seed(9);
  EXPECT_TRUE(at::equal(forward(q, x).tensor(), y));
}

TEST_F(KLayersTest, LayersPrintTheirKindAndOptions) {
  auto scope = Scope::Open();
  EXPECT_EQ(str(module(Def("cat", {J(1)}))), "kscope::cat(dim=1)");
  EXPECT_EQ(str(module(Def("reshape", {Js({-1, 2, 3})}))), "kscope::reshape(size=[-1, 2, 3])");
  EXPECT_EQ(str(module(Def("zscore", {Ds({0.5, 1}), Ds({2, 3})}))),
            "kscope::zscore(mean=[0.5, 1], std=[2, 3], inplace=false)");
  EXPECT_EQ(str(module(Def("squeeze"))), "kscope::squeeze(dim=None, inplace=false)");
  EXPECT_EQ(str(module(Def("embedseq", {J(10), J(4), J(8)}))),
            "kscope::embedseq(rows=10, cols=4, length=8)(\n"
            "  (tok): torch::nn::Embedding(num_embeddings=10, embedding_dim=4)\n"
            "  (pos): kscope::embedpos(rows=8, cols=4)\n"
            ")");
}

TEST_F(KLayersTest, BuffersFollowTheModuleToAnotherDtype) {
  auto scope = Scope::Open();
  const Handle zscore = module(Def("zscore", {Ds({1, 2}), Ds({2, 4})}));
  const Handle select = module(Def("indexselect", {J(1), Js({1, 0})}));
  Options doubles;
  doubles.dtype = at::kDouble;
  for (Handle q : {zscore, select}) to(q, doubles);
  const at::Tensor x = at::arange(4, at::kDouble).view({2, 2});
  EXPECT_TRUE(at::equal(forward(zscore, x).tensor(), (x - at::tensor({1.0, 2.0}, at::kDouble)) /
                                                         at::tensor({2.0, 4.0}, at::kDouble)));
  EXPECT_TRUE(at::equal(forward(select, x).tensor(), x.flip(1)));
}

}  // namespace ktorch_layers_test
}  // namespace kscope
