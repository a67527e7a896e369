// The recurrent and transformer module kinds (api/nn/kinds/recurrent.cc and
// api/nn/kinds/transformer.cc), one row per kind or option form: each module is made from a
// definition, run on the row's inputs beside libtorch's own module built with the same options
// and given the same parameters, queried back with describe, and remade from the query to give
// the same query, parameters and outputs. Forwards return every part libtorch's does (output
// and hidden state, output and attention weights). Bad options fail when the module is made,
// naming the kind, and leave no handle behind.
#include <functional>
#include <memory>
#include <ostream>

#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/modules/rnn.h>
#include <torch/nn/modules/transformer.h>
#include <torch/nn/modules/transformercoder.h>
#include <torch/nn/modules/transformerlayer.h>

#include "api/nn/module.h"
#include "tests/definitions.h"
#include "tests/error_text.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace recurrent_kinds_test {

namespace tnn = torch::nn;
using testing::Def;
using testing::ErrorOf;
using testing::J;
using testing::Js;
using testing::LeakCheckTest;
using testing::Nest;
using testing::Sym;
using Tensors = std::vector<at::Tensor>;

// `x` followed by undefined tensors (absent masks, no starting state) up to `count`.
Tensors Pad(Tensors x, std::size_t count) {
  x.resize(count);
  return x;
}

// libtorch's own module, made with the options the definition stands for, and its forward
// returning every part of its result.
struct Reference {
  std::function<std::shared_ptr<tnn::Module>()> make;
  std::function<Tensors(tnn::Module&, const Tensors&)> forward;
};

template <typename Impl>
Reference Hidden(decltype(Impl::options) options) {
  return {[options] { return std::make_shared<Impl>(options); },
          [](tnn::Module& m, const Tensors& x) {
            auto [y, h] = dynamic_cast<Impl&>(m).forward(x[0], Pad(x, 2)[1]);
            return Tensors{y, h};
          }};
}

Reference Cell(tnn::LSTMOptions options) {
  return {[options] { return std::make_shared<tnn::LSTMImpl>(options); },
          [](tnn::Module& m, const Tensors& x) {
            auto& lstm = dynamic_cast<tnn::LSTMImpl&>(m);
            auto [y, hc] = x.size() == 1 ? lstm.forward(x[0])
                                         : lstm.forward(x[0], std::make_tuple(x[1], x[2]));
            return Tensors{y, std::get<0>(hc), std::get<1>(hc)};
          }};
}

Reference Attention(tnn::MultiheadAttentionOptions options) {
  return {[options] { return std::make_shared<tnn::MultiheadAttentionImpl>(options); },
          [](tnn::Module& m, const Tensors& given) {
            const Tensors x = Pad(given, 5);
            auto [y, w] = dynamic_cast<tnn::MultiheadAttentionImpl&>(m).forward(x[0], x[1], x[2],
                                                                                x[3], true, x[4]);
            return Tensors{y, w};
          }};
}

template <typename Impl, std::size_t... I>
at::Tensor ForwardOn(tnn::Module& m, const Tensors& x, std::index_sequence<I...>) {
  return dynamic_cast<Impl&>(m).forward(x[I]...);
}

// A module whose forward returns one tensor, given `Inputs` tensors (masks included).
template <typename Impl, std::size_t Inputs, typename Options>
Reference Single(Options options) {
  return {[options] { return std::make_shared<Impl>(options); },
          [](tnn::Module& m, const Tensors& x) {
            return Tensors{ForwardOn<Impl>(m, Pad(x, Inputs), std::make_index_sequence<Inputs>())};
          }};
}

// One row: a definition, its inputs and libtorch's module for it.
struct KindCase {
  std::string label;  // the gtest name
  ModuleDefinition definition;
  std::function<Tensors()> inputs;
  Reference reference;
  bool eval = false;  // run outside training (dropout)
};

void PrintTo(const KindCase& c, std::ostream* out) { *out << c.label; }

at::Tensor Randn(at::IntArrayRef shape) { return at::randn(shape); }
// A key padding mask for `batch sequences of `length: the last key of the second sequence.
at::Tensor PadMask(std::int64_t batch, std::int64_t length) {
  at::Tensor mask = at::zeros({batch, length}, at::kBool);
  mask[1][length - 1] = true;
  return mask;
}
// An additive mask hiding later positions from earlier ones.
at::Tensor Causal(std::int64_t n) { return at::full({n, n}, -1e9).triu(1); }

std::vector<KindCase> RecurrentCases() {
  return {
      {"rnn", Def("rnn", {J(4), J(6)}),
       [] {
         return Tensors{Randn({5, 3, 4})};
       },
       Hidden<tnn::RNNImpl>(tnn::RNNOptions(4, 6))},
      {"rnn_relu_bi_state",
       Def("rnn", {J(4), J(6), J(2), Sym("relu")}, {{"bi", true}, {"batchfirst", true}}),
       [] {
         return Tensors{Randn({3, 5, 4}), Randn({4, 3, 6})};
       },
       Hidden<tnn::RNNImpl>(tnn::RNNOptions(4, 6)
                                .num_layers(2)
                                .nonlinearity(torch::kReLU)
                                .bidirectional(true)
                                .batch_first(true))},
      {"gru", Def("gru", {J(4), J(6), J(2)}),
       [] {
         return Tensors{Randn({5, 3, 4})};
       },
       Hidden<tnn::GRUImpl>(tnn::GRUOptions(4, 6).num_layers(2))},
      {"gru_state_nobias", Def("gru", {J(4), J(6), J(1), false}),
       [] {
         return Tensors{Randn({5, 3, 4}), Randn({1, 3, 6})};
       },
       Hidden<tnn::GRUImpl>(tnn::GRUOptions(4, 6).bias(false))},
      {"lstm_example", Def("lstm", {J(28), J(128), J(2), true, true}),
       [] {
         return Tensors{Randn({2, 5, 28})};
       },
       Cell(tnn::LSTMOptions(28, 128).num_layers(2).batch_first(true))},
      {"lstm_bi_state", Def("lstm", {J(4), J(6)}, {{"bi", true}}),
       [] {
         return Tensors{Randn({5, 3, 4}), Randn({2, 3, 6}), Randn({2, 3, 6})};
       },
       Cell(tnn::LSTMOptions(4, 6).bidirectional(true))},
      {"lstm_dropout_eval", Def("lstm", {J(4), J(6), J(2)}, {{"dropout", 0.5}}),
       [] {
         return Tensors{Randn({5, 3, 4})};
       },
       Cell(tnn::LSTMOptions(4, 6).num_layers(2).dropout(0.5)), true},
  };
}

tnn::TransformerEncoderLayerOptions EncoderLayer() {
  return tnn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16);
}
tnn::TransformerDecoderLayerOptions DecoderLayer() {
  return tnn::TransformerDecoderLayerOptions(8, 2).dim_feedforward(16).dropout(0);
}
tnn::AnyModule Norm8() { return tnn::AnyModule(tnn::LayerNorm(tnn::LayerNormOptions({8}))); }

std::vector<KindCase> TransformerCases() {
  // (sequence, batch, features) inputs: sources of 5, targets of 4, batches of 3, 8 features.
  auto src = [] { return Randn({5, 3, 8}); };
  auto tgt = [] { return Randn({4, 3, 8}); };
  return {
      {"attention", Def("attention", {J(8), J(2)}),
       [=] {
         return Tensors{tgt(), src(), src()};
       },
       Attention(tnn::MultiheadAttentionOptions(8, 2))},
      {"attention_dims_masks",
       Def("attention", {J(8), J(2)},
           {{"kdim", J(6)}, {"vdim", J(6)}, {"addbias", true}, {"addzero", true}}),
       [=] {
         return Tensors{tgt(), Randn({5, 3, 6}), Randn({5, 3, 6}), PadMask(3, 5), Randn({4, 5})};
       },
       Attention(
           tnn::MultiheadAttentionOptions(8, 2).kdim(6).vdim(6).add_bias_kv(true).add_zero_attn(
               true))},
      {"attention_nobias_eval", Def("attention", {J(8), J(4), 0.5, false}),
       [=] {
         return Tensors{src(), src(), src()};
       },
       Attention(tnn::MultiheadAttentionOptions(8, 4).dropout(0.5).bias(false)), true},
      {"encoderlayer_eval", Def("encoderlayer", {J(8), J(2), J(16)}),
       [=] { return Tensors{src()}; }, Single<tnn::TransformerEncoderLayerImpl, 3>(EncoderLayer()),
       true},
      {"encoderlayer_gelu_masks", Def("encoderlayer", {J(8), J(2), J(16), 0.0, Sym("gelu")}),
       [=] {
         return Tensors{src(), Causal(5), PadMask(3, 5)};
       },
       Single<tnn::TransformerEncoderLayerImpl, 3>(
           EncoderLayer().dropout(0).activation(torch::kGELU))},
      {"decoderlayer", Def("decoderlayer", {J(8), J(2), J(16), 0.0}),
       [=] {
         return Tensors{tgt(), src()};
       },
       Single<tnn::TransformerDecoderLayerImpl, 6>(DecoderLayer())},
      {"decoderlayer_masks", Def("decoderlayer", {J(8), J(2), J(16), 0.0}),
       [=] {
         return Tensors{tgt(), src(), Causal(4), Randn({4, 5}), PadMask(3, 4), PadMask(3, 5)};
       },
       Single<tnn::TransformerDecoderLayerImpl, 6>(DecoderLayer())},
      {"encoder",
       Def("encoder", {Nest("encoderlayer", {J(8), J(2), J(16), 0.1, Sym("relu")}), J(2)}),
       [=] { return Tensors{src()}; },
       Single<tnn::TransformerEncoderImpl, 3>(tnn::TransformerEncoderOptions(EncoderLayer(), 2)),
       true},
      {"encoder_layernorm_mask",
       Def("encoder", {Nest("", {J(8), J(2)}, {{"dim", J(16)}})},
           {{"layers", J(3)}, {"layernorm", J(8)}}),
       [=] {
         return Tensors{src(), Causal(5)};
       },
       Single<tnn::TransformerEncoderImpl, 3>(
           tnn::TransformerEncoderOptions(EncoderLayer(), 3).norm(Norm8())),
       true},
      {"decoder_layernorm",
       Def("decoder",
           {Nest("decoderlayer", {J(8), J(2), J(16), 0.0}), J(2), Nest("layernorm", {Js({8})})}),
       [=] {
         return Tensors{tgt(), src(), Causal(4)};
       },
       Single<tnn::TransformerDecoderImpl, 6>(
           tnn::TransformerDecoderOptions(DecoderLayer(), 2).norm(Norm8()))},
      {"transformer", Def("transformer", {J(8), J(2), J(2), J(1), J(16), 0.0}),
       [=] {
         return Tensors{src(), tgt()};
       },
       Single<tnn::TransformerImpl, 8>(
           tnn::TransformerOptions(8, 2, 2, 1).dim_feedforward(16).dropout(0))},
      {"transformer_custom_encoder",
       Def("transformer", {J(8), J(2), J(1), J(1), J(16), 0.0},
           {{"encoder", Nest("encoder", {Nest("", {J(8), J(2), J(16), 0.0}), J(2), J(8)})}}),
       [=] {
         return Tensors{src(), tgt()};
       },
       Single<tnn::TransformerImpl, 8>(
           tnn::TransformerOptions(8, 2, 1, 1)
               .dim_feedforward(16)
               .dropout(0)
               .custom_encoder(tnn::AnyModule(tnn::TransformerEncoder(
                   tnn::TransformerEncoderOptions(EncoderLayer().dropout(0), 2).norm(Norm8())))))},
      {"transformer_gelu_masks",
       Def("transformer", {J(8), J(2), J(1), J(2), J(16)}, {{"fn", Sym("gelu")}}),
       [=] {
         return Tensors{src(),         tgt(),         Causal(5),     Causal(4),
                        Randn({4, 5}), PadMask(3, 5), PadMask(3, 4), PadMask(3, 5)};
       },
       Single<tnn::TransformerImpl, 8>(
           tnn::TransformerOptions(8, 2, 1, 2).dim_feedforward(16).activation(torch::kGELU)),
       true},
  };
}

// What a forward returned, as a list: one tensor, or the vector's.
Tensors Outputs(const Result& r) {
  if (const auto* v = std::get_if<TensorVector>(&r.value())) return *v;
  return {r.tensor()};
}

void ExpectClose(const Tensors& actual, const Tensors& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) {
    EXPECT_TRUE(at::allclose(actual[i], expected[i], 1e-4, 1e-5)) << "output " << i << ":\n"
                                                                  << actual[i] << "\nexpected:\n"
                                                                  << expected[i];
  }
}

void ExpectSameRows(const std::vector<ModuleRow>& a, const std::vector<ModuleRow>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].kind, b[i].kind);
    EXPECT_TRUE(a[i].options == b[i].options) << "options of " << a[i].kind << " differ";
  }
}

void MatchesLibtorchAndRoundTrips(const KindCase& c) {
  auto scope = Scope::Open();
  constexpr std::uint64_t kSeed = 11;
  seed(kSeed);
  Handle q = module(c.definition);
  const std::vector<ModuleRow> rows = describe(q);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].kind, c.definition.kind);
  seed(kSeed);
  Handle again = module(ModuleDefinition{rows[0].kind, rows[0].name, {}, rows[0].options, {}});
  ExpectSameRows(describe(again), rows);
  ExpectSameRows(describe(again, false), describe(q, false));

  // libtorch's module with q's parameters, under the same names.
  std::shared_ptr<tnn::Module> reference = c.reference.make();
  {
    at::NoGradGuard no_grad;
    auto named = reference->named_parameters();
    EXPECT_EQ(parmnames(q), named.keys());
    for (const std::string& name : parmnames(q)) {
      const at::Tensor p = tensor(parm(q, name));
      EXPECT_TRUE(at::equal(tensor(parm(again, name)), p)) << name;
      named[name].copy_(p);
    }
  }
  if (c.eval) {
    for (Handle m : {q, again}) training(m, false);
    reference->eval();
  }
  const Tensors x = c.inputs();
  const std::vector<Operand> operands(x.begin(), x.end());
  const Tensors y = Outputs(forward(q, operands));
  ExpectClose(y, c.reference.forward(*reference, x));
  ExpectClose(Outputs(forward(again, operands)), y);
}

class RecurrentKindsTest : public LeakCheckTest, public ::testing::WithParamInterface<KindCase> {};

TEST_P(RecurrentKindsTest, MatchesLibtorchAndRoundTripsThroughDescribe) {
  MatchesLibtorchAndRoundTrips(GetParam());
}

std::string KindLabel(const ::testing::TestParamInfo<KindCase>& info) { return info.param.label; }
INSTANTIATE_TEST_SUITE_P(RecurrentKinds, RecurrentKindsTest, ::testing::ValuesIn(RecurrentCases()),
                         KindLabel);

class TransformerKindsTest : public LeakCheckTest,
                             public ::testing::WithParamInterface<KindCase> {};

TEST_P(TransformerKindsTest, MatchesLibtorchAndRoundTripsThroughDescribe) {
  MatchesLibtorchAndRoundTrips(GetParam());
}

INSTANTIATE_TEST_SUITE_P(TransformerKinds, TransformerKindsTest,
                         ::testing::ValuesIn(TransformerCases()), KindLabel);

// A definition that fails when made, with kscope's message naming the kind.
struct BadCase {
  std::string label;
  ModuleDefinition definition;
  std::string error;
};

void PrintTo(const BadCase& c, std::ostream* out) { *out << c.label; }

class BadKindsTest : public LeakCheckTest, public ::testing::WithParamInterface<BadCase> {};

TEST_P(BadKindsTest, FailsWhenMadeNamingTheKind) {
  const BadCase& c = GetParam();
  const std::size_t before = live_handles();
  EXPECT_EQ(ErrorOf([&] { module(c.definition); }), c.error);
  EXPECT_EQ(live_handles(), before);
}

std::vector<BadCase> RecurrentBadCases() {
  return {
      {"rnn_missing", Def("rnn", {J(4)}), "rnn: option `hidden required"},
      {"rnn_fn", Def("rnn", {J(4), J(6), J(1), Sym("sigmoid")}),
       "rnn: unrecognized fn `sigmoid, expecting tanh or relu"},
      {"gru_no_fn", Def("gru", {J(4), J(6)}, {{"fn", Sym("relu")}}),
       "gru: unrecognized option `fn"},
      {"lstm_type", Def("lstm", {J(4), 6.0}), "lstm: option `hidden expects long, given double"},
      {"lstm_hidden", Def("lstm", {J(4), J(0)}),
       "lstm: option `hidden must be at least 1, given 0"},
      {"gru_layers", Def("gru", {J(4), J(6), J(0)}),
       "gru: option `layers must be at least 1, given 0"},
      {"rnn_dropout", Def("rnn", {J(4), J(6)}, {{"dropout", 1.5}}),
       "rnn: option `dropout must be between 0 and 1, given 1.5"},
  };
}

std::vector<BadCase> TransformerBadCases() {
  return {
      {"attention_missing", Def("attention", {J(8)}), "attention: option `heads required"},
      {"attention_heads", Def("attention", {J(8), J(3)}),
       "attention: option `dim must be divisible by `heads, given 8 and 3"},
      {"attention_kvdim", Def("attention", {J(8), J(2)}, {{"kdim", J(6)}, {"vdim", J(4)}}),
       "attention: options `kdim and `vdim must be equal, given 6 and 4"},
      {"attention_vdim", Def("attention", {J(8), J(2)}, {{"vdim", J(4)}}),
       "attention: options `kdim and `vdim must be equal, given 8 and 4"},
      {"attention_kdim", Def("attention", {J(8), J(2)}, {{"kdim", J(0)}}),
       "attention: option `kdim must be at least 1, given 0"},
      {"attention_dropout", Def("attention", {J(8), J(2), -0.1}),
       "attention: option `dropout must be between 0 and 1, given -0.1"},
      {"encoderlayer_heads", Def("encoderlayer", {J(8), J(0)}),
       "encoderlayer: option `heads must be at least 1, given 0"},
      {"decoderlayer_fn", Def("decoderlayer", {J(8), J(2)}, {{"fn", Sym("tanh")}}),
       "decoderlayer: unrecognized fn `tanh, expecting relu or gelu"},
      {"encoder_layers", Def("encoder", {Nest("encoderlayer", {J(8), J(2)})}),
       "encoder: option `layers required"},
      {"encoder_no_layer", Def("encoder", {}, {{"layers", J(1)}}),
       "encoder: option `encoderlayer required"},
      {"encoder_empty_layer", Def("encoder", {Nest(""), J(1)}),
       "encoder: option `encoderlayer required"},
      {"encoder_other_layer", Def("encoder", {Nest("linear", {J(8), J(2)}), J(1)}),
       "encoder: option `encoderlayer expects a definition of encoderlayer, given linear"},
      {"encoder_symbol_layer", Def("encoder", {Sym("encoderlayer"), J(1)}),
       "encoder: option `encoderlayer expects a definition of encoderlayer, given symbol"},
      {"encoder_negative_layers", Def("encoder", {Nest("", {J(8), J(2)}), J(-1)}),
       "encoder: option `layers must be at least 0, given -1"},
      {"encoder_layer_heads", Def("encoder", {Nest("", {J(8), J(3)}), J(1)}),
       "encoderlayer: option `in must be divisible by `heads, given 8 and 3"},
      {"decoder_dim", Def("decoder", {Nest("", {J(8), J(2), J(0)}), J(1)}),
       "decoderlayer: option `dim must be at least 1, given 0"},
      {"decoder_layernorm", Def("decoder", {Nest("", {J(8), J(2)}), J(1), Nest("layernorm", {})}),
       "layernorm: option `shape required"},
      {"transformer_in", Def("transformer", {J(10)}),
       "transformer: option `in must be divisible by `heads, given 10 and 8"},
      {"transformer_layers", Def("transformer", {}, {{"dlayers", J(0)}}),
       "transformer: option `dlayers must be at least 1, given 0"},
      {"transformer_custom_encoder", Def("transformer", {}, {{"encoder", Sym("encoder")}}),
       "transformer: option `encoder expects a definition of encoder, given symbol"},
      {"transformer_custom_decoder",
       Def("transformer", {}, {{"decoder", Nest("encoder", {Nest("", {J(8), J(2)}), J(1)})}}),
       "transformer: option `decoder expects a definition of decoder, given encoder"},
  };
}

std::string BadLabel(const ::testing::TestParamInfo<BadCase>& info) { return info.param.label; }
INSTANTIATE_TEST_SUITE_P(RecurrentKinds, BadKindsTest, ::testing::ValuesIn(RecurrentBadCases()),
                         BadLabel);
INSTANTIATE_TEST_SUITE_P(TransformerKinds, BadKindsTest, ::testing::ValuesIn(TransformerBadCases()),
                         BadLabel);

using RecurrentKindsForwardTest = LeakCheckTest;

TEST_F(RecurrentKindsForwardTest, AHandleInGivesAVectorHandleOfEveryPart) {
  auto scope = Scope::Open();
  Handle q = module(Def("lstm", {J(4), J(6), J(2)}));
  Handle x = tensor(Randn({5, 3, 4}));
  const TensorVector parts = vector(forward(q, x).handle());
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].sizes(), at::IntArrayRef({5, 3, 6}));
  EXPECT_EQ(parts[1].sizes(), at::IntArrayRef({2, 3, 6}));  // h, one row per layer
  EXPECT_EQ(parts[2].sizes(), at::IntArrayRef({2, 3, 6}));  // c
  // The state it returned carries on: the same as running the two halves of a sequence in turn.
  const at::Tensor seq = Randn({6, 3, 4});
  const TensorVector whole = std::get<TensorVector>(forward(q, seq).value());
  const TensorVector first = std::get<TensorVector>(forward(q, seq.narrow(0, 0, 3)).value());
  const std::vector<Operand> rest{seq.narrow(0, 3, 3), first[1], first[2]};
  const TensorVector second = std::get<TensorVector>(forward(q, rest).value());
  EXPECT_TRUE(at::allclose(second[0], whole[0].narrow(0, 3, 3), 1e-5, 1e-6));
  EXPECT_TRUE(at::allclose(second[2], whole[2], 1e-5, 1e-6));
}

TEST_F(RecurrentKindsForwardTest, InputCountsAreChecked) {
  auto scope = Scope::Open();
  Handle lstm = module(Def("lstm", {J(4), J(6)}));
  const at::Tensor x = Randn({5, 3, 4}), h = at::zeros({1, 3, 6});
  EXPECT_EQ(ErrorOf([&] {
              forward(lstm, std::vector<Operand>{x, h});
            }),
            "lstm: expects the input, or the input, hidden state and cell state, given 2 inputs");
  EXPECT_EQ(ErrorOf([&] {
              forward(lstm, std::vector<Operand>{x, h, h, h});
            }),
            "forward: `lstm expects 1 to 3 inputs, given 4");
  Handle gru = module(Def("gru", {J(4), J(6)}));
  EXPECT_EQ(ErrorOf([&] {
              forward(gru, std::vector<Operand>{x, h, h});
            }),
            "forward: `gru expects 1 to 2 inputs, given 3");
  Handle attention = module(Def("attention", {J(4), J(2)}));
  EXPECT_EQ(ErrorOf([&] {
              forward(attention, std::vector<Operand>{x, x});
            }),
            "forward: `attention expects 3 to 5 inputs, given 2");
  Handle transformer = module(Def("transformer", {J(4), J(2), J(1), J(1), J(8)}));
  EXPECT_EQ(ErrorOf([&] { forward(transformer, x); }),
            "forward: `transformer expects 2 to 8 inputs, given 1");
}

TEST_F(RecurrentKindsForwardTest, AnEncoderLayerRunsAsASequentialChild) {
  auto scope = Scope::Open();
  const ModuleDefinition layer = Def("encoderlayer", {J(8), J(2), J(16), 0.0});
  seed(3);
  Handle alone = module(layer);
  ModuleDefinition wrapped = Def("sequential");
  wrapped.children = {layer};
  seed(3);
  Handle sequence = module(wrapped);
  const at::Tensor x = Randn({5, 3, 8});
  EXPECT_TRUE(at::allclose(forward(sequence, x).tensor(), forward(alone, x).tensor(), 1e-5, 1e-6));
}

using TransformerKindsQueryTest = LeakCheckTest;

TEST_F(TransformerKindsQueryTest, TheDefaultTransformerHasKtorchsLayout) {
  // q)m:module`transformer   parmnames of decoder.layers.0's children (seed 000)
  auto scope = Scope::Open();
  Handle m = module(Def("transformer"));
  const std::vector<ModuleRow> rows = describe(m);
  std::vector<std::string> names;
  for (const auto& [name, value] : rows[0].options) names.push_back(name);
  EXPECT_THAT(names, ::testing::ElementsAre("in", "heads", "elayers", "dlayers", "dim", "dropout",
                                            "fn", "encoder", "decoder"));
  EXPECT_EQ(rows[0].options[0].second, J(512));
  EXPECT_EQ(rows[0].options[5].second, nn::OptionValue(0.1));
  EXPECT_EQ(rows[0].options[7].second, Nest(""));  // no custom encoder: ktorch's empty dictionary
  EXPECT_TRUE(describe(m, false)[0].options.empty());
  const std::vector<std::string> parms = parmnames(m);
  for (const char* name :
       {"decoder.layers.0.self_attn.in_proj_weight",
        "decoder.layers.0.multihead_attn.out_proj.bias", "decoder.layers.0.linear1.weight",
        "decoder.layers.0.norm3.bias", "encoder.layers.5.linear2.weight", "encoder.norm.weight",
        "decoder.norm.bias"}) {
    EXPECT_THAT(parms, ::testing::Contains(name));
  }
  EXPECT_THAT(parms, ::testing::Not(::testing::Contains("encoder.layers.6.linear1.weight")));
}

}  // namespace recurrent_kinds_test
}  // namespace kscope
