// api/nn/module_parameters.h: buffers, submodules and their kinds, freezing, and copying or
// averaging parameter values, checked against the module's own tensors.
#include "api/nn/module_parameters.h"
#include "tests/error_text.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace module_parameters_test {

using ::testing::ElementsAre;
using testing::ErrorOf;
using testing::LeakCheckTest;
using ::testing::Pair;

using ModuleParametersTest = LeakCheckTest;

ModuleDefinition Def(std::string kind, std::vector<nn::OptionValue> positional = {},
                     std::string name = "") {
  return ModuleDefinition{std::move(kind), std::move(name), std::move(positional), {}, {}};
}

// sequential: linear `a (4 -> 3), batchnorm1d `b (3), relu `c
ModuleDefinition Net() {
  ModuleDefinition d = Def("sequential");
  d.children = {Def("linear", {std::int64_t{4}, std::int64_t{3}}, "a"),
                Def("batchnorm1d", {std::int64_t{3}}, "b"), Def("relu", {}, "c")};
  return d;
}

// The current values of q's parameter `name`.
at::Tensor Parm(Handle q, const std::string& name) {
  auto scope = Scope::Open();
  return tensor(parm(q, name));
}

TEST_F(ModuleParametersTest, BufferHandlesShareTheModulesBuffers) {
  auto scope = Scope::Open();
  Handle q = module(Net());
  EXPECT_THAT(buffernames(q),
              ElementsAre("b.running_mean", "b.running_var", "b.num_batches_tracked"));
  Handle mean = buffer(q, "b.running_mean");
  EXPECT_EQ(class_(mean), ObjectClass::kTensor);
  EXPECT_TRUE(at::equal(tensor(mean), at::zeros({3})));
  buffer(q, "b.running_mean", at::arange(3.0).to(at::kFloat));
  EXPECT_TRUE(
      at::equal(tensor(mean), at::arange(3.0).to(at::kFloat)));  // the handle sees the copy in
  Handle value = tensor(at::full({3}, 2.0, at::kFloat));
  buffer(q, "b.running_var", value);
  EXPECT_TRUE(mapped(value));  // copied in, not consumed
  Handle all = buffers(q), own = buffers(q, "b");
  EXPECT_EQ(class_(all), ObjectClass::kDictionary);
  EXPECT_THAT(dict(all).keys(),
              ElementsAre("b.running_mean", "b.running_var", "b.num_batches_tracked"));
  EXPECT_THAT(dict(own).keys(), ElementsAre("running_mean", "running_var", "num_batches_tracked"));
  EXPECT_TRUE(at::equal(dict(own, "running_var"), at::full({3}, 2.0, at::kFloat)));
  // A forward in training mode updates the buffers every handle shares.
  forward(q, at::randn({5, 4}));
  EXPECT_EQ(dict(all, "b.num_batches_tracked").item<std::int64_t>(), 1);
  EXPECT_EQ(dict(buffers(q, "a")).size(), 0u);  // a module without buffers: an empty dictionary
}

TEST_F(ModuleParametersTest, BadBufferCallsNameTheModuleAndChangeNothing) {
  auto scope = Scope::Open();
  Handle q = module(Net()), bn = module(Def("batchnorm1d", {std::int64_t{3}}));
  const std::size_t live = live_handles();
  EXPECT_EQ(ErrorOf([&] { buffer(bn, "foo"); }), "buffer: no buffer `foo in batchnorm1d module");
  EXPECT_EQ(ErrorOf([&] { buffer(q, "b.running_mean", at::ones({2})); }),
            "buffer: size mismatch for buffer `b.running_mean, 3 vs 2");
  EXPECT_EQ(ErrorOf([&] { buffers(q, "z"); }), "buffers: no child module `z in sequential module");
  EXPECT_EQ(ErrorOf([&] { buffernames(tensor(at::ones(1))); }),
            "buffernames: expected module, given tensor");
  EXPECT_EQ(live_handles(), live + 1);  // only the tensor made for the last call
  EXPECT_TRUE(at::equal(tensor(buffer(q, "b.running_mean")), at::zeros({3})));
}

TEST_F(ModuleParametersTest, SubmoduleNamesHandlesAndKinds) {
  auto scope = Scope::Open();
  Handle q = module(Net());
  EXPECT_THAT(names(q), ElementsAre("a", "b", "c"));
  EXPECT_TRUE(names(q, "a").empty());
  EXPECT_TRUE(names(module(Def("relu"))).empty());
  const auto found = modules(q);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].first, "a");
  EXPECT_EQ(class_(found[0].second), ObjectClass::kModule);
  EXPECT_EQ(ref(found[0].second).single(),
            3);  // q's sequential (twice, as for children) and the handle
  EXPECT_EQ(describe(found[1].second)[0].kind, "batchnorm1d");
  EXPECT_THAT(parmnames(found[0].second), ElementsAre("weight", "bias"));
  // The handle shares the submodule: a change through it shows in q.
  freeze(found[0].second, {"weight"}, {at::ones({3, 4})});
  EXPECT_TRUE(at::equal(Parm(q, "a.weight"), at::ones({3, 4})));
  EXPECT_THAT(moduletypes(q), ElementsAre(Pair("", "sequential"), Pair("a", "linear"),
                                          Pair("b", "batchnorm1d"), Pair("c", "relu")));
  EXPECT_THAT(moduletypes(q, {"linear", "relu", "conv2d"}),
              ElementsAre(Pair("a", "linear"), Pair("c", "relu")));
  EXPECT_THAT(parmtypes(q),
              ElementsAre(Pair("a.weight", "linear"), Pair("a.bias", "linear"),
                          Pair("b.weight", "batchnorm1d"), Pair("b.bias", "batchnorm1d")));
  EXPECT_THAT(parmtypes(found[0].second),
              ElementsAre(Pair("weight", "linear"), Pair("bias", "linear")));
  const std::size_t live = live_handles();
  EXPECT_EQ(ErrorOf([&] { modules(q, "x"); }), "modules: no child module `x in sequential module");
  EXPECT_EQ(ErrorOf([&] { names(q, "a.b"); }), "names: no child module `a.b in sequential module");
  EXPECT_EQ(live_handles(), live);
}

TEST_F(ModuleParametersTest, FreezeAndUnfreezeTurnRequiresGradOffAndOn) {
  auto scope = Scope::Open();
  Handle q = module(Net());
  Handle w = parm(q, "a.weight"), b = parm(q, "a.bias");
  freeze(q);
  for (const std::string& name : parmnames(q)) EXPECT_FALSE(gradflag(parm(q, name))) << name;
  unfreeze(q, {"a.bias"});
  EXPECT_TRUE(gradflag(b));
  EXPECT_FALSE(gradflag(w));
  // A frozen layer gets no gradient; the unfrozen one does.
  backward(kscope::sum(forward(q, tensor(at::randn({5, 4})))));
  EXPECT_FALSE(grad(w).defined());
  EXPECT_TRUE(grad(b).defined());
  unfreeze(q);
  EXPECT_TRUE(gradflag(w));
  Handle ones = tensor(at::ones({3}));
  freeze(q, {"a.weight", "a.bias"}, {at::zeros({3, 4}), ones});
  EXPECT_FALSE(gradflag(w));
  EXPECT_TRUE(at::equal(tensor(w), at::zeros({3, 4})));
  EXPECT_TRUE(at::equal(tensor(b), at::ones({3})));
  EXPECT_TRUE(mapped(ones));
}

TEST_F(ModuleParametersTest, BadFreezeChangesNothing) {
  auto scope = Scope::Open();
  Handle q = module(Net());
  const at::Tensor before = Parm(q, "a.weight");
  EXPECT_EQ(ErrorOf([&] {
              freeze(q, {"a.weight", "x"});
            }),
            "freeze: no parameter `x in sequential module");
  EXPECT_EQ(ErrorOf([&] {
              freeze(q, {"a.weight", "a.bias"}, {at::zeros({3, 4}), at::zeros({4})});
            }),
            "freeze: size mismatch for parameter `a.bias, 3 vs 4");
  EXPECT_EQ(ErrorOf([&] { unfreeze(q, {"a.weight"}, {}); }), "unfreeze: 1 name(s) but 0 value(s)");
  EXPECT_TRUE(gradflag(parm(q, "a.weight")));
  EXPECT_TRUE(at::equal(Parm(q, "a.weight"), before));
}

TEST_F(ModuleParametersTest, CopyparmsCopiesOutAndBack) {
  auto scope = Scope::Open();
  Handle q = module(Net());
  Handle d = copyparms(q);
  EXPECT_THAT(dict(d).keys(), ElementsAre("a.weight", "a.bias", "b.weight", "b.bias"));
  const at::Tensor w = Parm(q, "a.weight");
  freeze(q, {"a.weight"}, {at::zeros({3, 4})});
  EXPECT_TRUE(at::equal(dict(d, "a.weight"), w));  // copies: unchanged by the module
  kscope::dict(d, "a.bias", at::ones({5}));        // a size that no longer fits
  kscope::dict(d, "extra", at::ones({1}));
  // per parameter of q, as ktorch answers; d's extra key is ignored
  EXPECT_THAT(copyparms(q, d), ElementsAre(Pair("a.weight", true), Pair("a.bias", false),
                                           Pair("b.weight", true), Pair("b.bias", true)));
  EXPECT_TRUE(at::equal(Parm(q, "a.weight"), w));
  EXPECT_EQ(ErrorOf([&] { copyparms(q, q); }), "copyparms: expected dictionary, given module");
}

TEST_F(ModuleParametersTest, AvgparmsKeepsTheRunningMean) {
  auto scope = Scope::Open();
  Handle q = module(Def("linear", {std::int64_t{2}, std::int64_t{1}}));
  std::vector<at::Tensor> seen;
  Handle d;
  for (int i = 1; i <= 3; ++i) {
    const at::Tensor w = at::randn({1, 2}), b = at::randn({1});
    freeze(q, {"weight", "bias"}, {w, b});
    seen.push_back(w);
    if (i == 1) {
      d = copyparms(q);  // the first set; no count yet, which stands for 1
    } else {
      EXPECT_EQ(avgparms(q, d), i);
    }
  }
  EXPECT_EQ(dict(d, ".n").item<double>(), 3);
  EXPECT_TRUE(at::allclose(dict(d, "weight"), (seen[0] + seen[1] + seen[2]) / 3));
  // Bad input changes nothing.
  Handle bad = kscope::dict(
      {{"weight", at::ones({2})}, {"bias", at::ones({1})}, {".n", at::scalar_tensor(2.0)}});
  EXPECT_EQ(ErrorOf([&] { avgparms(q, bad); }),
            "avgparms: size mismatch for parameter `weight, 1 2 vs 2");
  EXPECT_EQ(dict(bad, ".n").item<double>(), 2);
  EXPECT_EQ(ErrorOf([&] { avgparms(q, kscope::dict(NamedOperands{})); }),
            "avgparms: parameter weight not found, unable to compute average");
  EXPECT_EQ(ErrorOf([&] {
              avgparms(q, kscope::dict({{".n", at::scalar_tensor(0.5)}}));
            }),
            "avgparms: key `.n must hold a count, a number scalar of at least 1");
}

}  // namespace module_parameters_test
}  // namespace kscope
