// api/nn/loss.h: loss objects and functions against libtorch's own losses, the defaults of every
// kind, three-input losses (cosineloss, margin, triplet), ctc's four inputs, the distances
// pairwise and similar, batch weights of bce and bcelogits, and losses recreated from their
// descriptions.
#include <torch/nn/functional/loss.h>

#include "api/nn/loss.h"
#include "tests/error_text.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace loss_test {

namespace F = torch::nn::functional;
using ::testing::ElementsAre;
using testing::ErrorOf;
using ::testing::HasSubstr;
using testing::LeakCheckTest;

using LossTest = LeakCheckTest;
using Option = std::pair<std::string, nn::OptionValue>;
const std::string kSum = "sum";
const std::string kNone = "none";

// A loss with options given positionally (reduce last), its inputs, and libtorch's functional
// form of the same loss on them.
struct LossCase {
  std::string kind;
  std::vector<nn::OptionValue> options;
  std::vector<at::Tensor> inputs;
  at::Tensor expected;
};

std::vector<LossCase> NewLossCases() {
  const at::Tensor w3 = at::tensor({1.f, 2.f, 3.f}), w4 = at::tensor({1.f, 2.f, 3.f, 4.f});
  const at::Tensor logits = at::randn({4, 3}), probabilities = at::rand({4, 3});
  const at::Tensor x = at::randn({3, 4}), labels = at::tensor({3, 0, 1}, at::kLong);
  const at::Tensor indices =
      at::tensor({3, 0, -1, 1, 1, 2, -1, 0, 0, -1, 2, 3}, at::kLong).view({3, 4});
  const at::Tensor multihot = at::randint(2, {3, 4}).to(at::kFloat);
  const at::Tensor rates = at::rand({5}) + 0.1, counts = at::randint(4, {5}).to(at::kFloat);
  const at::Tensor v = at::randn({6}), signs = at::tensor({1.f, -1.f, 1.f, 1.f, -1.f, -1.f});
  const at::Tensor x1 = at::randn({4, 5}), x2 = at::randn({4, 5}),
                   pairs = at::tensor({1.f, -1.f, 1.f, -1.f});
  const at::Tensor a = at::randn({4, 8}), pos = at::randn({4, 8}), neg = at::randn({4, 8});
  return {
      {"bcelogits",
       {std::vector<double>{1, 2, 3}, kSum},
       {logits, probabilities},
       F::binary_cross_entropy_with_logits(
           logits, probabilities,
           torch::nn::BCEWithLogitsLossOptions().pos_weight(w3).reduction(torch::kSum))},
      {"multilabel",
       {kNone},
       {x, indices},
       F::multilabel_margin_loss(x, indices,
                                 torch::nn::MultiLabelMarginLossOptions().reduction(torch::kNone))},
      {"multisoft",
       {std::vector<double>{1, 2, 3, 4}},
       {x, multihot},
       F::multilabel_soft_margin_loss(x, multihot,
                                      torch::nn::MultiLabelSoftMarginLossOptions().weight(w4))},
      {"multimargin",
       {std::int64_t{2}, 0.5, std::vector<double>{1, 2, 3, 4}, kSum},
       {x, labels},
       F::multi_margin_loss(
           x, labels,
           torch::nn::MultiMarginLossOptions().p(2).margin(0.5).weight(w4).reduction(torch::kSum))},
      {"poissonloss",
       {false, true, 1e-6},
       {rates, counts},
       F::poisson_nll_loss(
           rates, counts,
           torch::nn::PoissonNLLLossOptions().log_input(false).full(true).eps(1e-6))},
      {"hinge",
       {0.5, kNone},
       {v, signs},
       F::hinge_embedding_loss(
           v, signs, torch::nn::HingeEmbeddingLossOptions().margin(0.5).reduction(torch::kNone))},
      {"cosineloss",
       {0.2, kSum},
       {x1, x2, pairs},
       F::cosine_embedding_loss(
           x1, x2, pairs,
           torch::nn::CosineEmbeddingLossOptions().margin(0.2).reduction(torch::kSum))},
      {"margin",
       {0.1},
       {v, v.flip(0), signs},
       F::margin_ranking_loss(v, v.flip(0), signs,
                              torch::nn::MarginRankingLossOptions().margin(0.1))},
      {"triplet",
       {0.5, std::int64_t{1}, 1e-5, true},
       {a, pos, neg},
       F::triplet_margin_loss(
           a, pos, neg,
           torch::nn::TripletMarginLossOptions().margin(0.5).p(1).eps(1e-5).swap(true))},
  };
}

TEST_F(LossTest, MseObjectSeed000) {
  // q)l:loss`mse  x:tensor(1.2 1.9 3.1;`grad)  y:tensor 1.0 2.0 3.0  z:loss(l;x;y)
  // q)backward z; r:tensor z; free z   r -> 0.02
  auto scope = Scope::Open();
  Handle l = loss("mse");
  EXPECT_EQ(class_(l), ObjectClass::kLoss);
  Options g;
  g.grad = true;
  Handle x = tensor(std::vector<double>{1.2, 1.9, 3.1}, {}, g);
  Handle y = tensor(std::vector<double>{1.0, 2.0, 3.0});
  Handle z = loss(l, x, y);
  backward(z);
  EXPECT_NEAR(values<double>(z)[0], 0.02, 1e-12);
  EXPECT_TRUE(at::allclose(grad(x), at::tensor({0.4 / 3, -0.2 / 3, 0.2 / 3}, at::kDouble)));
  EXPECT_EQ(size(l).single(), std::vector<std::int64_t>{0});  // a loss has no parameters
}

TEST_F(LossTest, CrossEntropyQuerySeed002) {
  // q)loss m -> module| `ce   options| `weight`ignore`smoothing`reduce!(::;-100;0f;`mean)
  auto scope = Scope::Open();
  Handle l = loss("ce");
  LossDescription d = describe_loss(l);
  EXPECT_EQ(d.kind, "ce");
  ASSERT_EQ(d.options.size(), 4u);
  EXPECT_EQ(d.options[0], (std::pair<std::string, nn::OptionValue>("weight", std::monostate())));
  EXPECT_EQ(d.options[1], (std::pair<std::string, nn::OptionValue>("ignore", std::int64_t{-100})));
  EXPECT_EQ(d.options[2], (std::pair<std::string, nn::OptionValue>("smoothing", 0.0)));
  EXPECT_EQ(d.options[3], (std::pair<std::string, nn::OptionValue>("reduce", std::string("mean"))));
  EXPECT_TRUE(describe_loss(l, false).options.empty());
}

TEST_F(LossTest, CrossEntropyMatchesLibtorch) {
  auto scope = Scope::Open();
  const at::Tensor yhat = at::randn({6, 3});
  const at::Tensor y = at::tensor({0, 2, 1, 1, 0, 2}, at::kLong);
  EXPECT_TRUE(at::allclose(kscope::ce(yhat, y).tensor(), at::cross_entropy_loss(yhat, y)));
  // Options positional, reduce last; class weights as a list.
  Handle l =
      loss("ce", {std::vector<double>{1, 2, 3}, std::int64_t{-100}, 0.1, std::string("sum")});
  const at::Tensor expected =
      at::cross_entropy_loss(yhat, y, at::tensor({1.f, 2.f, 3.f}), at::Reduction::Sum, -100, 0.1);
  EXPECT_TRUE(at::allclose(loss(l, yhat, y).tensor(), expected));
  Handle none = loss("mse", {}, {{"reduce", std::string("none")}});
  EXPECT_EQ(loss(none, at::zeros({4}), at::ones({4})).tensor().sizes(), at::IntArrayRef({4}));
}

TEST_F(LossTest, NewLossesMatchLibtorch) {
  auto scope = Scope::Open();
  for (const LossCase& c : NewLossCases()) {
    SCOPED_TRACE(c.kind);
    ASSERT_EQ(loss_signature(c.kind).fewest_inputs, c.inputs.size());
    // The functional form on data gives data.
    const std::vector<Operand> data(c.inputs.begin(), c.inputs.end());
    EXPECT_TRUE(at::equal(loss_function(c.kind, data, c.options).tensor(), c.expected));
    // A loss object on handles gives a handle.
    Handle l = loss(c.kind, c.options);
    std::vector<Handle> in;
    for (const at::Tensor& t : c.inputs) in.push_back(tensor(t));
    const Result r = in.size() == 2 ? loss(l, in[0], in[1]) : loss(l, in[0], in[1], in[2]);
    EXPECT_TRUE(at::equal(tensor(r.handle()), c.expected));
  }
}

TEST_F(LossTest, NewLossDefaultsQueryBack) {
  auto scope = Scope::Open();
  const Option mean("reduce", std::string("mean")), weight("weight", std::monostate());
  const std::vector<std::pair<std::string, nn::NamedValues>> defaults = {
      {"bcelogits", {weight, mean}},
      {"multilabel", {mean}},
      {"multisoft", {weight, mean}},
      {"multimargin", {{"p", std::int64_t{1}}, {"margin", 1.0}, weight, mean}},
      {"poissonloss", {{"log", true}, {"full", false}, {"eps", 1e-8}, mean}},
      {"hinge", {{"margin", 1.0}, mean}},
      {"cosineloss", {{"margin", 0.0}, mean}},
      {"margin", {{"margin", 0.0}, mean}},
      {"triplet", {{"margin", 1.0}, {"p", 2.0}, {"eps", 1e-6}, {"swap", false}, mean}},
  };
  for (const auto& [kind, options] : defaults) {
    SCOPED_TRACE(kind);
    Handle l = loss(kind);
    EXPECT_EQ(describe_loss(l).kind, kind);
    EXPECT_EQ(describe_loss(l).options, options);
    EXPECT_TRUE(describe_loss(l, false).options.empty());
  }
  // By name: only what differs from the defaults comes back.
  Handle t = loss("triplet", {}, {{"swap", true}, {"p", std::int64_t{1}}});
  EXPECT_THAT(describe_loss(t, false).options, ElementsAre(Option("p", 1.0), Option("swap", true)));
}

TEST_F(LossTest, ThreeInputLossesWithHandlesAndData) {
  // q)x1:tensor(1 2 3f;`grad)  x2:tensor 2 1 2f  y:tensor 1 1 -1f  z:margin(x1;x2;y)
  // q)backward z; return z -> 0.6666667   grad x1 -> -1 0 1%3
  auto scope = Scope::Open();
  Options g;
  g.grad = true;
  Handle x1 = tensor(std::vector<double>{1, 2, 3}, {}, g);
  Handle x2 = tensor(std::vector<double>{2, 1, 2});
  Handle y = tensor(std::vector<double>{1, 1, -1});
  Handle z = loss_function("margin", x1, x2, y);
  backward(z);
  EXPECT_NEAR(values<double>(z)[0], 2.0 / 3, 1e-12);
  EXPECT_TRUE(at::allclose(grad(x1), at::tensor({-1.0 / 3, 0.0, 1.0 / 3}, at::kDouble)));
  // Options after the three inputs; a braced list after two inputs is still options.
  const at::Tensor a = at::tensor({1.0, 2.0, 3.0}), b = at::tensor({2.0, 1.0, 2.0}),
                   s = at::tensor({1.0, 1.0, -1.0});
  EXPECT_EQ(loss_function("margin", a, b, s, {0.5, kSum}).tensor().item<double>(),
            3.0);  // 1.5 + 0 + 1.5
  EXPECT_EQ(loss_function("hinge", a, s, {0.5}).tensor().item<double>(),
            F::hinge_embedding_loss(a, s, torch::nn::HingeEmbeddingLossOptions().margin(0.5))
                .item<double>());
}

TEST_F(LossTest, InputCountMustMatchTheKind) {
  auto scope = Scope::Open();
  const at::Tensor x = at::randn({2, 3});
  Handle triplet = loss("triplet");
  Handle mse = loss("mse");
  EXPECT_EQ(ErrorOf([&] { loss(triplet, x, x); }), "loss: `triplet expects 3 inputs, given 2");
  EXPECT_EQ(ErrorOf([&] { loss(mse, x, x, x); }), "loss: `mse expects 2 inputs, given 3");
  EXPECT_EQ(ErrorOf([&] { loss_function("cosineloss", x, x); }),
            "cosineloss: `cosineloss expects 3 inputs, given 2");
  EXPECT_EQ(loss_signature("mse").most_inputs, 2u);
  EXPECT_EQ(loss_signature("poissonloss").options,
            (std::vector<std::string>{"log", "full", "eps", "reduce"}));
}

TEST_F(LossTest, BadNewLossOptions) {
  EXPECT_EQ(ErrorOf([] {
              loss("triplet", {1.0, 2.0, 1e-6, false, std::string("l2")});
            }),
            "triplet: unrecognized reduce `l2, expecting mean, sum or none");
  EXPECT_EQ(ErrorOf([] {
              loss("triplet", {}, {{"p", std::string("l2")}});
            }),
            "triplet: option `p expects double, given symbol");
  EXPECT_EQ(ErrorOf([] { loss("poissonloss", {std::int64_t{1}}); }),
            "poissonloss: option `log expects boolean, given long");
  EXPECT_EQ(ErrorOf([] { loss("multimargin", {1.5}); }),
            "multimargin: option `p expects long, given double");
  EXPECT_EQ(ErrorOf([] {
              loss("cosineloss", {0.0, std::string("batchmean")});
            }),
            "cosineloss: unrecognized reduce `batchmean, expecting mean, sum or none");
  EXPECT_EQ(ErrorOf([] {
              loss("hinge", {1.0, kSum, 2.0});
            }),
            "hinge: 3 positional option(s) given, expecting at most 2");
  EXPECT_THAT(ErrorOf([] { loss("multimargin", {std::int64_t{3}}); }),
              HasSubstr("only p == 1 and p == 2 supported"));
  EXPECT_EQ(live_handles(), 0u);
}

// A CTC problem: log probabilities over 5 classes for 12 steps of 2 sequences, targets padded
// to 4 labels, and the lengths of both (different, so mixing them up would show).
struct CtcCase {
  at::Tensor logprobs = at::randn({12, 2, 5}).log_softmax(2);
  at::Tensor targets = at::randint(1, 5, {2, 4}, at::kLong);
  at::Tensor input_lengths = at::tensor({12, 9}, at::kLong);
  at::Tensor target_lengths = at::tensor({4, 2}, at::kLong);
  at::Tensor Expected(std::int64_t blank, at::Reduction::Reduction reduction,
                      bool zero_infinity) const {
    return at::ctc_loss(logprobs, targets, input_lengths, target_lengths, blank, reduction,
                        zero_infinity);
  }
};

TEST_F(LossTest, CtcObjectTakesFourInputsInOrder) {
  // q)l:loss`ctc  loss(l;logprobs;y;nx;ny): ktorch reads a fifth tensor for ny; kscope the fourth.
  auto scope = Scope::Open();
  const CtcCase c;
  Handle l = loss("ctc");
  EXPECT_THAT(describe_loss(l).options,
              ElementsAre(Option("blank", std::int64_t{0}), Option("zeroinf", false),
                          Option("reduce", std::string("mean"))));
  Handle in[] = {tensor(c.logprobs), tensor(c.targets), tensor(c.input_lengths),
                 tensor(c.target_lengths)};
  const Result r = loss(l, {in[0], in[1], in[2], in[3]});
  EXPECT_TRUE(at::allclose(tensor(r.handle()), c.Expected(0, at::Reduction::Mean, false)));
  EXPECT_EQ(ErrorOf([&] {
              loss(l, {in[0], in[1], in[2]});
            }),
            "loss: `ctc expects 4 inputs, given 3");
}

TEST_F(LossTest, CtcFunctionWithOptions) {
  auto scope = Scope::Open();
  const CtcCase c;
  const std::vector<Operand> in = {c.logprobs, c.targets, c.input_lengths, c.target_lengths};
  EXPECT_TRUE(at::allclose(loss_function("ctc", in, {std::int64_t{0}, true, kSum}).tensor(),
                           c.Expected(0, at::Reduction::Sum, true)));
  EXPECT_TRUE(at::allclose(loss_function("ctc", in, {}, {{"reduce", kNone}}).tensor(),
                           c.Expected(0, at::Reduction::None, false)));
  EXPECT_EQ(ErrorOf([&] { loss_function("ctc", in, {1.5}); }),
            "ctc: option `blank expects long, given double");
}

TEST_F(LossTest, DistancesHaveNoReduce) {
  auto scope = Scope::Open();
  const at::Tensor x1 = at::randn({4, 6}), x2 = at::randn({4, 6});
  EXPECT_EQ(loss_signature("pairwise").options, (std::vector<std::string>{"p", "eps", "keepdim"}));
  EXPECT_EQ(loss_signature("similar").options, (std::vector<std::string>{"dim", "eps"}));
  EXPECT_TRUE(
      at::allclose(loss_function("pairwise", x1, x2).tensor(), at::pairwise_distance(x1, x2)));
  EXPECT_TRUE(
      at::allclose(loss_function("pairwise", x1, x2, {std::int64_t{1}, 1e-3, true}).tensor(),
                   at::pairwise_distance(x1, x2, 1, 1e-3, true)));
  Handle similar = loss("similar", {std::int64_t{0}});
  EXPECT_THAT(describe_loss(similar, false).options, ElementsAre(Option("dim", std::int64_t{0})));
  EXPECT_TRUE(at::allclose(tensor(loss(similar, tensor(x1), tensor(x2))),
                           at::cosine_similarity(x1, x2, 0)));
  EXPECT_EQ(ErrorOf([] {
              loss("pairwise", {2.0, 1e-6, false, kSum});
            }),
            "pairwise: 4 positional option(s) given, expecting at most 3");
  EXPECT_EQ(ErrorOf([] {
              loss("similar", {}, {{"reduce", kSum}});
            }),
            "similar: unrecognized option `reduce");
}

TEST_F(LossTest, BatchWeightsOfBceAndBceLogits) {
  auto scope = Scope::Open();
  const at::Tensor p = at::rand({4, 3}) * 0.8 + 0.1, logits = at::randn({4, 3}),
                   y = at::rand({4, 3});
  const at::Tensor w = at::rand({4, 1}), classwt = at::tensor({1.f, 2.f, 3.f});
  // loss(l;yhat;y;w)
  Handle bce = loss("bce");
  EXPECT_TRUE(
      at::allclose(tensor(loss(bce, tensor(p), tensor(y), tensor(w))),
                   F::binary_cross_entropy(p, y, F::BinaryCrossEntropyFuncOptions().weight(w))));
  EXPECT_TRUE(at::allclose(tensor(loss(bce, tensor(p), tensor(y))), F::binary_cross_entropy(p, y)));
  // bce(yhat;y;w;reduce)
  EXPECT_TRUE(
      at::allclose(loss_function("bce", {p, y, w}, {kSum}).tensor(),
                   F::binary_cross_entropy(
                       p, y, F::BinaryCrossEntropyFuncOptions().weight(w).reduction(torch::kSum))));
  // bcelogit2(yhat;y;w;classwt;reduce)
  Handle logit = loss("bcelogits", {std::vector<double>{1, 2, 3}, kNone});
  const at::Tensor expected = F::binary_cross_entropy_with_logits(
      logits, y,
      F::BinaryCrossEntropyWithLogitsFuncOptions().weight(w).pos_weight(classwt).reduction(
          torch::kNone));
  EXPECT_TRUE(at::allclose(tensor(loss(logit, tensor(logits), tensor(y), tensor(w))), expected));
  EXPECT_TRUE(at::allclose(
      loss_function("bcelogits", {logits, y, w}, {std::vector<double>{1, 2, 3}, kNone}).tensor(),
      expected));
  EXPECT_EQ(loss_signature("bce").most_inputs, 3u);
  EXPECT_EQ(ErrorOf([&] { loss(bce, {p, y, w, w}); }), "loss: `bce expects 2 to 3 inputs, given 4");
}

// ktorch's 21 losses.
const char* const kAllLosses[] = {
    "bce", "bcelogits", "ce",          "cosineloss", "ctc",        "hinge",       "huber",
    "kl",  "l1",        "margin",      "mse",        "multilabel", "multimargin", "multisoft",
    "nll", "pairwise",  "poissonloss", "similar",    "smoothl1",   "softmargin",  "triplet"};

TEST_F(LossTest, EveryLossButTheDistancesEndsWithReduce) {
  for (const std::string kind : kAllLosses) {
    SCOPED_TRACE(kind);
    const std::vector<std::string> options = loss_signature(kind).options;
    if (kind == "pairwise" || kind == "similar") {
      EXPECT_THAT(options, ::testing::Not(::testing::Contains("reduce")));
    } else {
      ASSERT_FALSE(options.empty());
      EXPECT_EQ(options.back(), "reduce");
      // Every option given by position, the defaults then `sum last.
      auto scope = Scope::Open();
      std::vector<nn::OptionValue> positional;
      for (const auto& [name, value] : describe_loss(loss(kind)).options)
        positional.push_back(value);
      positional.back() = kSum;
      EXPECT_EQ(describe_loss(loss(kind, positional), false).options,
                (nn::NamedValues{{"reduce", kSum}}));
    }
  }
  EXPECT_EQ(live_handles(), 0u);
}

TEST_F(LossTest, RecreatedFromItsDescription) {
  // q)l:loss d`loss  -- from the dictionary `loss l` (or `model m`) returned
  auto scope = Scope::Open();
  const std::vector<std::pair<std::string, std::vector<nn::OptionValue>>> defined = {
      {"ce", {std::vector<double>{1, 2}, std::int64_t{3}, 0.1, kSum}},
      {"ctc", {std::int64_t{2}, true}},
      {"triplet", {0.5, 1.0, 1e-5, true, kNone}},
      {"pairwise", {1.0, 1e-3, true}},
      {"mse", {}},
  };
  for (const auto& [kind, options] : defined) {
    SCOPED_TRACE(kind);
    Handle l = loss(kind, options);
    for (bool all : {true, false}) {
      Handle copy = loss(describe_loss(l, all));
      EXPECT_EQ(describe_loss(copy).kind, kind);
      EXPECT_EQ(describe_loss(copy).options, describe_loss(l).options);
    }
  }
  EXPECT_EQ(ErrorOf([] { loss(LossDescription{"cee", {}}); }), "unrecognized loss function: cee");
}

TEST_F(LossTest, BadLossesChangeNothing) {
  EXPECT_EQ(ErrorOf([] { loss("cee"); }), "unrecognized loss function: cee");
  EXPECT_EQ(ErrorOf([] { loss("mse", {std::string("average")}); }),
            "mse: unrecognized reduce `average, expecting mean, sum or none");
  EXPECT_EQ(ErrorOf([] {
              loss("ce", {}, {{"ignore", 1.5}});
            }),
            "ce: option `ignore expects long, given double");
  EXPECT_EQ(live_handles(), 0u);
  auto scope = Scope::Open();
  Handle l = loss("mse");
  EXPECT_EQ(ErrorOf([&] { forward(l, at::ones({1})); }),
            "forward: expected module or model, given loss");
}

}  // namespace loss_test
}  // namespace kscope
