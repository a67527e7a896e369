// ktorch's containers (api/nn/kinds/ktorch_containers.cc), callback modules
// (api/nn/callback_registry.h) and extending a container (module(q;depth;defn), module(q;child)):
// each container's output is checked against the same computation written with its children run one
// by one.
#include "api/core/pointer.h"
#include "api/math/math.h"
#include "api/nn/callback_registry.h"
#include "api/nn/module.h"
#include "api/tensor/autograd.h"
#include "api/tensor/tensor.h"
#include "runtime/handle_table.h"
#include "tests/error_text.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace container_kinds_test {

using ::testing::ElementsAre;
using testing::ErrorOf;
using ::testing::HasSubstr;
using testing::LeakCheckTest;

using ContainerKindsTest = LeakCheckTest;

ModuleDefinition Def(std::string kind, std::vector<nn::OptionValue> positional = {},
                     std::string name = "", std::vector<ModuleDefinition> children = {}) {
  return ModuleDefinition{
      std::move(kind), std::move(name), std::move(positional), {}, std::move(children)};
}
ModuleDefinition Linear(std::int64_t in, std::int64_t out, std::string name = "") {
  return Def("linear", {in, out}, std::move(name));
}

// Child `name` of q run alone on x (data in, data out).
at::Tensor RunChild(Handle q, const std::string& name, const at::Tensor& x) {
  return forward(q, absl::MakeConstSpan({Operand(x)}), ForwardMode::kForward, name).tensor();
}

TEST_F(ContainerKindsTest, SeqnestChainsAndNestsInsideSequential) {
  auto scope = Scope::Open();
  Handle q = module(Def("seqnest", {}, "", {Linear(4, 3), Def("relu"), Linear(3, 2)}));
  EXPECT_THAT(childnames(q), ElementsAre("0", "1", "2"));
  const at::Tensor x = at::randn({5, 4});
  const at::Tensor expected = RunChild(q, "2", RunChild(q, "1", RunChild(q, "0", x)));
  EXPECT_TRUE(at::allclose(forward(q, x).tensor(), expected));
  // Unlike sequential, seqnest can be a child of a sequential.
  Handle s =
      module(Def("sequential", {}, "", {Def("seqnest", {}, "inner", {Linear(4, 2)}), Def("tanh")}));
  const at::Tensor inner = RunChild(s, "inner", x);
  EXPECT_TRUE(at::allclose(forward(s, x).tensor(), at::tanh(inner)));
  EXPECT_THAT(
      ErrorOf([] { module(Def("sequential", {}, "", {Def("sequential")})); }),
      HasSubstr("sequential: unable to create type-erased module, forward method uses template"));
}

TEST_F(ContainerKindsTest, SeqlistPassesExtraInputsAlong) {
  auto scope = Scope::Open();
  Handle q = module(Def("seqlist", {}, "", {Linear(4, 3), Def("cat", {std::int64_t{1}})}));
  const at::Tensor x = at::randn({2, 4}), y = at::randn({2, 5});
  const at::Tensor expected = at::cat({RunChild(q, "0", x), y}, 1);
  EXPECT_TRUE(
      at::allclose(forward(q, absl::MakeConstSpan({Operand(x), Operand(y)})).tensor(), expected));
}

TEST_F(ContainerKindsTest, SeqjoinForkResidualTransform) {
  auto scope = Scope::Open();
  const at::Tensor x = at::randn({3, 4}), y = at::randn({3, 4});
  Handle j = module(Def("seqjoin", {}, "",
                        {Linear(4, 4), Linear(4, 4),
                         Def("bilinear", {std::int64_t{4}, std::int64_t{4}, std::int64_t{2}})}));
  EXPECT_THAT(childnames(j), ElementsAre("qx", "qy", "join"));
  {
    const at::Tensor a = RunChild(j, "qx", x), b = RunChild(j, "qy", y);
    const at::Tensor joined =
        forward(j, absl::MakeConstSpan({Operand(a), Operand(b)}), ForwardMode::kForward, "join")
            .tensor();
    EXPECT_TRUE(
        at::allclose(forward(j, absl::MakeConstSpan({Operand(x), Operand(y)})).tensor(), joined));
  }
  Handle f = module(Def("fork", {}, "", {Linear(4, 2), Def("relu")}));
  EXPECT_THAT(childnames(f), ElementsAre("qa", "qb"));
  const Result forked = forward(f, x);
  const auto& pair = std::get<TensorVector>(forked.value());
  ASSERT_EQ(pair.size(), 2u);
  EXPECT_TRUE(at::allclose(pair[0], RunChild(f, "qa", x)));
  EXPECT_TRUE(at::equal(pair[1], at::relu(x)));
  Handle r = module(Def("residual", {}, "", {Linear(4, 4), Def("tanh", {}, "a")}));
  EXPECT_THAT(childnames(r), ElementsAre("q1", "a"));
  EXPECT_TRUE(at::allclose(forward(r, x).tensor(), at::tanh(RunChild(r, "q1", x) + x)));
  Handle r2 = module(Def("residual", {}, "", {Linear(4, 4), Linear(4, 4)}));
  EXPECT_TRUE(at::allclose(forward(r2, x).tensor(), RunChild(r2, "q1", x) + RunChild(r2, "q2", x)));
  Handle t = module(Def("transform", {}, "", {Def("relu"), Def("tanh")}));
  EXPECT_TRUE(at::equal(forward(t, x).tensor(), at::relu(x)));
  EXPECT_TRUE(at::equal(eforward(t, x).tensor(), at::tanh(x)));
  EXPECT_TRUE(training(t));  // eforward restores the training flag
  EXPECT_THAT(ErrorOf([] {
                module(Def("fork", {}, "", {Def("relu"), Def("relu"), Def("relu")}));
              }),
              HasSubstr("fork: at most 2 child modules"));
}

TEST_F(ContainerKindsTest, RecurWrapsALstmAndDetachesItsState) {
  auto scope = Scope::Open();
  // detach is on by default, and unnamed children are named as ktorch names them
  Handle q =
      module(Def("recur", {}, "", {Def("lstm", {std::int64_t{4}, std::int64_t{3}}), Linear(3, 2)}));
  EXPECT_EQ(describe(q)[0].options[0], (std::pair<std::string, nn::OptionValue>("detach", true)));
  EXPECT_THAT(childnames(q), ElementsAre("lstm", "out"));
  const at::Tensor x = at::randn({5, 1, 4});
  const auto expected = std::get<TensorVector>(
      forward(q, absl::MakeConstSpan({Operand(x)}), ForwardMode::kForward, "lstm").value());
  const auto out = std::get<TensorVector>(forward(q, x).value());
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(at::allclose(out[0], RunChild(q, "out", expected[0])));
  EXPECT_TRUE(at::allclose(out[1], expected[1]));
  EXPECT_FALSE(out[1].requires_grad());  // detached
  EXPECT_TRUE(out[0].requires_grad());
  // The state goes back in as the next call's inputs.
  const auto next = std::get<TensorVector>(
      forward(q, absl::MakeConstSpan({Operand(x), Operand(out[1]), Operand(out[2])})).value());
  EXPECT_EQ(next[0].sizes(), out[0].sizes());
  EXPECT_FALSE(at::allclose(next[1], out[1]));
}

TEST_F(ContainerKindsTest, RecurTakesAnInputChildBeforeTheRecurrentOne) {
  // ktorch's rnn/char.q: recur(sequential(embed); lstm; sequential(linear))
  auto scope = Scope::Open();
  Handle q =
      module(Def("recur", {}, "",
                 {Def("sequential", {}, "", {Def("embed", {std::int64_t{6}, std::int64_t{4}})}),
                  Def("lstm", {std::int64_t{4}, std::int64_t{3}}),
                  Def("sequential", {}, "", {Linear(3, 6)})}));
  EXPECT_THAT(childnames(q), ElementsAre("in", "lstm", "out"));
  const at::Tensor x = at::tensor({1, 2, 5}, at::kLong).view({3, 1});
  const at::Tensor embedded = RunChild(q, "in", x);
  const auto lstm = std::get<TensorVector>(
      forward(q, absl::MakeConstSpan({Operand(embedded)}), ForwardMode::kForward, "lstm").value());
  const auto out = std::get<TensorVector>(forward(q, x).value());
  EXPECT_TRUE(at::allclose(out[0], RunChild(q, "out", lstm[0])));
  EXPECT_TRUE(at::allclose(out[1], lstm[1]));
  EXPECT_EQ(ErrorOf([] {
              forward(module(Def("recur", {}, "", {Linear(3, 2)})), at::randn({2, 3}));
            }),
            "recur: no recurrent lstm, gru or rnn module defined");
}

TEST_F(ContainerKindsTest, NbeatsSubtractsBackcastsAndSumsForecasts) {
  auto scope = Scope::Open();
  auto block = [](std::string name) {
    return Def("fork", {}, std::move(name), {Linear(6, 6), Linear(6, 2)});
  };
  Handle q = module(Def("nbeats", {}, "", {block("b1"), block("b2")}));
  const at::Tensor x = at::randn({3, 6});
  Handle b1 = child(q, "b1"), b2 = child(q, "b2");
  const auto first = std::get<TensorVector>(forward(b1, x).value());
  const auto second = std::get<TensorVector>(forward(b2, x - first[0]).value());
  EXPECT_TRUE(at::allclose(forward(q, x).tensor(), first[1] + second[1]));
}

TEST_F(ContainerKindsTest, HoldersHaveNoForward) {
  auto scope = Scope::Open();
  Handle q = module(Def("modulelist", {}, "", {Linear(2, 2), Linear(2, 3)}));
  EXPECT_EQ(parmnames(q).size(), 4u);
  EXPECT_THAT(ErrorOf([&] { forward(q, absl::Span<const Operand>{}); }),
              HasSubstr("modulelist: no forward calculation"));
  EXPECT_THAT(ErrorOf([&] { forward(q, at::ones({2})); }),
              HasSubstr("`modulelist expects 0 inputs, given 1"));
}

TEST_F(ContainerKindsTest, ExtendAtDepthAndByConsumingAChildHandle) {
  auto scope = Scope::Open();
  Handle q = module(Def("sequential"));
  module(q, Def("seqnest", {}, "block"));
  module(q, 2, Linear(4, 3, "a"));  // into the last container at depth 2: block
  Handle c = module(Def("relu"));
  module(q, c, 2);
  EXPECT_FALSE(HandleTable::Global().Contains(c));  // consumed
  const std::vector<ModuleRow> rows = describe(q);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1].name, "block");
  EXPECT_EQ(rows[2].depth, 2);
  EXPECT_EQ(rows[2].name, "a");
  EXPECT_EQ(rows[3].kind, "relu");
  const at::Tensor x = at::randn({2, 4});
  EXPECT_TRUE(at::allclose(forward(q, x).tensor(), at::relu(RunChild(q, "block", x))));
  // Errors change nothing: the child handle survives a refused addition.
  Handle d = module(Def("tanh"));
  EXPECT_THAT(ErrorOf([&] { module(q, d, 4); }), HasSubstr("module: no container at depth 4"));
  EXPECT_THAT(ErrorOf([&] { module(q, q); }),
              HasSubstr("module: unable to add a module to itself"));
  EXPECT_THAT(ErrorOf([&] { module(d, Def("relu")); }),
              HasSubstr("module: tanh is not a container"));
  EXPECT_TRUE(HandleTable::Global().Contains(d));
  EXPECT_EQ(describe(q).size(), 4u);
}

TEST_F(ContainerKindsTest, CallbackAndParmdictHoldTheirParmsAndBuffers) {
  auto scope = Scope::Open();
  register_callback("scale", [](Handle m, absl::Span<const Handle> x) {
    return Handle(mul(x[0], parm(m, "w")));
  });
  ModuleDefinition d = Def("callback", {std::string("scale")});
  const at::Tensor w = at::tensor({0.5, 2.5, 3.0}, at::kFloat);
  d.named = {{"parms", nn::NamedTensors{{"w"}, {w}}},
             {"buffers", nn::NamedTensors{{"n"}, {at::zeros({1})}}}};
  Handle q = module(d);
  EXPECT_THAT(parmnames(q), ElementsAre("w"));
  EXPECT_EQ(tensorcount(q), 2);  // the parameter and the buffer
  const at::Tensor x = at::ones({3});
  EXPECT_TRUE(at::allclose(forward(q, x).tensor(), w));
  // The definition keeps the values it was given; the parameter is the module's own copy.
  EXPECT_TRUE(gradflag(parm(q, "w")));
  parm(q, "w", at::ones({3}));
  const std::vector<ModuleRow> rows = describe(q);
  const auto& given = std::get<nn::NamedTensors>(rows[0].options[3].second);
  EXPECT_TRUE(at::equal(given.tensors[0], w));
  unregister_callback("scale");

  ModuleDefinition pd = Def("parmdict");
  pd.named = {{"parms", nn::NamedTensors{{"a", "b"}, {at::ones({2}), at::zeros({3})}}}};
  Handle h = module(pd);
  EXPECT_THAT(parmnames(h), ElementsAre("a", "b"));
  EXPECT_THAT(ErrorOf([&] { module(h, Def("relu")); }),
              HasSubstr("module: parmdict is not a container"));
  pd.named = {{"parms", nn::NamedTensors{{"a", "a"}, {at::ones({2}), at::zeros({3})}}}};
  EXPECT_THAT(ErrorOf([&] { module(pd); }),
              HasSubstr("parmdict: parameter or buffer `a given twice"));
}

TEST_F(ContainerKindsTest, CallbackRunsARegisteredFunctionAndItsHandlesEndWithTheCall) {
  auto scope = Scope::Open();
  int calls = 0;
  register_callback("double", [&](Handle m, absl::Span<const Handle> x) {
    ++calls;
    EXPECT_EQ(class_(m), ObjectClass::kModule);
    Handle extra = tensor(at::ones({1}));  // a temporary the callback does not free
    (void)extra;
    return Handle(mul(x[0], 2.0));
  });
  const std::size_t before = live_handles();
  Handle q = module(Def("callback", {std::string("double")}));
  const at::Tensor x = at::randn({3});
  EXPECT_TRUE(at::allclose(forward(q, x).tensor(), 2 * x));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(live_handles(), before + 1);  // only q: the call's handles were released
  // Inside a sequential too.
  Handle s =
      module(Def("sequential", {}, "", {Def("callback", {std::string("double")}), Def("relu")}));
  EXPECT_TRUE(at::allclose(forward(s, x).tensor(), at::relu(2 * x)));
  EXPECT_TRUE(unregister_callback("double"));
  EXPECT_THAT(ErrorOf([&] { forward(q, x); }), HasSubstr("callback: no function `double"));
  register_callback("module", [](Handle m, absl::Span<const Handle>) { return m; });
  Handle bad = module(Def("callback", {std::string("module")}));
  EXPECT_THAT(ErrorOf([&] { forward(bad, x); }), HasSubstr("callback: `module returned a module"));
  unregister_callback("module");
  EXPECT_EQ(live_handles(), before + 3);
  EXPECT_THAT(ErrorOf([] {
                module(Def("callback", {std::string("f"), std::string("vector")}));
              }),
              HasSubstr("callback: unrecognized input type `vector"));
}

}  // namespace container_kinds_test
}  // namespace kscope
