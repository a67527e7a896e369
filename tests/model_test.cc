// api/model/model.h: models made of a module, a loss and an optimizer (consumed in any order, parts
// replaced and handed back), their training and testing options (defaults, get and set by
// name, validation with roll-back), and recreation from a description and from a state.
#include <ATen/ATen.h>

#include "api/model/model.h"
#include "api/model/model_object.h"
#include "runtime/torch_compat.h"
#include "tests/error_text.h"
#include "tests/optimizer_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace model_test {

using testing::Backward;
using ::testing::ElementsAre;
using testing::ErrorOf;
using testing::LeakCheckTest;
using testing::Linear;
using testing::Sequential;

using ModelTest = LeakCheckTest;

std::vector<std::string> Names(const nn::NamedValues& values) {
  std::vector<std::string> names;
  for (const auto& v : values) names.push_back(v.first);
  return names;
}

// A sequential 2-8-3 module, cross-entropy and sgd with momentum over the module.
Handle SmallModel() {
  const Handle q = Sequential(2, 8, 3);
  return model({q, loss("ce"), opt("sgd", q, {0.1, 0.9})});
}

// One sgd step of m's parts on x.
void Step(Handle m, const at::Tensor& x) {
  auto scope = Scope::Open();
  const Handle o = model_opt(m);
  zerograd(o);
  Backward(model_module(m), x);
  step(o);
}

at::Tensor Parameter(Handle m, const char* name) {
  auto scope = Scope::Open();
  return tensor(parm(model_module(m), name));
}

TEST_F(ModelTest, ConsumesItsPartsInAnyOrder) {
  auto scope = Scope::Open();
  const Handle q = Linear(4, 3), l = loss("mse"), o = opt("sgd", q);
  EXPECT_EQ(ref(q).single(), 2);  // q's handle and the optimizer
  const Handle m = model({o, l, q});
  EXPECT_EQ(class_(m), ObjectClass::kModel);
  for (Handle part : {q, l, o}) EXPECT_EQ(ErrorOf([&] { class_(part); }), "stale pointer");
  EXPECT_EQ(ref(m).single(), 1);
  EXPECT_EQ(size(m).single(), std::vector<std::int64_t>{2});
  const Handle q2 = model_module(m);
  EXPECT_EQ(class_(q2), ObjectClass::kModule);
  EXPECT_EQ(ref(q2).single(), 3);  // the model, the optimizer and q2
  EXPECT_EQ(class_(model_loss(m)), ObjectClass::kLoss);
  EXPECT_EQ(class_(model_opt(m)), ObjectClass::kOptimizer);
  EXPECT_EQ(ErrorOf([&] { model_module(q2); }), "module: expected model, given module");
}

TEST_F(ModelTest, AddrefKeepsAPart) {
  auto scope = Scope::Open();
  const Handle q = Linear(4, 3);
  const Handle o = opt("sgd", q);
  const Handle m = model({addref(q), loss("ce"), o});
  EXPECT_EQ(class_(q), ObjectClass::kModule);
  EXPECT_EQ(ref(q).single(), 3);  // q, the model's copy and the optimizer
  const Handle m2 = addref(m);
  EXPECT_EQ(ref(m).single(), 2);
  free(m2);
  EXPECT_EQ(ref(m).single(), 1);
}

TEST_F(ModelTest, BadPartsLeaveEveryHandleAlive) {
  auto scope = Scope::Open();
  const Handle q = Linear(4, 3), q2 = Linear(2, 2), l = loss("ce"), o = opt("sgd", q);
  const Handle t = tensor(at::ones({2}));
  EXPECT_EQ(ErrorOf([&] { model({q, l}); }), "model: optimizer not specified");
  EXPECT_EQ(ErrorOf([&] { model({l, o}); }), "model: module not specified");
  EXPECT_EQ(ErrorOf([&] { model({o, q}); }), "model: loss not specified");
  EXPECT_EQ(ErrorOf([&] { model({q, l, t}); }), "model: arg[2] unrecognized: tensor");
  EXPECT_EQ(ErrorOf([&] { model({q, q2, l, o}); }), "model: arg[1] is a second module");
  EXPECT_EQ(ErrorOf([&] { model({q, l, o, o}); }), "model: arg[3] is a second optimizer");
  for (Handle h : {q, q2, l, o, t}) EXPECT_NO_THROW(class_(h));
  free(q2);
  const Handle m = model({q, l, o});
  EXPECT_EQ(ErrorOf([&] { model({m, t}); }), "model: arg[0] unrecognized: model");
  EXPECT_EQ(ErrorOf([&] { model(m, {t}); }), "model: arg[1] unrecognized: tensor");
  EXPECT_EQ(ErrorOf([&] { model(m, {q}); }), "stale pointer");
  EXPECT_NO_THROW(class_(t));
}

TEST_F(ModelTest, ReplacesPartsSeed002) {
  // q)m:model(module`relu; loss`ce; opt`sgd)   model(m;loss`mse)   model[m]`loss -> `mse
  auto scope = Scope::Open();
  const Handle m =
      model({module(ModuleDefinition{"relu", "", {}, {}, {}}), loss("ce"), opt("sgd")});
  EXPECT_EQ(describe_model(m).loss.kind, "ce");
  const Handle l = loss("mse"), q = Linear(2, 1);
  model(m, {l, q});
  EXPECT_EQ(ErrorOf([&] { class_(l); }), "stale pointer");
  const ModelDescription d = describe_model(m);
  EXPECT_EQ(d.loss.kind, "mse");
  EXPECT_EQ(d.module.front().kind, "linear");
  EXPECT_EQ(d.optimizer.kind, "sgd");
}

TEST_F(ModelTest, OptionDefaultsSeed004) {
  auto scope = Scope::Open();
  const Handle m = SmallModel();
  EXPECT_THAT(Names(train_options(m)),
              ElementsAre("batchsize", "task", "tasks", "droplast", "hidden", "shuffle",
                          "shufflecuda", "shuffleseed", "sync", "clipgroup", "clipnorm",
                          "clipvalue", "tensor", "dictionary", "metrics", "amp", "graph"));
  EXPECT_THAT(Names(test_options(m)),
              ElementsAre("batchsize", "task", "tasks", "droplast", "hidden", "tensor",
                          "dictionary", "metrics", "amp"));
  EXPECT_EQ(train_option(m, "batchsize"), nn::OptionValue(std::int64_t{32}));
  EXPECT_EQ(test_option(m, "batchsize"), nn::OptionValue(std::int64_t{100}));
  EXPECT_EQ(train_option(m, "metrics"), nn::OptionValue(std::vector<std::string>{"loss"}));
  EXPECT_EQ(train_option(m, "clipnorm"), nn::OptionValue());
  EXPECT_TRUE(train_options(m, false).empty());
  EXPECT_EQ(ErrorOf([&] { test_option(m, "shuffle"); }), "unrecognized test setting: shuffle");
  EXPECT_EQ(ErrorOf([&] { train_option(m, "foo"); }), "unrecognized train setting: foo");
}

TEST_F(ModelTest, SetOptionsSeed004) {
  auto scope = Scope::Open();
  const Handle m = SmallModel();
  // q)train(m;k!100,1b)   train(m;`batchsize`shuffle;(256;0b))
  train(m, {{"batchsize", std::int64_t{100}}, {"shuffle", true}});
  EXPECT_EQ(model_options(m, nn::DataMode::kTrain, {"batchsize", "shuffle"}),
            (nn::NamedValues{{"batchsize", std::int64_t{100}}, {"shuffle", true}}));
  train(m, {{"metrics", std::vector<std::string>{"output", "accuracy", "loss"}}});
  const nn::RunOptions r = run_options(m, nn::DataMode::kTrain);
  EXPECT_EQ(r.batchsize, 100);
  EXPECT_TRUE(r.shuffle);
  EXPECT_THAT(r.metrics,
              ElementsAre(nn::Metric::kOutput, nn::Metric::kAccuracy, nn::Metric::kLoss));
  // q)train(m; `clipgroup`clipnorm; (0b;2)) -> clipnorm 2 2f; a clipvalue clears it, and back
  train(m, {{"clipgroup", false}, {"clipnorm", std::int64_t{2}}});
  EXPECT_EQ(train_option(m, "clipnorm"), nn::OptionValue(std::vector<double>{2, 2}));
  train(m, {{"clipvalue", 0.5}});
  EXPECT_EQ(train_option(m, "clipnorm"), nn::OptionValue());
  EXPECT_EQ(run_options(m, nn::DataMode::kTrain).clipvalue, 0.5);
  train(m, {{"clipnorm", std::vector<double>{1, INFINITY}}});
  EXPECT_EQ(train_option(m, "clipvalue"), nn::OptionValue());
  EXPECT_EQ(run_options(m, nn::DataMode::kTrain).clipnorm->order, INFINITY);
  train(m, {{"clipnorm", std::vector<double>{}}});  // () is null
  EXPECT_EQ(train_option(m, "clipnorm"), nn::OptionValue());
  test(m, {{"batchsize", std::int64_t{5}}});
  EXPECT_EQ(test_options(m, false), (nn::NamedValues{{"batchsize", std::int64_t{5}}}));
}

TEST_F(ModelTest, BadOptionsChangeNothing) {
  auto scope = Scope::Open();
  const Handle m = SmallModel();
  train(m, {{"batchsize", std::int64_t{100}}});
  const nn::NamedValues before = train_options(m);
  const std::vector<std::pair<nn::NamedValues, std::string>> cases = {
      {{{"batchsize", std::int64_t{5}}, {"shuffle", std::string("x")}},
       "train: option `shuffle expects boolean, given symbol"},
      {{{"batchsize", std::int64_t{-1}}}, "batchsize: cannot be less than zero, given -1"},
      {{{"batchsize", std::int64_t{5}}, {"foo", true}}, "unrecognized train setting: foo"},
      {{{"task", std::int64_t{2}}, {"tasks", std::int64_t{2}}},
       "train: task 2 must be less than tasks(2)"},
      {{{"tasks", std::int64_t{0}}}, "tasks: cannot be less than one, given 0"},
      {{{"tasks", std::int64_t{2}}, {"batchsize", std::int64_t{0}}},
       "train: 2 tasks require a non-zero batchsize"},
      {{{"metrics", std::vector<std::string>{"loss", "foo"}}}, "train: unrecognized metric `foo"},
      {{{"clipnorm", std::vector<double>{1, 2, 3}}},
       "train: clipnorm expects a max norm and an optional norm order, given 3 numbers"},
      {{{"batchsize", std::int64_t{5}}, {"batchsize", std::int64_t{6}}},
       "train: option `batchsize given more than once"},
  };
  for (const auto& [values, error] : cases) {
    EXPECT_EQ(ErrorOf([&, &values = values] { train(m, values); }), error);
    EXPECT_EQ(train_options(m), before);
  }
  EXPECT_EQ(ErrorOf([&] {
              test(m, {{"batchsize", std::int64_t{1}}, {"sync", true}});
            }),
            "unrecognized test setting: sync");
  EXPECT_EQ(test_option(m, "batchsize"), nn::OptionValue(std::int64_t{100}));
  EXPECT_EQ(ErrorOf([&] { train(tensor(at::ones({1})), {}); }),
            "train: expected model, given tensor");
}

TEST_F(ModelTest, ZerogradResetsEveryParameterOfItsOptimizerSeed004) {
  // "using the optimizer object (or its parent model) as the argument will reset all gradients
  // at once": the optimizer here also steps b, which is not the model's module.
  auto scope = Scope::Open();
  const Handle a = Linear(4, 3), b = Linear(3, 2);
  const Handle o = opt_group("sgd", 0, ParameterSource{a});
  opt_edit(o, 1, ParameterSource{b});
  const Handle m = model({addref(a), loss("mse"), o});
  Backward(b, forward(a, at::randn({5, 4})).tensor());
  zerograd(m);
  const Handle bw = parm(b, "weight");
  if (kFollowsKtorch23) {  // libtorch 2's zero_grad, ktorch 2.3's zerograd: set to none
    EXPECT_FALSE(grad(bw).defined());
    Backward(b, forward(a, at::randn({5, 4})).tensor());
  } else {
    ASSERT_TRUE(grad(bw).defined());
    EXPECT_TRUE(at::equal(grad(bw), at::zeros({2, 3})));
  }
  nograd(m);
  EXPECT_FALSE(grad(bw).defined());
}

TEST_F(ModelTest, RecreatedFromItsDescriptionSeed002) {
  auto scope = Scope::Open();
  const Handle m = SmallModel();
  train(m, {{"batchsize", std::int64_t{7}}});
  const ModelDescription d = describe_model(m);
  const Handle m2 = model(d);
  const ModelDescription d2 = describe_model(m2);
  EXPECT_EQ(d2.module.size(), d.module.size());
  EXPECT_EQ(d2.loss.kind, d.loss.kind);
  EXPECT_EQ(d2.optimizer.options, d.optimizer.options);
  EXPECT_EQ(d2.train, d.train);
  EXPECT_EQ(d2.test, d.test);
  EXPECT_NE(d2.optimizer.parameters[0].pointer, d.optimizer.parameters[0].pointer);
  EXPECT_FALSE(at::equal(Parameter(m, "0.weight"), Parameter(m2, "0.weight")));
}

TEST_F(ModelTest, RecreatedExactlyFromItsStateSeed002) {
  auto scope = Scope::Open();
  const Handle m = SmallModel();
  test(m, {{"metrics", std::vector<std::string>{"accuracy"}}});
  const at::Tensor x = at::randn({5, 2});
  Step(m, x);
  Step(m, x);
  const ModelState s = model_state(m);
  EXPECT_EQ(s.optimizer.buffers.size(), 4u);  // a momentum buffer per parameter
  const Handle m2 = model(s);
  EXPECT_EQ(test_option(m2, "metrics"), nn::OptionValue(std::vector<std::string>{"accuracy"}));
  EXPECT_TRUE(at::equal(Parameter(m, "2.bias"), Parameter(m2, "2.bias")));
  EXPECT_EQ(tensorcount(m2), tensorcount(m));  // parameters and momentum buffers
  Step(m, x);
  Step(m2, x);
  for (const char* name : {"0.weight", "0.bias", "2.weight", "2.bias"}) {
    EXPECT_TRUE(at::equal(Parameter(m, name), Parameter(m2, name))) << name;
  }
}

TEST_F(ModelTest, BadStateCreatesNothing) {
  auto scope = Scope::Open();
  const Handle m = SmallModel();
  ModelState s = model_state(m);
  s.train.emplace_back("shuffle", std::string("x"));
  const LeakCheck check;
  EXPECT_EQ(ErrorOf([&] { model(s); }), "train: option `shuffle given more than once");
  s = model_state(m);
  s.loss.kind = "foo";
  EXPECT_EQ(ErrorOf([&] { model(s); }), "unrecognized loss function: foo");
  EXPECT_THAT(check.Leaks(), ::testing::IsEmpty());
}

}  // namespace model_test
}  // namespace kscope
