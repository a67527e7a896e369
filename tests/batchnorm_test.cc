// api/model/batchnorm.h: the running statistics a model's training data gives its batchnorm layers
// (computed by hand with ATen: the data's mean and unbiased variance for one batch, the mean of
// the batches' statistics for several), the momenta returned and put back, the training flag
// kept, which layers count, the module form, and failures that change nothing.
#include <ATen/ATen.h>
#include <torch/nn/modules/batchnorm.h>

#include "api/model/batchnorm.h"
#include "api/model/model.h"
#include "api/model/model_data.h"
#include "api/nn/module_object.h"
#include "api/nn/module_parameters.h"
#include "tests/error_text.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace batchnorm_test {

using nn::DataMode;
using testing::ErrorOf;
using testing::LeakCheckTest;

using BatchnormTest = LeakCheckTest;

ModuleDefinition Layer(const char* kind, std::vector<nn::OptionValue> positional,
                       nn::NamedValues named = {}) {
  return ModuleDefinition{kind, "", std::move(positional), std::move(named), {}};
}
ModuleDefinition Container(const char* kind, std::vector<ModuleDefinition> children) {
  return ModuleDefinition{kind, "", {}, {}, std::move(children)};
}
ModuleDefinition Sequential(std::vector<ModuleDefinition> children) {
  return Container("sequential", std::move(children));
}

// (`sequential; (`batchnorm1d;3); (`linear;3;2))
Handle NormThenLinear() {
  return module(Sequential({Layer("batchnorm1d", {std::int64_t{3}}),
                            Layer("linear", {std::int64_t{3}, std::int64_t{2}})}));
}

// A model of q (consumed) with mse and sgd, and training data x with a random target.
Handle ModelWithData(Handle q, const at::Tensor& x, std::int64_t batchsize) {
  Handle m = model({q, loss("mse"), opt("sgd")});
  train(m, {{"batchsize", batchsize}});
  model_data(m, DataMode::kTrain, x, at::randn({x.size(0), 2}));
  return m;
}

at::Tensor Buffer(Handle q, const std::string& name) { return tensor(buffer(q, name)); }

// The live momentum of batchnorm1d layer `name` of q.
std::optional<double> Momentum(Handle q, const std::string& name) {
  auto& layer = nn::ModuleOf("test", q, ObjectClass::kModule)
                    ->module()
                    .named_modules()[name]
                    ->as<torch::nn::BatchNorm1dImpl>()
                    ->options;
  return layer.momentum() ? std::optional<double>(*layer.momentum()) : std::nullopt;
}

TEST_F(BatchnormTest, OneBatchGivesTheDatasMeanAndVariance) {
  auto scope = Scope::Open();
  Handle q = NormThenLinear();
  Handle keep = addref(q);
  forward(keep, 5 * at::randn({8, 3}) + 3);  // running statistics away from the reset values
  training(keep, false);
  const at::Tensor x = 2 * at::randn({12, 3}) + 1;
  Handle m = ModelWithData(q, x, 12);
  EXPECT_EQ(batchnorm(m), (Momenta{{"0", 0.1}}));
  EXPECT_TRUE(at::allclose(Buffer(keep, "0.running_mean"), x.mean(0), 1e-5, 1e-6));
  EXPECT_TRUE(at::allclose(Buffer(keep, "0.running_var"), x.var(0, /*unbiased=*/true), 1e-5, 1e-6));
  EXPECT_EQ(Buffer(keep, "0.num_batches_tracked").item<std::int64_t>(), 1);
  EXPECT_EQ(Momentum(keep, "0"), 0.1);                 // put back
  EXPECT_FALSE(training(keep));                        // as it was
  EXPECT_EQ(model_datasize(m, DataMode::kTrain), 12);  // the epoch ended, full size
}

TEST_F(BatchnormTest, SeveralBatchesAverageTheBatchesStatistics) {
  auto scope = Scope::Open();
  Handle q = NormThenLinear();
  Handle keep = addref(q);
  const at::Tensor x = 3 * at::randn({12, 3}) - 1;
  Handle m = ModelWithData(q, x, 4);
  ASSERT_TRUE(training(keep));
  batchnorm(m);
  const std::vector<at::Tensor> batches = x.split(4);
  at::Tensor var = at::zeros({3});
  for (const at::Tensor& b : batches) var += b.var(0, /*unbiased=*/true) / 3;
  EXPECT_TRUE(
      at::allclose(Buffer(keep, "0.running_mean"), x.mean(0), 1e-5, 1e-6));  // equal batches
  EXPECT_TRUE(at::allclose(Buffer(keep, "0.running_var"), var, 1e-5, 1e-6));
  EXPECT_EQ(Buffer(keep, "0.num_batches_tracked").item<std::int64_t>(), 3);
  EXPECT_TRUE(training(keep));
  EXPECT_EQ(Momentum(keep, "0"), 0.1);
}

TEST_F(BatchnormTest, TrackingBatchnormLayersAtAnyDepth) {
  // q itself, nested layers of every dimension; instance norm and untracked batchnorm left out.
  auto scope = Scope::Open();
  EXPECT_EQ(batchnorm(module(Layer("batchnorm2d", {std::int64_t{4}}, {{"momentum", 0.3}}))),
            (Momenta{{"", 0.3}}));
  Handle q = module(Sequential(
      {Layer("batchnorm1d", {std::int64_t{3}}, {{"track", false}}),
       Container("seqnest", {Layer("batchnorm3d", {std::int64_t{2}}), Layer("relu", {}),
                             Layer("batchnorm2d", {std::int64_t{2}}, {{"momentum", 0.5}})}),
       Layer("instancenorm1d", {std::int64_t{3}}, {{"track", true}})}));
  EXPECT_EQ(batchnorm(q), (Momenta{{"1.0", 0.1}, {"1.2", 0.5}}));
  EXPECT_TRUE(batchnorm(module(Layer("linear", {std::int64_t{2}, std::int64_t{2}}))).empty());
}

TEST_F(BatchnormTest, ModuleFormPreparesACumulativeAverage) {
  // q)d:batchnorm q; forward on batches in training mode; batchnorm(q;d)
  auto scope = Scope::Open();
  Handle q = NormThenLinear();
  forward(q, 5 * at::randn({8, 3}) + 3);
  const Momenta d = batchnorm(q);
  EXPECT_EQ(d, (Momenta{{"0", 0.1}}));
  EXPECT_EQ(Momentum(q, "0"), std::nullopt);
  EXPECT_TRUE(at::equal(Buffer(q, "0.running_mean"), at::zeros({3})));
  EXPECT_TRUE(at::equal(Buffer(q, "0.running_var"), at::ones({3})));
  EXPECT_EQ(Buffer(q, "0.num_batches_tracked").item<std::int64_t>(), 0);
  const at::Tensor a = at::randn({5, 3}), b = 4 * at::randn({5, 3});
  forward(q, a);
  forward(q, b);
  EXPECT_TRUE(at::allclose(Buffer(q, "0.running_mean"), (a.mean(0) + b.mean(0)) / 2, 1e-5, 1e-6));
  // Bad names change nothing; then the momenta go back.
  EXPECT_EQ(ErrorOf([&] {
              batchnorm(q, {{"0", 0.2}, {"1", 0.2}});
            }),
            "batchnorm: no batchnorm layer `1 in sequential module");
  EXPECT_EQ(Momentum(q, "0"), std::nullopt);
  batchnorm(q, d);
  EXPECT_EQ(Momentum(q, "0"), 0.1);
  batchnorm(q, {{"0", std::nullopt}});
  EXPECT_EQ(Momentum(q, "0"), std::nullopt);
}

TEST_F(BatchnormTest, AModelWithoutDataIsPreparedAsAModule) {
  auto scope = Scope::Open();
  Handle q = NormThenLinear();
  Handle keep = addref(q);
  Handle m = model({q, loss("mse"), opt("sgd")});
  EXPECT_EQ(batchnorm(m), (Momenta{{"0", 0.1}}));
  EXPECT_EQ(Momentum(keep, "0"), std::nullopt);
  batchnorm(m, {{"0", 0.1}});
  EXPECT_EQ(Momentum(keep, "0"), 0.1);
}

TEST_F(BatchnormTest, AFailedPassChangesNothing) {
  auto scope = Scope::Open();
  Handle q = NormThenLinear();
  Handle keep = addref(q);
  forward(keep, 5 * at::randn({8, 3}) + 3);
  const at::Tensor mean = Buffer(keep, "0.running_mean").clone(),
                   var = Buffer(keep, "0.running_var").clone();
  Handle m = ModelWithData(q, at::randn({12, 4}), 5);  // 4 features for a layer of 3
  training(keep, false);
  EXPECT_THAT(ErrorOf([&] { batchnorm(m); }),
              ::testing::HasSubstr("running_mean should contain 4 elements not 3"));
  EXPECT_TRUE(at::equal(Buffer(keep, "0.running_mean"), mean));
  EXPECT_TRUE(at::equal(Buffer(keep, "0.running_var"), var));
  EXPECT_EQ(Buffer(keep, "0.num_batches_tracked").item<std::int64_t>(), 1);
  EXPECT_EQ(Momentum(keep, "0"), 0.1);
  EXPECT_FALSE(training(keep));
  EXPECT_EQ(model_datasize(m, DataMode::kTrain), 12);  // no epoch left under way
  EXPECT_EQ(ErrorOf([&] { batchnorm(loss("mse")); }),
            "batchnorm: expected module or model, given loss");
}

}  // namespace batchnorm_test
}  // namespace kscope
