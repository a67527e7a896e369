// api/nn/module_state.h: a module's state, recreating the module from it (same outputs on the
// same inputs), cloning, and bad states refused with nothing left behind.
#include "api/nn/module_state.h"
#include "api/nn/module_parameters.h"
#include "tests/error_text.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace module_state_test {

using ::testing::ElementsAre;
using testing::ErrorOf;
using testing::LeakCheckTest;

using ModuleStateTest = LeakCheckTest;

ModuleDefinition Def(std::string kind, std::vector<nn::OptionValue> positional = {},
                     std::string name = "") {
  return ModuleDefinition{std::move(kind), std::move(name), std::move(positional), {}, {}};
}

// sequential: linear (4 -> 3), batchnorm1d (3), relu, trained a step so that the batchnorm's
// running statistics are no longer their defaults.
Handle TrainedNet() {
  ModuleDefinition d = Def("sequential");
  d.children = {Def("linear", {std::int64_t{4}, std::int64_t{3}}),
                Def("batchnorm1d", {std::int64_t{3}}), Def("relu")};
  Handle q = module(d);
  forward(q, at::randn({8, 4}));
  return q;
}

void ExpectSameDefinition(Handle a, Handle b) {
  const std::vector<ModuleRow> x = describe(a), y = describe(b);
  ASSERT_EQ(x.size(), y.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(x[i].depth, y[i].depth);
    EXPECT_EQ(x[i].kind, y[i].kind);
    EXPECT_EQ(x[i].name, y[i].name);
    EXPECT_EQ(x[i].options, y[i].options);
  }
}

TEST_F(ModuleStateTest, StateHoldsEachModulesOwnValues) {
  auto scope = Scope::Open();
  Handle q = TrainedNet();
  const ModuleState s = state(q);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].module.kind, "sequential");
  EXPECT_EQ(s[1].module.depth, 1);
  EXPECT_EQ(s[1].module.name, "0");
  EXPECT_THAT(s[1].parms.keys(), ElementsAre("weight", "bias"));
  EXPECT_TRUE(s[0].parms.is_empty());
  EXPECT_THAT(s[2].buffers.keys(),
              ElementsAre("running_mean", "running_var", "num_batches_tracked"));
  EXPECT_EQ(s[2].buffers["num_batches_tracked"].item<std::int64_t>(), 1);
  EXPECT_TRUE(at::equal(s[1].parms["weight"], tensor(parm(q, "0.weight"))));
  EXPECT_FALSE(s[1].parms["weight"].requires_grad());  // a detached copy
  // A copy: changing the module later leaves the state as it was.
  const at::Tensor w = s[1].parms["weight"].clone();
  freeze(q, {"0.weight"}, {at::zeros({3, 4})});
  EXPECT_TRUE(at::equal(s[1].parms["weight"], w));
  EXPECT_EQ(state(q, false)[2].module.options.size(), 1u);  // only `in differs from the defaults
  EXPECT_EQ(ErrorOf([] { state(loss("mse")); }), "state: expected module, given loss");
}

TEST_F(ModuleStateTest, ModuleFromStateComputesTheSameOutputs) {
  auto scope = Scope::Open();
  Handle q = TrainedNet();
  Handle r = module(state(q));
  ExpectSameDefinition(q, r);
  const at::Tensor x = at::randn({5, 4});
  EXPECT_TRUE(at::equal(eforward(q, x).tensor(), eforward(r, x).tensor()));
  // New tensors: the recreated module's parameters are its own.
  freeze(r, {"0.bias"}, {at::ones({3})});
  EXPECT_FALSE(at::equal(tensor(parm(q, "0.bias")), at::ones({3})));
  // A single module's state, and one with only non-default options.
  Handle lin = module(Def("linear", {std::int64_t{3}, std::int64_t{2}}, "fc"));
  Handle lin2 = module(state(lin, false));
  ExpectSameDefinition(lin, lin2);
  EXPECT_TRUE(at::equal(evaluate(lin, x.narrow(1, 0, 3)).tensor(),
                        evaluate(lin2, x.narrow(1, 0, 3)).tensor()));
}

TEST_F(ModuleStateTest, DefinitionRowsMakeTheSameArchitecture) {
  auto scope = Scope::Open();
  Handle q = TrainedNet();
  ExpectSameDefinition(q, module(definition(describe(q))));
  EXPECT_EQ(ErrorOf([] { definition({}); }), "module: no module definition rows");
  std::vector<ModuleRow> rows = describe(q);
  rows[2].depth = 3;
  EXPECT_EQ(ErrorOf([&] { definition(rows); }), "module: depth 3 of row 2 does not follow depth 1");
  rows[0].depth = 1;
  EXPECT_EQ(ErrorOf([&] { definition(rows); }),
            "module: the first definition row must be at depth 0, given depth 1");
}

TEST_F(ModuleStateTest, BadStatesAreRefusedWithoutAHandleLeft) {
  auto scope = Scope::Open();
  Handle q = TrainedNet();
  const std::size_t live = live_handles();
  ModuleState missing = state(q);
  missing[1].parms = TensorDict();
  missing[1].parms.insert("weight", at::zeros({3, 4}));
  EXPECT_EQ(ErrorOf([&] { module(missing); }),
            "module: no value for parameter `bias of linear module in state row 1");
  ModuleState wrong = state(q);
  wrong[2].buffers["running_var"] = at::ones({4});
  EXPECT_EQ(
      ErrorOf([&] { module(wrong); }),
      "module: size mismatch for buffer `running_var of batchnorm1d module in state row 2, 3 vs 4");
  ModuleState extra = state(q);
  extra[3].parms.insert("weight", at::ones({1}));
  EXPECT_EQ(ErrorOf([&] { module(extra); }),
            "module: no parameter `weight in relu module (state row 3)");
  ModuleState unknown = state(q);
  unknown[3].module.kind = "relux";
  EXPECT_EQ(ErrorOf([&] { module(unknown); }), "unrecognized module type: `relux");
  EXPECT_EQ(live_handles(), live);
}

TEST_F(ModuleStateTest, CloneIsADeepCopyWithTheSameValuesAndFlags) {
  auto scope = Scope::Open();
  Handle q = TrainedNet();
  freeze(q, {"0.weight"});
  training(q, false);
  Handle c = clone(q);
  ExpectSameDefinition(q, c);
  EXPECT_FALSE(training(c));
  EXPECT_FALSE(gradflag(parm(c, "0.weight")));
  EXPECT_TRUE(gradflag(parm(c, "0.bias")));
  EXPECT_EQ(ref(q).single(), 1);  // nothing shared
  const at::Tensor x = at::randn({5, 4});
  EXPECT_TRUE(at::equal(forward(q, x).tensor(), forward(c, x).tensor()));
  EXPECT_TRUE(at::equal(tensor(buffer(c, "1.running_mean")), tensor(buffer(q, "1.running_mean"))));
  freeze(c, {"0.bias"}, {at::ones({3})});
  EXPECT_FALSE(at::equal(tensor(parm(q, "0.bias")), at::ones({3})));
  // The copy keeps each tensor's dtype: a double module clones to a double module.
  to(q, Options::Parse("to", {"double"}));
  Handle d = clone(q);
  EXPECT_EQ(tensor(parm(d, "0.weight")).scalar_type(), at::kDouble);
  EXPECT_EQ(tensor(buffer(d, "1.num_batches_tracked")).scalar_type(),
            tensor(buffer(q, "1.num_batches_tracked")).scalar_type());
  EXPECT_TRUE(
      at::equal(forward(q, x.to(at::kDouble)).tensor(), forward(d, x.to(at::kDouble)).tensor()));
  EXPECT_EQ(ErrorOf([&] { clone(tensor(at::ones(1))); }), "clone: expected module, given tensor");
}

}  // namespace module_state_test
}  // namespace kscope
