// api/nn/module.h: defining modules ktorch's way, querying them back, running them against
// libtorch's own modules, and reaching their parameters and children.
#include <torch/nn/modules/linear.h>

#include "api/nn/module.h"
#include "tests/error_text.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace module_test {

using ::testing::ElementsAre;
using testing::ErrorOf;
using ::testing::HasSubstr;
using testing::LeakCheckTest;

using ModuleTest = LeakCheckTest;

ModuleDefinition Def(std::string kind, std::vector<nn::OptionValue> positional = {},
                     std::string name = "") {
  return ModuleDefinition{std::move(kind), std::move(name), std::move(positional), {}, {}};
}

TEST_F(ModuleTest, LinearFromPositionalOptionsMatchesLibtorch) {
  auto scope = Scope::Open();
  Handle q = module(Def("linear", {std::int64_t{64}, std::int64_t{10}}));
  EXPECT_EQ(class_(q), ObjectClass::kModule);
  EXPECT_EQ(size(q).single(), std::vector<std::int64_t>{2});  // parameter tensors
  EXPECT_EQ(elements(q), 650);
  EXPECT_EQ(bytes(q), 2600);
  EXPECT_EQ(tensorcount(q), 2);
  EXPECT_EQ(ref(q).single(), 1);
  EXPECT_THAT(parmnames(q), ElementsAre("weight", "bias"));
  // The same computation as libtorch's functional linear with the module's parameters.
  const at::Tensor x = at::randn({3, 64});
  const at::Tensor w = tensor(parm(q, "weight")), b = tensor(parm(q, "bias"));
  const Result y = forward(q, x);
  EXPECT_FALSE(y.is_handle());
  EXPECT_TRUE(at::allclose(y.tensor(), x.matmul(w.t()) + b));
  EXPECT_EQ(str(q), "torch::nn::Linear(in_features=64, out_features=10, bias=true)");
}

TEST_F(ModuleTest, OptionsByNameQueryAndDefaults) {
  auto scope = Scope::Open();
  ModuleDefinition d = Def("linear", {std::int64_t{4}}, "a");
  d.named = {{"out", std::int64_t{2}}, {"bias", false}};
  Handle q = module(d);
  std::vector<ModuleRow> all = describe(q);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].kind, "linear");
  EXPECT_EQ(all[0].name, "a");
  ASSERT_EQ(all[0].options.size(), 3u);
  EXPECT_EQ(all[0].options[2], (std::pair<std::string, nn::OptionValue>("bias", false)));
  std::vector<ModuleRow> changed = describe(q, false);
  EXPECT_EQ(changed[0].options.size(), 3u);  // in, out (no defaults) and bias (0b, not 1b)
  EXPECT_THAT(parmnames(q), ElementsAre("weight"));
  Handle r = module(Def("relu"));
  EXPECT_TRUE(describe(r, false)[0].options.empty());
  EXPECT_EQ(describe(r)[0].options[0], (std::pair<std::string, nn::OptionValue>("inplace", false)));
}

TEST_F(ModuleTest, BadDefinitionsNameTheKind) {
  EXPECT_EQ(ErrorOf([] { module(Def("linear", {std::int64_t{4}})); }),
            "linear: option `out required");
  EXPECT_EQ(ErrorOf([] {
              module(Def("linear", {std::int64_t{4}, std::string("x")}));
            }),
            "linear: option `out expects long, given symbol");
  EXPECT_EQ(ErrorOf([] {
              module(Def("relu", {true, true}));
            }),
            "relu: 2 positional option(s) given, expecting at most 1");
  ModuleDefinition d = Def("relu");
  d.named = {{"slope", 0.1}};
  EXPECT_EQ(ErrorOf([&] { module(d); }), "relu: unrecognized option `slope");
  EXPECT_EQ(ErrorOf([] { module(Def("linearx")); }), "unrecognized module type: `linearx");
  EXPECT_EQ(live_handles(), 0u);
}

TEST_F(ModuleTest, SequentialTreeSeed000) {
  // q)q:module seq(`sequential; (`linear;64;10); `relu)   -2 str q;
  auto scope = Scope::Open();
  ModuleDefinition d = Def("sequential");
  d.children = {Def("linear", {std::int64_t{64}, std::int64_t{10}}), Def("relu")};
  Handle q = module(d);
  EXPECT_EQ(str(q),
            "torch::nn::Sequential(\n"
            "  (0): torch::nn::Linear(in_features=64, out_features=10, bias=true)\n"
            "  (1): torch::nn::ReLU()\n"
            ")");
  std::vector<ModuleRow> rows = describe(q);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].depth, 0);
  EXPECT_EQ(rows[1].kind, "linear");
  EXPECT_EQ(rows[1].name, "0");
  EXPECT_EQ(rows[2].depth, 1);
  EXPECT_THAT(parmnames(q), ElementsAre("0.weight", "0.bias"));
  EXPECT_THAT(childnames(q), ElementsAre("0", "1"));
  const at::Tensor x = at::randn({5, 64});
  const at::Tensor expected =
      at::relu(x.matmul(tensor(parm(q, "0.weight")).t()) + tensor(parm(q, "0.bias")));
  EXPECT_TRUE(at::allclose(forward(q, x).tensor(), expected));
  // A child handle shares the child module; the sequential's extension adds to both.
  std::vector<std::pair<std::string, Handle>> all = children(q);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].first, "1");
  EXPECT_EQ(describe(all[1].second)[0].kind, "relu");
  for (const auto& [name, h] : all) kscope::free(h);
  Handle lin = child(q, "0");
  EXPECT_EQ(describe(lin)[0].kind, "linear");
  EXPECT_EQ(ref(lin).single(), 3);  // the sequential's child registry, its AnyModule, this handle
  module(q, Def("drop", {0.0}));
  EXPECT_THAT(childnames(q), ElementsAre("0", "1", "2"));
  EXPECT_EQ(ErrorOf([&] { module(lin, Def("relu")); }),
            "module: linear is not a container, it cannot have child modules");
  // By index, in childnames order.
  EXPECT_EQ(describe(child(q, std::int64_t{2}))[0].kind, "drop");
  EXPECT_EQ(ErrorOf([&] { child(q, std::int64_t{3}); }),
            "child: index 3 invalid for a module with 3 child module(s)");
}

TEST_F(ModuleTest, ParametersAreSharedNotCopied) {
  auto scope = Scope::Open();
  Handle q = module(Def("linear", {std::int64_t{3}, std::int64_t{2}}));
  Handle w = parm(q, "weight");
  EXPECT_EQ(ref(w).single(), 3);  // module member, registered parameter, this handle
  Handle p = parms(q);
  EXPECT_EQ(class_(p), ObjectClass::kDictionary);
  EXPECT_EQ(dict(p).keys(), (std::vector<std::string>{"weight", "bias"}));
  kscope::free(q);
  EXPECT_EQ(ref(w).single(), 2);  // still alive through w and the dictionary
  EXPECT_EQ(ErrorOf([&] { parm(p, "weight"); }),
            "parm: expected module or model, given dictionary");
}

TEST_F(ModuleTest, TrainingFlagAndAHandleInHandleOut) {
  auto scope = Scope::Open();
  Handle q = module(Def("drop", {0.5}));
  EXPECT_TRUE(training(q));
  training(q, false);
  Handle x = ones({100});
  Handle y = forward(q, x);
  EXPECT_EQ(values<float>(y), values<float>(x));  // no dropout outside training
  EXPECT_EQ(obj().back().origin, "forward");
}

}  // namespace module_test
}  // namespace kscope

namespace kscope {
namespace module_test {

using ModuleToTest = testing::LeakCheckTest;

TEST_F(ModuleToTest, ToConvertsAModuleInPlaceForEveryHandle) {
  // q)to(q;`double): the module itself moves, so a second handle to it sees the change.
  auto scope = Scope::Open();
  Handle q = module(ModuleDefinition{"linear", "", {std::int64_t{3}, std::int64_t{2}}, {}, {}});
  Handle same = addref(q);
  to(q, Options::Parse("to", {"double"}));
  EXPECT_EQ(dtype(parm(same, "weight")).single(), "double");
  const Result y = forward(same, at::ones({1, 3}, at::kDouble));
  EXPECT_EQ(y.tensor().scalar_type(), at::kDouble);
  Handle o = opt("sgd", q);
  EXPECT_EQ(testing::ErrorOf([&] { to(o, Options::Parse("to", {"float"})); }),
            "to: not implemented for optimizers, move the module they optimize");
}

}  // namespace module_test
}  // namespace kscope
