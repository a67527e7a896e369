// api/nn/optimizer.h: parameter groups (ktorch's opt(o;group;params;opts..)), parameters taken
// from modules, children, tensors, vectors and dictionaries, per-group options and learning
// rates, the parms rows of `opt o`, and the modules an optimizer keeps alive.
#include <torch/nn/functional/linear.h>
#include <torch/optim/adagrad.h>
#include <torch/optim/adam.h>
#include <torch/optim/sgd.h>

#include "api/nn/optimizer_object.h"
#include "tests/error_text.h"
#include "tests/optimizer_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace optimizer_groups_test {

using testing::Backward;
using ::testing::ElementsAre;
using testing::ErrorOf;
using ::testing::HasSubstr;
using testing::LeakCheckTest;
using testing::Linear;

using OptimizerGroupsTest = LeakCheckTest;
using Option = std::pair<std::string, nn::OptionValue>;

std::int64_t Pointer(Handle tensor) { return ptr(tensor).single(); }

struct Row {
  std::int64_t group;
  std::string module, name;
  std::vector<std::int64_t> size;
};
std::vector<Row> Rows(Handle o) {
  std::vector<Row> rows;
  for (const OptimizerParameter& p : describe_opt(o).parameters)
    rows.push_back(Row{p.group, p.module, p.name, p.size});
  return rows;
}
MATCHER_P4(IsRow, group, module, name, size, "") {
  return arg.group == group && arg.module == module && arg.name == name &&
         arg.size == std::vector<std::int64_t>(size);
}

TEST_F(OptimizerGroupsTest, TwoModulesInTwoGroupsStepAsLibtorchSeed004) {
  // q)o:opt`sgd; opt(o;0;a); opt(o;1;b)
  auto scope = Scope::Open();
  Handle a = Linear(4, 3), b = Linear(3, 2);
  Handle o = opt("sgd");
  opt_edit(o, 0, {a}, {0.1});
  opt_edit(o, 1, {b}, {0.5, 0.9});
  EXPECT_THAT(lr(o), ElementsAre(0.1, 0.5));
  EXPECT_EQ(ref(a).single(), 2);  // the optimizer holds each module once
  EXPECT_EQ(ref(b).single(), 2);
  const OptimizerDescription d = describe_opt(o, false);
  EXPECT_EQ(d.options,
            (std::vector<nn::NamedValues>{{{"lr", 0.1}}, {{"lr", 0.5}, {"momentum", 0.9}}}));
  EXPECT_THAT(Rows(o), ElementsAre(IsRow(0, "linear", "weight", std::vector<std::int64_t>{3, 4}),
                                   IsRow(0, "linear", "bias", std::vector<std::int64_t>{3}),
                                   IsRow(1, "linear", "weight", std::vector<std::int64_t>{2, 3}),
                                   IsRow(1, "linear", "bias", std::vector<std::int64_t>{2})));
  EXPECT_EQ(d.parameters[0].pointer, Pointer(parm(a, "weight")));  // the parameter's ptr
  EXPECT_EQ(d.parameters[3].pointer, Pointer(parm(b, "bias")));
  EXPECT_EQ(ErrorOf([&] { opt_edit(o, 3, {}); }),
            "opt: group 3 invalid, cannot be greater than number of groups(2)");

  // libtorch's SGD with the same two groups, over copies of the parameters.
  at::Tensor wa = tensor(parm(a, "weight")).requires_grad_(),
             ba = tensor(parm(a, "bias")).requires_grad_();
  at::Tensor wb = tensor(parm(b, "weight")).requires_grad_(),
             bb = tensor(parm(b, "bias")).requires_grad_();
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<at::Tensor>{wa, ba},
                      std::make_unique<torch::optim::SGDOptions>(0.1));
  groups.emplace_back(
      std::vector<at::Tensor>{wb, bb},
      std::make_unique<torch::optim::SGDOptions>(torch::optim::SGDOptions(0.5).momentum(0.9)));
  torch::optim::SGD reference(groups, torch::optim::SGDOptions(0.01));
  for (int i = 0; i < 2; ++i) {
    const at::Tensor x = at::randn({5, 4});
    zerograd(o);
    forward(b, forward(a, x).tensor()).tensor().sum().backward();
    step(o);
    reference.zero_grad();
    torch::nn::functional::linear(torch::nn::functional::linear(x, wa, ba), wb, bb)
        .sum()
        .backward();
    reference.step();
  }
  EXPECT_TRUE(at::allclose(tensor(parm(a, "weight")), wa.detach()));
  EXPECT_TRUE(at::allclose(tensor(parm(b, "weight")), wb.detach()));
  EXPECT_TRUE(at::allclose(tensor(parm(b, "bias")), bb.detach()));
  kscope::free(o);
  EXPECT_EQ(ref(a).single(), 1);
  EXPECT_EQ(ref(b).single(), 1);
}

TEST_F(OptimizerGroupsTest, ChildrenByNameOrIndex) {
  // q)o:opt(`adam;0;(q;`2)); opt(o;1;(q;0))
  auto scope = Scope::Open();
  Handle q = testing::Sequential(4, 5, 2);
  Handle o = opt_group("adam", 0, {q, {"2"}, {}});
  opt_edit(o, 1, {q, {}, {0}}, {}, {{"lr", 0.01}});
  EXPECT_THAT(Rows(o), ElementsAre(IsRow(0, "linear", "2.weight", std::vector<std::int64_t>{2, 5}),
                                   IsRow(0, "linear", "2.bias", std::vector<std::int64_t>{2}),
                                   IsRow(1, "linear", "0.weight", std::vector<std::int64_t>{5, 4}),
                                   IsRow(1, "linear", "0.bias", std::vector<std::int64_t>{5})));
  EXPECT_EQ(ref(q).single(), 2);
  EXPECT_THAT(lr(o), ElementsAre(0.001, 0.01));
  EXPECT_EQ(ErrorOf([&] {
              opt_edit(o, 1, {q, {"x"}, {}});
            }),
            "opt: no parameter or child module `x in sequential module");
  EXPECT_EQ(ErrorOf([&] {
              opt_edit(o, 1, {q, {}, {3}});
            }),
            "opt: child index 3 invalid for sequential module with 3 child module(s)");
  EXPECT_EQ(ErrorOf([&] {
              opt_edit(o, 0, {q, {"0"}, {}});
            }),
            "opt: parameter `0.weight is already optimized");
  EXPECT_EQ(ErrorOf([&] { opt_edit(o, 0, {q}); }), "opt: parameter `0.weight is already optimized");
  EXPECT_EQ(describe_opt(o).parameters.size(), 4u);  // the failed edits added nothing
  // Whole module at creation, group 1 (group 0 stays empty).
  Handle o2 = opt_group("sgd", 1, {q});
  EXPECT_THAT(lr(o2), ElementsAre(0.01, 0.01));
  EXPECT_EQ(describe_opt(o2).parameters.front().group, 1);
  EXPECT_EQ(ErrorOf([&] { opt_group("sgd", 2, {q}); }),
            "opt: group 2 invalid, cannot be greater than number of groups(1)");
  EXPECT_EQ(ErrorOf([&] { opt_group("sgd", -1, {q}); }),
            "opt: group -1 invalid, cannot be negative");
  EXPECT_EQ(ref(q).single(), 3);
}

TEST_F(OptimizerGroupsTest, LooseTensorsAreHeldInAParmdict) {
  // q)x:tensor(0.5 2.5 3e;`grad); o:opt(`sgd;x) ...
  auto scope = Scope::Open();
  at::Tensor x = at::tensor({0.5f, 2.5f, 3.0f}).requires_grad_();
  Handle hx = tensor(x);
  at::Tensor v0 = at::ones({2}).requires_grad_(), v1 = at::ones({3}).requires_grad_(),
             v2 = at::ones({1}).requires_grad_();
  Handle v = vector({tensor(v0), tensor(v1), tensor(v2)});
  at::Tensor dp = at::zeros({2, 2}).requires_grad_(), dr = at::zeros({1}).requires_grad_();
  Handle d = dict({{"p", tensor(dp)}, {"r", tensor(dr)}});
  Handle o = opt_group("sgd", 0, {hx}, {0.5});
  opt_edit(o, 1, {v, {}, {2, 0}});
  opt_edit(o, 2, {d, {"r"}, {}});
  opt_edit(o, 2, {d, {"p"}, {}});
  EXPECT_THAT(Rows(o), ElementsAre(IsRow(0, "parmdict", "0", std::vector<std::int64_t>{3}),
                                   IsRow(1, "parmdict", "2", std::vector<std::int64_t>{1}),
                                   IsRow(1, "parmdict", "0", std::vector<std::int64_t>{2}),
                                   IsRow(2, "parmdict", "r", std::vector<std::int64_t>{1}),
                                   IsRow(2, "parmdict", "p", std::vector<std::int64_t>{2, 2})));
  EXPECT_EQ(describe_opt(o).parameters[0].pointer, Pointer(hx));
  EXPECT_EQ(class_(hx), ObjectClass::kTensor);  // the caller's handles stay
  EXPECT_EQ(class_(v), ObjectClass::kVector);
  // The optimizer steps the very tensors: x - lr * d(sum x^2)/dx.
  (x * x).sum().backward();
  step(o);
  EXPECT_TRUE(at::allclose(tensor(hx), at::tensor({0.0f, 0.0f, 0.0f})));
  EXPECT_EQ(ErrorOf([&] {
              opt_edit(o, 0, {hx, {"a"}, {}});
            }),
            "opt: a tensor takes no keys or indices");
  EXPECT_EQ(ErrorOf([&] {
              opt_edit(o, 0, {v, {}, {3}});
            }),
            "opt: vector index 3 invalid for 3 tensor(s)");
  EXPECT_EQ(ErrorOf([&] { opt_edit(o, 0, {d, {"zz"}, {}}); }), "opt: no key `zz in dictionary");
  EXPECT_EQ(ErrorOf([&] { opt_edit(o, 0, {o}); }),
            "opt: expected module, model, tensor, vector or dictionary, given optimizer");
  Handle y = tensor(x * 2);  // not a leaf
  EXPECT_EQ(ErrorOf([&] { opt_edit(o, 0, {y}); }),
            "opt: parameter `0 is not a leaf tensor, it cannot be optimized");
  EXPECT_EQ(describe_opt(o).parameters.size(), 5u);
}

TEST_F(OptimizerGroupsTest, GroupOptionsAndLearningRates) {
  auto scope = Scope::Open();
  Handle a = Linear(3, 2), b = Linear(2, 1);
  Handle o = opt("adam", a, {0.1});
  opt_edit(o, 0, {}, {}, {{"amsgrad", true}});
  opt_edit(o, 1, {b});  // a new group starts from the optimizer's options, not group 0's
  EXPECT_EQ(describe_opt(o, false).options,
            (std::vector<nn::NamedValues>{{{"lr", 0.1}, {"amsgrad", true}}, {{"lr", 0.1}}}));
  const auto& groups = nn::OptimizerOf("test", o)->optimizer().param_groups();
  EXPECT_TRUE(static_cast<const torch::optim::AdamOptions&>(groups[0].options()).amsgrad());
  EXPECT_FALSE(static_cast<const torch::optim::AdamOptions&>(groups[1].options()).amsgrad());
  EXPECT_THAT(ErrorOf([&] { opt_edit(o, 1, {}, {-1.0}); }), HasSubstr("Invalid learning rate: -1"));
  EXPECT_EQ(ErrorOf([&] {
              opt_edit(o, 1, {}, {}, {{"gamma", 1.0}});
            }),
            "adam: unrecognized option `gamma");
  lr(o, std::vector<double>{0.2, 0.3});
  EXPECT_THAT(lr(o), ElementsAre(0.2, 0.3));
  EXPECT_EQ(describe_opt(o, false).options[1], (nn::NamedValues{{"lr", 0.3}}));
  EXPECT_EQ(ErrorOf([&] { lr(o, std::vector<double>{0.1}); }), "lr: 1 rates given for 2 groups");
  EXPECT_EQ(ErrorOf([&] { lr(o, std::vector<double>{0.1, -1}); }), "lr: invalid learning rate -1");
  lr(o, 0.05);
  EXPECT_THAT(lr(o), ElementsAre(0.05, 0.05));
  opt_edit(o, 2, {});  // the optimizer's rate is now the new one
  EXPECT_THAT(lr(o), ElementsAre(0.05, 0.05, 0.05));
  EXPECT_EQ(ErrorOf([&] { opt_edit(opt("lbfgs"), 1, {b}); }),
            "opt: lbfgs does not support parameter groups");
}

TEST_F(OptimizerGroupsTest, AdagradSumIsMadeForParametersAddedLater) {
  auto scope = Scope::Open();
  Handle q = Linear(3, 2);
  Handle o = opt("adagrad", {0.1}, {{"init", 0.5}});
  EXPECT_EQ(tensorcount(o), 0);
  opt_edit(o, 0, {q});
  EXPECT_EQ(tensorcount(o), 2);  // as libtorch's constructor makes them
  at::Tensor w = tensor(parm(q, "weight")).requires_grad_(),
             b = tensor(parm(q, "bias")).requires_grad_();
  torch::optim::Adagrad reference({w, b},
                                  torch::optim::AdagradOptions(0.1).initial_accumulator_value(0.5));
  const at::Tensor x = at::randn({4, 3});
  Backward(q, x);
  step(o);
  torch::nn::functional::linear(x, w, b).sum().backward();
  reference.step();
  EXPECT_TRUE(at::allclose(tensor(parm(q, "weight")), w.detach()));
  EXPECT_TRUE(at::allclose(tensor(parm(q, "bias")), b.detach()));
}

}  // namespace optimizer_groups_test
}  // namespace kscope
