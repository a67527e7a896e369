// api/nn/clip.h against libtorch's torch::nn::utils::clip_grad_norm_ and clip_grad_value_ on
// copies of the same gradients: modules, optimizers and models (whole or by group), tensors,
// vectors and dictionaries, several norm types; clipping by a model's training options.
#include <limits>

#include <torch/types.h>  // clip_grad.h needs torch::Tensor declared first

#include <torch/nn/utils/clip_grad.h>

#include "api/model/model.h"
#include "api/model/model_run.h"
#include "api/nn/clip.h"
#include "tests/error_text.h"
#include "tests/optimizer_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace clip_test {

using testing::Backward;
using ::testing::ElementsAre;
using testing::ErrorOf;
using testing::LeakCheckTest;
using testing::Linear;
using testing::Sequential;
using testing::WithGrad;

using ClipTest = LeakCheckTest;

// Leaf copies of q's parameters carrying copies of their gradients.
std::vector<at::Tensor> Copies(Handle q) {
  return {WithGrad(tensor(parm(q, "weight")), grad(parm(q, "weight"))),
          WithGrad(tensor(parm(q, "bias")), grad(parm(q, "bias")))};
}

void ExpectSameGradients(Handle q, const std::vector<at::Tensor>& copies) {
  EXPECT_TRUE(at::allclose(grad(parm(q, "weight")), copies[0].grad()));
  EXPECT_TRUE(at::allclose(grad(parm(q, "bias")), copies[1].grad()));
}

TEST_F(ClipTest, ModuleNormMatchesLibtorch) {
  for (double norm_type : {2.0, 1.0, std::numeric_limits<double>::infinity()}) {
    SCOPED_TRACE(norm_type);
    auto scope = Scope::Open();
    Handle q = Linear(10, 3);
    Backward(q, 5 * at::randn({7, 10}));
    std::vector<at::Tensor> copies = Copies(q);
    const double expected = torch::nn::utils::clip_grad_norm_(copies, 0.5, norm_type);
    EXPECT_DOUBLE_EQ(clip(q, 0.5, norm_type), expected);
    ExpectSameGradients(q, copies);
    EXPECT_NEAR(clip(q, 0.5, norm_type), 0.5, 1e-4);  // clipped: now at the maximum
  }
}

TEST_F(ClipTest, OptimizerGroupsSeed004) {
  // q)o:opt`sgd; opt(o;0;a); opt(o;1;b); clip(o;1.0;1b) -> one norm per group
  auto scope = Scope::Open();
  Handle a = Linear(64, 32), b = Linear(32, 3);
  Handle o = opt("sgd");
  opt_edit(o, 0, {a});
  opt_edit(o, 1, {b});
  forward(b, forward(a, 3 * at::randn({7, 64})).tensor()).tensor().pow(2).sum().backward();
  std::vector<at::Tensor> ca = Copies(a), cb = Copies(b);
  const double na = torch::nn::utils::clip_grad_norm_(ca, 1.0),
               nb = torch::nn::utils::clip_grad_norm_(cb, 1.0);
  ASSERT_GT(na, 1.0);
  ASSERT_GT(nb, 1.0);
  const std::vector<double> norms = clip_groups(o, 1.0);
  ASSERT_EQ(norms.size(), 2u);
  EXPECT_DOUBLE_EQ(norms[0], na);
  EXPECT_DOUBLE_EQ(norms[1], nb);
  ExpectSameGradients(a, ca);
  ExpectSameGradients(b, cb);
  for (double n : clip_groups(o, 0.95)) EXPECT_NEAR(n, 1.0, 1e-4);  // each group was clipped
  // Without the group flag, the norm is across every parameter of the optimizer.
  EXPECT_NEAR(clip(o, 0.75), std::sqrt(2 * 0.95 * 0.95), 1e-4);
  EXPECT_NEAR(clip(o, 0.5), 0.75, 1e-4);
  EXPECT_EQ(clip_groups(a, 1.0).size(), 1u);  // a module is one group
}

TEST_F(ClipTest, ValueOnTensorsVectorsAndModulesSeed004) {
  // q)z:mean y:mul(x;x:tensor(1 2 3e;`grad)); backward z; clipv(x;1.2); grad x ->
  // 0.6666667 1.2 1.2e
  auto scope = Scope::Open();
  at::Tensor x = at::tensor({1.0f, 2.0f, 3.0f}).requires_grad_();
  Handle hx = tensor(x);
  (x * x).mean().backward();
  clipv(hx, 1.2);
  EXPECT_TRUE(at::allclose(grad(hx), at::tensor({2.0f / 3, 1.2f, 1.2f})));
  // q)clipv(m;.4): a module's gradients end in [-0.4, 0.4]
  Handle m = Linear(10, 3);
  Backward(m, 3 * at::randn({7, 10}));
  std::vector<at::Tensor> copies = Copies(m);
  torch::nn::utils::clip_grad_value_(copies, 0.4);
  clipv(m, 0.4);
  ExpectSameGradients(m, copies);
  EXPECT_LE(grad(parm(m, "weight")).abs().max().item<float>(), 0.4f);
  // A vector and a dictionary: one norm across their tensors; tensors without gradients skipped.
  at::Tensor v0 = WithGrad(at::zeros({2}), at::full({2}, 3.0)), v1 = at::zeros({3});
  Handle v = vector({tensor(v0), tensor(v1)});
  EXPECT_NEAR(clip(v, 1.0), std::sqrt(18.0), 1e-6);  // a float norm
  EXPECT_TRUE(at::allclose(v0.grad(), at::full({2}, 1 / std::sqrt(2.0))));
  Handle d = dict({{"a", tensor(WithGrad(at::zeros({1}), at::full({1}, 4.0)))}});
  EXPECT_DOUBLE_EQ(clip(d, 10.0, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(clip(tensor(at::zeros({2})), 1.0), 0.0);  // no gradient at all
}

// A model of Sequential(4, 5, 2) with an sgd optimizer whose group 0 holds child 0 and group 1
// child 2; *keep is another handle to its module. Its gradients are those of a backward on
// random data.
Handle TwoGroupModel(Handle* keep) {
  Handle q = Sequential(4, 5, 2);
  *keep = addref(q);
  Handle o = opt_group("sgd", 0, {q, {"0"}, {}});
  opt_edit(o, 1, {q, {"2"}, {}});
  Handle m = model({q, loss("mse"), o});
  model_backward(m, 10 * at::randn({6, 4}), at::randn({6, 2}));
  return m;
}

// Leaf copies of a child's weight and bias with copies of their gradients.
std::vector<at::Tensor> ChildCopies(Handle q, const std::string& child) {
  std::vector<at::Tensor> copies;
  for (const char* name : {".weight", ".bias"}) {
    Handle p = parm(q, child + name);
    copies.push_back(WithGrad(tensor(p), grad(p)));
  }
  return copies;
}

void ExpectSameChildGradients(Handle q, const std::string& child,
                              const std::vector<at::Tensor>& copies) {
  EXPECT_TRUE(at::allclose(grad(parm(q, child + ".weight")), copies[0].grad()));
  EXPECT_TRUE(at::allclose(grad(parm(q, child + ".bias")), copies[1].grad()));
}

TEST_F(ClipTest, ModelClipsItsOptimizersParameters) {
  // q)clip(m;1.0;1b) -> one norm per optimizer group; clip(m;.5) across them; clipv(m;.01)
  auto scope = Scope::Open();
  Handle q;
  Handle m = TwoGroupModel(&q);
  std::vector<at::Tensor> c0 = ChildCopies(q, "0"), c2 = ChildCopies(q, "2");
  const double n0 = torch::nn::utils::clip_grad_norm_(c0, 1.0),
               n2 = torch::nn::utils::clip_grad_norm_(c2, 1.0);
  ASSERT_GT(n0, 1.0);
  ASSERT_GT(n2, 1.0);
  EXPECT_THAT(clip_groups(m, 1.0), ElementsAre(n0, n2));
  ExpectSameChildGradients(q, "0", c0);
  ExpectSameChildGradients(q, "2", c2);
  EXPECT_NEAR(clip(m, 0.5), std::sqrt(2.0), 1e-4);  // both groups at norm 1
  clipv(m, 0.01);
  EXPECT_LE(grad(parm(q, "2.weight")).abs().max().item<float>(), 0.01f);
  EXPECT_LE(grad(parm(q, "0.bias")).abs().max().item<float>(), 0.01f);
}

TEST_F(ClipTest, ModelClipsByItsTrainingOptions) {
  auto scope = Scope::Open();
  Handle q;
  Handle m = TwoGroupModel(&q);
  const at::Tensor before = grad(parm(q, "0.weight")).clone();
  EXPECT_TRUE(clip_by_options(m).empty());  // neither clipnorm nor clipvalue: nothing clipped
  EXPECT_TRUE(at::equal(grad(parm(q, "0.weight")), before));

  // q)train(m;`clipnorm;(1;1)) -> the 1-norm across every parameter of the optimizer
  train(m, {{"clipnorm", std::vector<double>{1, 1}}});
  std::vector<at::Tensor> all = ChildCopies(q, "0"), c2 = ChildCopies(q, "2");
  all.insert(all.end(), c2.begin(), c2.end());
  const double n = torch::nn::utils::clip_grad_norm_(all, 1.0, 1.0);
  ASSERT_GT(n, 1.0);
  EXPECT_THAT(clip_by_options(m), ElementsAre(n));
  ExpectSameChildGradients(q, "0", {all[0], all[1]});
  ExpectSameChildGradients(q, "2", {all[2], all[3]});

  // clipgroup: one 2-norm per optimizer group
  train(m, {{"clipgroup", true}, {"clipnorm", 0.001}});
  std::vector<at::Tensor> g0 = ChildCopies(q, "0"), g2 = ChildCopies(q, "2");
  const double n0 = torch::nn::utils::clip_grad_norm_(g0, 0.001),
               n2 = torch::nn::utils::clip_grad_norm_(g2, 0.001);
  ASSERT_GT(n0, 0.001);
  ASSERT_GT(n2, 0.001);
  EXPECT_THAT(clip_by_options(m), ElementsAre(n0, n2));
  ExpectSameChildGradients(q, "0", g0);
  ExpectSameChildGradients(q, "2", g2);
  for (double norm : clip_by_options(m)) EXPECT_NEAR(norm, 0.001, 1e-6);

  // clipvalue: clamped as libtorch clamps, no norms
  const float value = grad(parm(q, "2.weight")).abs().max().item<float>() / 2;
  train(m, {{"clipvalue", static_cast<double>(value)}});
  std::vector<at::Tensor> v0 = ChildCopies(q, "0"), v2 = ChildCopies(q, "2");
  torch::nn::utils::clip_grad_value_(v0, value);
  torch::nn::utils::clip_grad_value_(v2, value);
  EXPECT_TRUE(clip_by_options(m).empty());
  ExpectSameChildGradients(q, "0", v0);
  ExpectSameChildGradients(q, "2", v2);
  EXPECT_FLOAT_EQ(grad(parm(q, "2.weight")).abs().max().item<float>(), value);
}

TEST_F(ClipTest, OtherObjectsAreRefused) {
  auto scope = Scope::Open();
  Handle l = loss("mse");
  EXPECT_EQ(ErrorOf([&] { clip(l, 1.0); }),
            "clip: expected tensor, vector, dictionary, module, optimizer or model, given loss");
  EXPECT_EQ(ErrorOf([&] { clipv(l, 1.0); }),
            "clipv: expected tensor, vector, dictionary, module, optimizer or model, given loss");
  EXPECT_EQ(ErrorOf([&] { clip_by_options(Linear(2, 2)); }), "clip: expected model, given module");
}

}  // namespace clip_test
}  // namespace kscope
