// api/nn/optimizer_state.h: an optimizer's state (options, parms rows, buffers) and a new
// optimizer made from it over another module, which must take the very step the original
// takes next; bad states change nothing.
#include <functional>

#include <torch/optim/lbfgs.h>

#include "api/nn/optimizer_object.h"
#include "api/nn/optimizer_state.h"
#include "tests/error_text.h"
#include "tests/optimizer_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace optimizer_state_test {

using testing::Backward;
using testing::CopyParameters;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using testing::ErrorOf;
using testing::LeakCheckTest;
using testing::Linear;

using OptimizerStateTest = LeakCheckTest;

std::vector<std::string> Names(const OptimizerBuffers& buffers) {
  std::vector<std::string> names;
  for (const auto& b : buffers) names.push_back(b.first);
  return names;
}

// The parameters `names` of q and its copy after one more step of o and of o2 on the same input
// (of 4 columns).
void ExpectSameNextStep(Handle q, Handle o, Handle q2, Handle o2,
                        const std::vector<std::string>& names = {"weight", "bias"}) {
  const at::Tensor x = at::randn({5, 4});
  for (auto [m, op] : {std::pair(q, o), std::pair(q2, o2)}) {
    zerograd(op);
    Backward(m, x);
    step(op);
  }
  for (const std::string& name : names)
    EXPECT_TRUE(at::equal(tensor(parm(q, name)), tensor(parm(q2, name)))) << name;
}

struct StateCase {
  std::string kind;
  nn::NamedValues options;
  std::vector<std::string> buffers;
};

TEST_F(OptimizerStateTest, RestoredOptimizerTakesTheSameNextStep) {
  const std::vector<StateCase> cases = {
      {"sgd", {{"momentum", 0.9}}, {"momentum_buffer"}},
      {"adam", {{"amsgrad", true}}, {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}},
      {"adamw", {}, {"step", "exp_avg", "exp_avg_sq"}},
      {"adagrad", {{"init", 0.1}}, {"step", "sum"}},
      {"rmsprop",
       {{"momentum", 0.5}, {"centered", true}},
       {"step", "square_avg", "momentum_buffer", "grad_avg"}},
      {"lamb", {{"decay", 0.01}}, {"step", "exp_avg", "exp_avg_sq"}},
  };
  for (const StateCase& c : cases) {
    SCOPED_TRACE(c.kind);
    auto scope = Scope::Open();
    Handle q = Linear(4, 3);
    Handle o = opt(c.kind, q, {0.05}, c.options);
    for (int i = 0; i < 2; ++i) {
      zerograd(o);
      Backward(q, at::randn({5, 4}));
      step(o);
    }
    const OptimizerState s = opt_state(o);
    EXPECT_EQ(s.description.options, describe_opt(o).options);
    ASSERT_EQ(s.buffers.size(), 2u);
    EXPECT_THAT(Names(s.buffers[0]), ElementsAreArray(c.buffers));
    Handle q2 = Linear(4, 3);
    CopyParameters(q, q2);
    Handle o2 = opt(s, q2);
    EXPECT_EQ(ref(q2).single(), 2);
    EXPECT_EQ(describe_opt(o2).options, describe_opt(o).options);
    EXPECT_EQ(tensorcount(o2), tensorcount(o));
    ExpectSameNextStep(q, o, q2, o2);
  }
}

TEST_F(OptimizerStateTest, GroupsAndAStateBeforeAnyStep) {
  auto scope = Scope::Open();
  Handle q = testing::Sequential(4, 5, 3);
  Handle o = opt_group("adam", 0, {q, {"0"}, {}});
  opt_edit(o, 1, {q, {"2"}, {}}, {0.01});
  OptimizerState s = opt_state(o);
  ASSERT_EQ(s.buffers.size(), 4u);
  for (const OptimizerBuffers& b : s.buffers) EXPECT_TRUE(b.empty());  // no step yet: no buffers
  Handle q2 = testing::Sequential(4, 5, 3);
  CopyParameters(q, q2);
  Handle o2 = opt(s, q2);
  EXPECT_THAT(lr(o2), ElementsAre(0.001, 0.01));
  const OptimizerDescription d = describe_opt(o2);
  ASSERT_EQ(d.parameters.size(), 4u);
  EXPECT_EQ(d.parameters[2].group, 1);
  EXPECT_EQ(d.parameters[2].name, "2.weight");
  EXPECT_EQ(d.parameters[2].pointer, ptr(parm(q2, "2.weight")).single());
  const at::Tensor x = at::randn({6, 4});
  for (auto [m, op] : {std::pair(q, o), std::pair(q2, o2)}) {
    forward(m, x).tensor().sum().backward();
    step(op);
  }
  EXPECT_TRUE(at::equal(tensor(parm(q, "2.weight")), tensor(parm(q2, "2.weight"))));
  EXPECT_TRUE(at::equal(tensor(parm(q, "0.bias")), tensor(parm(q2, "0.bias"))));
}

TEST_F(OptimizerStateTest, LbfgsStateWithItsHistories) {
  auto scope = Scope::Open();
  Handle q = Linear(4, 3);
  Handle o = opt("lbfgs", q, {0.5, std::int64_t{4}}, {{"history", std::int64_t{3}}});
  const at::Tensor x = at::randn({6, 4});
  auto run = [&](Handle m, Handle op) {
    nn::OptimizerOf("test", op)->optimizer().step([&] {
      zerograd(op);
      at::Tensor loss = forward(m, x).tensor().pow(2).sum();
      loss.backward();
      return loss;
    });
  };
  run(q, o);
  const OptimizerState s = opt_state(o);
  EXPECT_THAT(Names(s.buffers[0]),
              ElementsAre("func_evals", "n_iter", "t", "prev_loss", "d", "H_diag", "prev_flat_grad",
                          "old_dirs", "old_stps", "ro"));
  EXPECT_TRUE(s.buffers[1].empty());  // lbfgs keeps its state under the first parameter
  Handle q2 = Linear(4, 3);
  CopyParameters(q, q2);
  Handle o2 = opt(s, q2);
  // libtorch's step reads its group's max_eval unchecked: the restored group must carry it.
  auto max_eval = [](Handle op) {
    auto& group = nn::OptimizerOf("test", op)->optimizer().param_groups()[0];
    return static_cast<torch::optim::LBFGSOptions&>(group.options()).max_eval();
  };
  ASSERT_TRUE(max_eval(o2).has_value());
  EXPECT_EQ(*max_eval(o2), *max_eval(o));
  EXPECT_EQ(*max_eval(o), 5);  // iter 4: libtorch's default of iter*5/4
  run(q, o);
  run(q2, o2);
  EXPECT_TRUE(at::equal(tensor(parm(q, "weight")), tensor(parm(q2, "weight"))));
}

TEST_F(OptimizerStateTest, AModelGivesItsModulesParameters) {
  auto scope = Scope::Open();
  const Handle q = Linear(4, 2);
  const Handle m = model({addref(q), loss("mse"), opt("sgd", q)});
  const Handle o = opt(opt_state(model_opt(m)), m);
  const auto& rows = opt_state(o).description.parameters;
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].name, "weight");
  EXPECT_EQ(rows[1].name, "bias");
}

TEST_F(OptimizerStateTest, BadStatesCreateNothing) {
  auto scope = Scope::Open();
  Handle q = Linear(4, 3);
  Handle o = opt("adam", q);
  Backward(q, at::randn({2, 4}));
  step(o);
  const OptimizerState good = opt_state(o);
  const std::size_t live = live_handles();
  auto bad = [&](const std::function<void(OptimizerState*)>& edit, Handle m) {
    OptimizerState s = good;
    edit(&s);
    return ErrorOf([&] { opt(s, m); });
  };
  auto none = [](OptimizerState*) {};
  EXPECT_EQ(bad([](OptimizerState* s) { s->description.kind = "foo"; }, q),
            "unrecognized optimizer: foo");
  EXPECT_EQ(bad(none, Linear(5, 3)), "opt: parameter `weight has size 3 5, expecting 3 4");
  EXPECT_EQ(bad([](OptimizerState* s) { s->description.parameters[1].name = "nope"; }, q),
            "opt: no parameter `nope in linear module");
  EXPECT_EQ(bad([](OptimizerState* s) { s->description.parameters[1].group = 1; }, q),
            "opt: parameter `bias is in group 1, but 1 group(s) are defined");
  EXPECT_EQ(bad([](OptimizerState* s) { s->buffers[0].emplace_back("foo", at::zeros({1})); }, q),
            "opt: unrecognized adam buffer `foo for parameter `weight");
  EXPECT_EQ(bad([](OptimizerState* s) { s->buffers[1][1].second = at::zeros({4}); }, q),
            "opt: buffer `exp_avg for parameter `bias has size 4, expecting 3");
  EXPECT_EQ(bad([](OptimizerState* s) { s->buffers[1].pop_back(); }, q),
            "opt: buffer `exp_avg_sq missing for parameter `bias");
  EXPECT_EQ(bad([](OptimizerState* s) { s->buffers.pop_back(); }, q),
            "opt: buffers given for 1 parameter(s), expecting 2");
  EXPECT_EQ(bad([](OptimizerState* s) { s->description.options[0].emplace_back("gamma", 1.0); }, q),
            "adam: unrecognized option `gamma");
  EXPECT_EQ(bad(none, o), "opt: expected module or model, given optimizer");
  EXPECT_EQ(live_handles(), live + 1);  // the Linear(5, 3) made for one case
  EXPECT_EQ(ref(q).single(), 2);        // only o holds q
}

// Sequential(4, 5, 3) under adam: layer 0 in group 0 (lr .001), layer 2 in group 1 (lr `lr1`).
Handle TwoGroupAdam(Handle q, double lr1) {
  Handle o = opt_group("adam", 0, {q, {"0"}, {}});
  opt_edit(o, 1, {q, {"2"}, {}}, {lr1});
  return o;
}

void Steps(Handle q, Handle o, int n) {
  for (int i = 0; i < n; ++i) {
    zerograd(o);
    Backward(q, at::randn({5, 4}));
    step(o);
  }
}

// Two Sequential(4, 5, 3) modules under TwoGroupAdam: the first (group 1 at lr .01) stepped
// `steps` times, the second (group 1 at lr .5) once, so that it has a state of its own.
struct TwoOptimizers {
  Handle q, o, q2, o2;
};
TwoOptimizers Stepped(int steps) {
  TwoOptimizers t;
  t.q = testing::Sequential(4, 5, 3);
  t.o = TwoGroupAdam(t.q, 0.01);
  Steps(t.q, t.o, steps);
  t.q2 = testing::Sequential(4, 5, 3);
  t.o2 = TwoGroupAdam(t.q2, 0.5);
  Steps(t.q2, t.o2, 1);
  return t;
}

TEST_F(OptimizerStateTest, LoadedOptimizerContinuesInPlace) {
  auto scope = Scope::Open();
  const auto [q, o, q2, o2] = Stepped(2);
  const OptimizerState s = opt_state(o);
  CopyParameters(q, q2);
  const OptimizerState fresh = opt_state(TwoGroupAdam(testing::Sequential(4, 5, 3), 0.01));

  opt_load(o2, s);
  EXPECT_THAT(lr(o2), ElementsAre(0.001, 0.01));
  EXPECT_EQ(describe_opt(o2).options, describe_opt(o).options);
  EXPECT_EQ(tensorcount(o2), tensorcount(o));
  ExpectSameNextStep(q, o, q2, o2, {"0.weight", "0.bias", "2.weight", "2.bias"});

  opt_load(o2, fresh);  // a state before any step: no buffers left
  EXPECT_EQ(tensorcount(o2), 0);
}

TEST_F(OptimizerStateTest, LoadingABadStateChangesNothing) {
  auto scope = Scope::Open();
  const auto [q, o, q2, o2] = Stepped(1);
  const OptimizerState good = opt_state(o);
  const OptimizerState before = opt_state(o2);
  auto bad = [&](const std::function<void(OptimizerState*)>& edit, Handle target) {
    OptimizerState s = good;
    edit(&s);
    return ErrorOf([&] { opt_load(target, s); });
  };
  auto none = [](OptimizerState*) {};
  EXPECT_EQ(bad(none, opt("sgd", q2)), "opt: state of adam given, the optimizer is sgd");
  EXPECT_EQ(bad(none, opt("adam", q2)), "opt: state has 2 group(s), the optimizer 1");
  EXPECT_EQ(bad([](OptimizerState* s) { s->description.parameters.pop_back(); }, o2),
            "opt: state has 3 parameter(s), the optimizer 4");
  EXPECT_EQ(bad([](OptimizerState* s) { s->description.parameters[2].name = "0.weight"; }, o2),
            "opt: state has parameter 2 `0.weight (group 1, size 3 5), the optimizer `2.weight "
            "(group 1, size 3 5)");
  EXPECT_EQ(bad([](OptimizerState* s) { s->buffers[3][1].second = at::zeros({4}); }, o2),
            "opt: buffer `exp_avg for parameter `2.bias has size 4, expecting 3");
  EXPECT_EQ(
      bad([](OptimizerState* s) { s->description.options[1].emplace_back("gamma", 1.0); }, o2),
      "adam: unrecognized option `gamma");
  EXPECT_EQ(bad(none, q2), "opt: expected optimizer, given module");
  const OptimizerState after = opt_state(o2);
  EXPECT_EQ(after.description.options, before.description.options);
  ASSERT_EQ(after.buffers.size(), before.buffers.size());
  for (std::size_t i = 0; i < after.buffers.size(); ++i) {
    ASSERT_EQ(after.buffers[i].size(), before.buffers[i].size());
    for (std::size_t j = 0; j < after.buffers[i].size(); ++j)
      EXPECT_TRUE(at::equal(after.buffers[i][j].second, before.buffers[i][j].second));
  }
}

}  // namespace optimizer_state_test
}  // namespace kscope
