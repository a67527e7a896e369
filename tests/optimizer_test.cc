// api/nn/optimizer.h: defining optimizers ktorch's way, querying them back, the module references
// they hold, stepping them against libtorch's own optimizers, their state buffers, learning
// rates, lbfgs (defined and queried, refused by step), and resetting gradients through a
// module or an optimizer (api/tensor/autograd.h).
#include <functional>

#include <torch/nn/functional/linear.h>
#include <torch/optim/adagrad.h>
#include <torch/optim/lbfgs.h>
#include <torch/optim/rmsprop.h>
#include <torch/optim/sgd.h>

#include "api/nn/module.h"
#include "api/nn/optimizer.h"
#include "api/nn/optimizer_object.h"
#include "runtime/torch_compat.h"
#include "tests/error_text.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace optimizer_test {

using ::testing::ElementsAre;
using testing::ErrorOf;
using ::testing::HasSubstr;
using testing::LeakCheckTest;

using OptimizerTest = LeakCheckTest;
using Option = std::pair<std::string, nn::OptionValue>;

Handle Linear(std::int64_t in, std::int64_t out) {
  return module(ModuleDefinition{"linear", "", {in, out}, {}, {}});
}

// Gradients of sum(q(x)) accumulated on q's parameters.
void Backward(Handle q, const at::Tensor& x) { forward(q, x).tensor().sum().backward(); }

TEST_F(OptimizerTest, DefaultsWithNoParameters) {
  // q)o:opt`sgd
  auto scope = Scope::Open();
  Handle o = opt("sgd");
  EXPECT_EQ(class_(o), ObjectClass::kOptimizer);
  EXPECT_EQ(obj().back().origin, "opt");
  const OptimizerDescription d = describe_opt(o);
  EXPECT_EQ(d.kind, "sgd");
  EXPECT_TRUE(d.parameters.empty());
  ASSERT_EQ(d.options.size(), 1u);  // libtorch keeps one (empty) parameter group
  EXPECT_THAT(d.options[0],
              ElementsAre(Option("lr", 0.01), Option("momentum", 0.0), Option("dampening", 0.0),
                          Option("decay", 0.0), Option("nesterov", false)));
  EXPECT_TRUE(describe_opt(o, false).options[0].empty());
  EXPECT_EQ(size(o).single(), std::vector<std::int64_t>{0});
  EXPECT_EQ(tensorcount(o), 0);
  EXPECT_EQ(ref(o).single(), 1);
  EXPECT_THAT(lr(o), ElementsAre(0.01));  // libtorch keeps one (empty) parameter group
  step(o);                                // nothing to update
  EXPECT_EQ(str(o), "torch::optim::SGD(lr=0.01, momentum=0, dampening=0, decay=0, nesterov=false)");
  EXPECT_EQ(describe_opt(opt("adamw")).options[0][4], Option("decay", 0.01));
  EXPECT_THAT(lr(opt("sgd", {0.5})), ElementsAre(0.5));  // a braced list is options, not a module
}

TEST_F(OptimizerTest, PositionalThenNamedOptionsQueryBack) {
  auto scope = Scope::Open();
  Handle q = Linear(4, 2);
  Handle o = opt("adam", q, {0.1, 0.8}, {{"amsgrad", true}, {"eps", std::int64_t{1}}});
  const OptimizerDescription d = describe_opt(o, false);
  EXPECT_EQ(d.kind, "adam");
  EXPECT_EQ(d.parameters.size(), 2u);
  EXPECT_THAT(d.options[0], ElementsAre(Option("lr", 0.1), Option("beta1", 0.8), Option("eps", 1.0),
                                        Option("amsgrad", true)));
  EXPECT_EQ(describe_opt(o).options[0].size(), 6u);
  EXPECT_EQ(size(o).single(), std::vector<std::int64_t>{2});
  EXPECT_EQ(str(o),
            "torch::optim::Adam(lr=0.1, beta1=0.8, beta2=0.999, eps=1, decay=0, amsgrad=true)");
}

TEST_F(OptimizerTest, OptimizerKeepsItsModuleSeed000) {
  // q)m:module enlist(`linear;512;10); o:opt(`adam;m); ref m -> 2; free o; ref m -> 1
  auto scope = Scope::Open();
  Handle m = Linear(512, 10);
  Handle w = parm(m, "weight");
  EXPECT_EQ(ref(w).single(), 3);  // module member, registered parameter, this handle
  Handle o = opt("adam", m);
  EXPECT_EQ(ref(m).single(), 2);
  EXPECT_EQ(ref(w).single(), 4);  // + the optimizer's parameter group
  Handle o2 = addref(o);          // another handle to the same optimizer, not another optimizer
  EXPECT_EQ(ref(o).single(), 2);
  EXPECT_EQ(ref(m).single(), 2);
  kscope::free(o);
  EXPECT_EQ(ref(m).single(), 2);
  kscope::free(o2);
  EXPECT_EQ(ref(m).single(), 1);
  EXPECT_EQ(ref(w).single(), 3);
}

// An optimizer defined ktorch's way, the libtorch optimizer with the same options, and how many
// state tensors it holds for a 4 -> 3 linear module when made and after a step.
struct StepCase {
  std::string kind;
  std::vector<nn::OptionValue> positional;
  nn::NamedValues named;
  std::function<std::unique_ptr<torch::optim::Optimizer>(std::vector<at::Tensor>)> reference;
  std::int64_t buffers_made, buffers_stepped;
};

template <typename Impl, typename Options>
std::function<std::unique_ptr<torch::optim::Optimizer>(std::vector<at::Tensor>)> Reference(
    Options options) {
  return [options](std::vector<at::Tensor> parameters) {
    return std::make_unique<Impl>(std::move(parameters), options);
  };
}

std::vector<StepCase> StepCases() {
  using namespace torch::optim;
  return {
      {"sgd",
       {0.1, 0.9},
       {{"decay", 0.01}, {"nesterov", true}},
       Reference<SGD>(SGDOptions(0.1).momentum(0.9).weight_decay(0.01).nesterov(true)),
       0,
       2},  // momentum_buffer
      // adagrad's sums are made with the optimizer, filled with `init`.
      {"adagrad",
       {0.1, 0.01, 0.001, 0.1, 1e-9},
       {},
       Reference<Adagrad>(AdagradOptions(0.1)
                              .lr_decay(0.01)
                              .weight_decay(0.001)
                              .initial_accumulator_value(0.1)
                              .eps(1e-9)),
       2,
       2},
      {"rmsprop", {}, {}, Reference<RMSprop>(RMSpropOptions(0.01)), 0, 2},  // square_avg
      // + momentum_buffer and grad_avg
      {"rmsprop",
       {0.02, 0.9, 1e-6, 0.01},
       {{"momentum", 0.8}, {"centered", true}},
       Reference<RMSprop>(
           RMSpropOptions(0.02).alpha(0.9).eps(1e-6).weight_decay(0.01).momentum(0.8).centered(
               true)),
       0,
       6},
  };
}

TEST_F(OptimizerTest, StepsMatchLibtorch) {
  for (const StepCase& c : StepCases()) {
    SCOPED_TRACE(c.kind);
    auto scope = Scope::Open();
    Handle q = Linear(4, 3);
    Handle o = opt(c.kind, q, c.positional, c.named);
    EXPECT_EQ(tensorcount(o), c.buffers_made);
    at::Tensor w = tensor(parm(q, "weight")).requires_grad_();
    at::Tensor b = tensor(parm(q, "bias")).requires_grad_();
    const auto reference = c.reference({w, b});
    for (int i = 0; i < 2; ++i) {  // the second step uses the state of the first
      const at::Tensor x = at::randn({5, 4});
      zerograd(o);
      Backward(q, x);
      step(o);
      reference->zero_grad();
      torch::nn::functional::linear(x, w, b).sum().backward();
      reference->step();
      EXPECT_TRUE(at::equal(tensor(parm(q, "weight")), w.detach()));
      EXPECT_TRUE(at::equal(tensor(parm(q, "bias")), b.detach()));
    }
    EXPECT_EQ(tensorcount(o), c.buffers_stepped);  // each buffer is the size of its parameter
    // ... and every kind but sgd keeps a step per parameter, one more element each (as ktorch)
    EXPECT_EQ(elements(o), c.buffers_stepped / 2 * 15 + (c.kind == "sgd" ? 0 : 2));
  }
}

TEST_F(OptimizerTest, NewKindsDefaultsQueryBack) {
  auto scope = Scope::Open();
  const std::vector<std::pair<std::string, nn::NamedValues>> defaults = {
      {"adagrad", {{"lr", 0.01}, {"lrdecay", 0.0}, {"decay", 0.0}, {"init", 0.0}, {"eps", 1e-10}}},
      {"rmsprop",
       {{"lr", 0.01},
        {"alpha", 0.99},
        {"eps", 1e-8},
        {"decay", 0.0},
        {"momentum", 0.0},
        {"centered", false}}},
      // as ktorch echoes lbfgs: eval as libtorch's iter*5/4, search only when set
      {"lbfgs",
       {{"lr", 1.0},
        {"iter", std::int64_t{20}},
        {"eval", std::int64_t{25}},
        {"gradtol", 1e-7},
        {"changetol", 1e-9},
        {"history", std::int64_t{100}}}},
  };
  for (const auto& [kind, options] : defaults) {
    SCOPED_TRACE(kind);
    Handle o = opt(kind);
    EXPECT_EQ(describe_opt(o).kind, kind);
    EXPECT_EQ(describe_opt(o).options[0], options);
    EXPECT_TRUE(describe_opt(o, false).options[0].empty());
  }
  EXPECT_THAT(opt_options("lbfgs"),
              ElementsAre("lr", "iter", "eval", "gradtol", "changetol", "history", "search"));
  Handle l =
      opt("lbfgs", {}, {{"search", std::string("strong_wolfe")}, {"eval", std::int64_t{30}}});
  EXPECT_THAT(
      describe_opt(l, false).options[0],
      ElementsAre(Option("eval", std::int64_t{30}), Option("search", std::string("strong_wolfe"))));
  EXPECT_EQ(describe_opt(opt("lbfgs", {}, {{"iter", std::int64_t{8}}})).options[0][2].second,
            nn::OptionValue(std::int64_t{10}));
  EXPECT_EQ(
      str(opt("lbfgs")),
      "torch::optim::LBFGS(lr=1, iter=20, eval=25, gradtol=1e-07, changetol=1e-09, history=100)");
}

TEST_F(OptimizerTest, LbfgsStepIsRefused) {
  // q)o:opt(`lbfgs;q)  step o -> 'LBFGS optimizer requires model, loss & inputs
  auto scope = Scope::Open();
  Handle q = Linear(3, 2);
  Handle o = opt("lbfgs", q, {0.5});
  EXPECT_EQ(describe_opt(o).parameters.size(), 2u);
  const at::Tensor before = tensor(parm(q, "weight"));
  Backward(q, at::randn({4, 3}));
  EXPECT_EQ(ErrorOf([&] { step(o); }), "LBFGS optimizer requires model, loss & inputs");
  EXPECT_EQ(ErrorOf([] { step(opt("lbfgs")); }), "LBFGS optimizer requires model, loss & inputs");
  EXPECT_TRUE(at::equal(tensor(parm(q, "weight")), before));
  EXPECT_EQ(tensorcount(o), 0);
  EXPECT_THAT(lr(o), ElementsAre(0.5));
}

TEST_F(OptimizerTest, LbfgsWithAClosureMatchesLibtorch) {
  // ktorch steps lbfgs through models (backstep); here the libtorch optimizer behind the handle
  // takes the closure directly, to check the options it was made with and the state it lists.
  auto scope = Scope::Open();
  Handle q = Linear(4, 3);
  Handle o = opt("lbfgs", q, {0.5, std::int64_t{5}},
                 {{"history", std::int64_t{3}}, {"search", std::string("strong_wolfe")}});
  at::Tensor w = tensor(parm(q, "weight")).requires_grad_();
  at::Tensor b = tensor(parm(q, "bias")).requires_grad_();
  torch::optim::LBFGS reference(
      {w, b}, torch::optim::LBFGSOptions(0.5).max_iter(5).history_size(3).line_search_fn(
                  std::string("strong_wolfe")));
  const at::Tensor x = at::randn({6, 4});
  torch::optim::Optimizer& ours = nn::OptimizerOf("test", o)->optimizer();
  ours.step([&] {
    zerograd(o);
    at::Tensor loss = forward(q, x).tensor().pow(2).sum();
    loss.backward();
    return loss;
  });
  reference.step([&] {
    reference.zero_grad();
    at::Tensor loss = torch::nn::functional::linear(x, w, b).pow(2).sum();
    loss.backward();
    return loss;
  });
  EXPECT_TRUE(at::equal(tensor(parm(q, "weight")), w.detach()));
  EXPECT_TRUE(at::equal(tensor(parm(q, "bias")), b.detach()));
  // A null eval is libtorch's iter*5/4.
  EXPECT_EQ(static_cast<const torch::optim::LBFGSOptions&>(ours.defaults()).max_eval(),
            std::int64_t{6});
  EXPECT_GE(tensorcount(o), 3);  // at least the direction, H_diag and the last flat gradient
}

TEST_F(OptimizerTest, AdamwAmsgradStateAppearsAtTheFirstStep) {
  auto scope = Scope::Open();
  Handle q = Linear(128, 10);
  Handle o = opt("adamw", q, {}, {{"amsgrad", true}});
  EXPECT_EQ(tensorcount(o), 0);  // buffers are made lazily
  EXPECT_EQ(elements(o), 0);
  Backward(q, at::randn({8, 128}));
  step(o);
  // exp_avg, exp_avg_sq and max_exp_avg_sq for the weight and the bias: 3 x 1290 float
  // elements, and each parameter's `step`, an int64_t outside tensors that ktorch counts as one
  // element of 8 bytes: 3872 elements, 15496 bytes, 6 tensors (ktorch's docs, seed 000).
  EXPECT_EQ(tensorcount(o), 6);
  EXPECT_EQ(elements(o), 3872);
  EXPECT_EQ(bytes(o), 15496);
  EXPECT_EQ(elements(q), 1290);  // the parameters count in the module, not the optimizer
}

TEST_F(OptimizerTest, ScalarStateCountsAsOneEightByteElementEach) {
  // ktorch counts the numbers a state keeps outside tensors (adagrad's, rmsprop's and lamb's
  // step; lbfgs's func_evals, n_iter, t and prev_loss) as one element of 8 bytes each and as no
  // tensor; sgd keeps none. A 3 -> 2 linear: 8 float elements in 2 parameters.
  auto scope = Scope::Open();
  Handle q = Linear(3, 2);
  Handle adagrad = opt("adagrad", q);  // its sum and step exist from the start
  EXPECT_EQ(tensorcount(adagrad), 2);
  EXPECT_EQ(elements(adagrad), 8 + 2);
  EXPECT_EQ(bytes(adagrad), 8 * 4 + 2 * 8);
  Handle sgd = opt("sgd", q, {0.1, 0.9});
  Handle rmsprop = opt("rmsprop", q);
  Handle lamb = opt("lamb", q);
  Backward(q, at::randn({4, 3}));
  for (Handle o : {sgd, rmsprop, lamb}) step(o);
  EXPECT_EQ(elements(sgd), 8);  // momentum buffers
  EXPECT_EQ(elements(rmsprop), 8 + 2);
  EXPECT_EQ(elements(lamb), 16 + 2);
  EXPECT_EQ(bytes(lamb), 16 * 4 + 2 * 8);
  Handle lbfgs = opt("lbfgs", q);
  const at::Tensor x = at::randn({6, 3});
  nn::OptimizerOf("test", lbfgs)->optimizer().step([&] {
    zerograd(lbfgs);
    at::Tensor loss = forward(q, x).tensor().pow(2).sum();
    loss.backward();
    return loss;
  });
  std::int64_t held = 0;
  for (const at::Tensor& t : nn::OptimizerOf("test", lbfgs)->tensors()) held += t.numel();
  EXPECT_GT(held, 0);
  EXPECT_EQ(elements(lbfgs), held + 4);
}

TEST_F(OptimizerTest, ZerogradAndNogradThroughModuleAndOptimizer) {
  auto scope = Scope::Open();
  Handle q = Linear(3, 2);
  Handle o = opt("sgd", q);
  Handle w = parm(q, "weight");
  const at::Tensor x = at::randn({4, 3});
  Backward(q, x);
  zerograd(q);
  EXPECT_TRUE(at::equal(grad(w), at::zeros({2, 3})));
  Backward(q, x);
  nograd(q);
  EXPECT_FALSE(grad(w).defined());
  Backward(q, x);
  zerograd(o);
  if (kFollowsKtorch23) {  // libtorch 2's zero_grad, ktorch 2.3's zerograd: set to none
    EXPECT_FALSE(grad(w).defined());
  } else {
    EXPECT_TRUE(at::equal(grad(w), at::zeros({2, 3})));
  }
  Backward(q, x);
  nograd(o);
  EXPECT_FALSE(grad(w).defined());
  zerograd(o);  // no gradients: nothing to reset
  EXPECT_FALSE(grad(w).defined());
}

TEST_F(OptimizerTest, LearningRateGetAndSet) {
  auto scope = Scope::Open();
  Handle q = Linear(3, 2);
  Handle o = opt("sgd", q);
  EXPECT_THAT(lr(o), ElementsAre(0.01));
  lr(o, 0.5);
  EXPECT_THAT(lr(o), ElementsAre(0.5));
  EXPECT_THAT(describe_opt(o, false).options[0], ElementsAre(Option("lr", 0.5)));
  EXPECT_THAT(str(o), HasSubstr("(lr=0.5,"));
  // The new rate is the one the next step uses.
  const at::Tensor before = tensor(parm(q, "weight"));
  Backward(q, at::randn({4, 3}));
  step(o);
  EXPECT_TRUE(at::allclose(tensor(parm(q, "weight")), before - 0.5 * grad(parm(q, "weight"))));
  EXPECT_EQ(ErrorOf([&] { lr(o, -1); }), "lr: invalid learning rate -1");
  EXPECT_THAT(lr(o), ElementsAre(0.5));
  EXPECT_EQ(ErrorOf([&] { lr(q); }), "lr: expected optimizer, given module");
}

TEST_F(OptimizerTest, BadKindsAndOptionsLeaveNoHandle) {
  auto scope = Scope::Open();
  Handle q = Linear(3, 2);
  Handle x = ones({2});
  const std::size_t live = live_handles();
  EXPECT_EQ(ErrorOf([] { opt("foo"); }), "unrecognized optimizer: foo");
  EXPECT_EQ(ErrorOf([&] { opt("foo", q); }), "unrecognized optimizer: foo");
  EXPECT_EQ(ErrorOf([&] { opt("sgd", q, {std::string("x")}); }),
            "sgd: option `lr expects double, given symbol");
  EXPECT_EQ(ErrorOf([] { opt("adam", {}, {{"gamma", 1.0}}); }), "adam: unrecognized option `gamma");
  EXPECT_EQ(ErrorOf([] {
              opt("sgd", {0.1, 0.0, 0.0, 0.0, false, 1.0});
            }),
            "sgd: 6 positional option(s) given, expecting at most 5");
  EXPECT_EQ(ErrorOf([] {
              opt("adam", {0.1}, {{"lr", 0.2}});
            }),
            "adam: option `lr given more than once");
  EXPECT_EQ(ErrorOf([&] { opt("sgd", x); }), "opt: expected module or model, given tensor");
  EXPECT_THAT(ErrorOf([&] { opt("adam", q, {-1.0}); }), HasSubstr("Invalid learning rate: -1"));
  EXPECT_THAT(ErrorOf([&] {
                opt("sgd", q, {0.1}, {{"nesterov", true}});
              }),
              HasSubstr("Nesterov momentum requires a momentum and zero dampening"));
  EXPECT_THAT(ErrorOf([&] {
                opt("adagrad", q, {0.1, -1.0});
              }),
              HasSubstr("Invalid lr_decay value: -1"));
  EXPECT_THAT(ErrorOf([&] {
                opt("rmsprop", q, {}, {{"alpha", -1.0}});
              }),
              HasSubstr("Invalid alpha value: -1"));
  EXPECT_EQ(ErrorOf([&] {
              opt("rmsprop", q, {}, {{"centered", std::int64_t{1}}});
            }),
            "rmsprop: option `centered expects boolean, given long");
  EXPECT_EQ(ErrorOf([&] {
              opt("lbfgs", q, {}, {{"search", std::string("wolfe")}});
            }),
            "lbfgs: unrecognized search `wolfe, expecting strong_wolfe");
  EXPECT_EQ(ErrorOf([&] {
              opt("lbfgs", q, {}, {{"search", std::int64_t{1}}});
            }),
            "lbfgs: option `search expects symbol or null, given long");
  EXPECT_EQ(ErrorOf([&] {
              opt("lbfgs", q, {1.0, std::int64_t{20}, 2.5});
            }),
            "lbfgs: option `eval expects long or null, given double");
  EXPECT_EQ(ErrorOf([&] { step(q); }), "step: expected optimizer, given module");
  EXPECT_EQ(ErrorOf([&] { describe_opt(x); }), "opt: expected optimizer, given tensor");
  EXPECT_EQ(live_handles(), live);
  EXPECT_EQ(ref(q).single(), 1);  // no optimizer was left holding the module
}

}  // namespace optimizer_test
}  // namespace kscope
