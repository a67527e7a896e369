// api/nn/kinds/multi_tensor.h: the multi-tensor steps of sgd, adam, adamw, adagrad and rmsprop
// against libtorch's per-parameter steps (kscope::set_multi_tensor_steps(false)), with several
// parameter groups of different options, a parameter without a gradient in one step (its step
// count falls behind the others'), sparse gradients (the per-parameter step runs) and the count
// of multi-tensor operations a step launches. On the CPU the two paths must agree bit for bit:
// `_foreach_*` runs there tensor by tensor through the same operators (multi_tensor.h). The
// fused adam and adamw steps (api/nn/kinds/fused_adam.h) agree with them to rounding.
#include <string>
#include <vector>

#include <torch/version.h>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_format.h"
#include "api/nn/kinds/fused_adam.h"
#include "api/nn/optimizer.h"
#include "api/nn/optimizer_object.h"
#include "tests/op_counter.h"
#include "tests/optimizer_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace optimizer_multi_tensor_test {

using testing::Backward;
using testing::CopyParameters;
using testing::LeakCheckTest;
using testing::Linear;
using testing::OpCounter;

// One parameter group's options.
using GroupOptions = nn::NamedValues;

struct KindCase {
  std::string kind;
  std::vector<GroupOptions> groups;  // one linear module per group
};

void PrintTo(const KindCase& c, std::ostream* os) { *os << c.kind; }

// How a step updates the parameters: libtorch's per-parameter step, kscope's multi-tensor step,
// or (adam, adamw) the fused kernel where libtorch has one.
enum class StepPath { kPerParameter, kMultiTensor, kFused };

void Use(StepPath path) {
  set_multi_tensor_steps(path != StepPath::kPerParameter);
  set_fused_steps(path == StepPath::kFused);
}

class MultiTensorStepTest : public LeakCheckTest, public ::testing::WithParamInterface<KindCase> {
 protected:
  void TearDown() override {
    Use(StepPath::kFused);  // the defaults
    LeakCheckTest::TearDown();
  }
};

// An optimizer of `c`'s kind over one module per group on `device`; the modules are returned in
// *modules.
Handle Optimizer(const KindCase& c, const std::string& device, std::vector<Handle>* modules) {
  Handle o = opt(c.kind);
  for (std::size_t g = 0; g < c.groups.size(); ++g) {
    modules->push_back(Linear(4 - static_cast<std::int64_t>(g % 2), 3));
    to(modules->back(), Options::Parse("to", {device}));
    opt_edit(o, static_cast<std::int64_t>(g), {modules->back()}, {}, c.groups[g]);
  }
  return o;
}

// Four steps over the same inputs, step k taken the way paths[k] says: the gradients of
// sum(q(x)) for each module q, except that in the second step the last group's parameters have
// none (libtorch skips them: their step counts fall behind).
using Paths = std::vector<StepPath>;

void Train(Handle o, const std::vector<Handle>& modules, const Paths& paths,
           const std::string& device = "cpu") {
  const std::vector<at::Tensor> parameters = nn::OptimizerOf("test", o)->parameters();
  for (int k = 0; k < 4; ++k) {
    Use(paths[k]);
    for (const at::Tensor& p : parameters) p.mutable_grad() = at::Tensor();
    for (std::size_t g = 0; g < modules.size(); ++g) {
      if (k == 1 && g + 1 == modules.size()) continue;
      at::manual_seed(100 * k + static_cast<int>(g));
      Backward(modules[g], at::randn({5, 4 - static_cast<std::int64_t>(g % 2)}).to(device));
    }
    step(o);
  }
}

// Trains an optimizer of kind `c` on `device` from the same values per parameter and as `paths`
// say, then compares the parameters and every state buffer: equal when `tolerance` is 0, else
// within it (relative and absolute). Operators named `path_ops...` must run in the second
// training only.
void CompareWithThePerParameterStep(const KindCase& c, const std::string& device, double tolerance,
                                    const Paths& paths, const char* path_ops = "aten::_foreach_") {
  auto scope = Scope::Open();
  std::vector<Handle> single_modules, multi_modules;
  const Handle single = Optimizer(c, device, &single_modules);
  const Handle multi = Optimizer(c, device, &multi_modules);
  for (std::size_t g = 0; g < single_modules.size(); ++g)
    CopyParameters(single_modules[g], multi_modules[g]);

  OpCounter ops(OpCounter::Prefix(path_ops));
  Train(single, single_modules, Paths(4, StepPath::kPerParameter), device);
  EXPECT_EQ(ops.count(), 0) << "the per-parameter step ran " << path_ops;
  Train(multi, multi_modules, paths, device);
  EXPECT_GT(ops.count(), 0) << "no " << path_ops << " ran";

  auto same = [tolerance](const at::Tensor& a, const at::Tensor& b) {
    return tolerance == 0 ? at::equal(a, b) : at::allclose(a, b, tolerance, tolerance);
  };
  const std::vector<at::Tensor> a = nn::OptimizerOf("test", single)->parameters(),
                                b = nn::OptimizerOf("test", multi)->parameters();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(same(a[i], b[i])) << "parameter " << i << ": " << (a[i] - b[i]).abs().max();
  }
  const OptimizerState sa = opt_state(single), sb = opt_state(multi);
  ASSERT_EQ(sa.buffers.size(), sb.buffers.size());
  for (std::size_t i = 0; i < sa.buffers.size(); ++i) {
    ASSERT_EQ(sa.buffers[i].size(), sb.buffers[i].size()) << "parameter " << i;
    for (std::size_t j = 0; j < sa.buffers[i].size(); ++j) {
      EXPECT_EQ(sa.buffers[i][j].first, sb.buffers[i][j].first);
      EXPECT_TRUE(same(sa.buffers[i][j].second, sb.buffers[i][j].second))
          << "parameter " << i << " buffer " << sa.buffers[i][j].first;
    }
  }
}

TEST_P(MultiTensorStepTest, EqualsThePerParameterStepExactly) {
  CompareWithThePerParameterStep(GetParam(), "cpu", 0, Paths(4, StepPath::kMultiTensor));
}

// On a GPU the list kernels compute each element with the same operations in the same
// precision as the per-tensor kernels; what may differ is rounding where a compiler contracts a
// multiply and an add differently in the two kernels: within 1e-6 after four steps of
// values near 1.
TEST_P(MultiTensorStepTest, OnTheGpuEqualsThePerParameterStepToRounding) {
  if (!at::hasCUDA())
    GTEST_SKIP() << "no CUDA device: this libtorch reports at::hasCUDA() == false";
  CompareWithThePerParameterStep(GetParam(), "cuda", 1e-6, Paths(4, StepPath::kMultiTensor));
}

INSTANTIATE_TEST_SUITE_P(
    EveryKind, MultiTensorStepTest,
    ::testing::Values(KindCase{"sgd",
                               {{{"lr", 0.1}},
                                {{"momentum", 0.9}, {"dampening", 0.2}, {"decay", 0.01}},
                                {{"lr", 0.05}, {"momentum", 0.8}, {"nesterov", true}}}},
                      KindCase{"adam", {{{"lr", 0.01}}, {{"amsgrad", true}, {"decay", 0.1}}}},
                      KindCase{"adamw", {{{"decay", 0.05}}, {{"amsgrad", true}, {"lr", 0.02}}}},
                      KindCase{"adagrad", {{{"lrdecay", 0.01}, {"decay", 0.1}, {"init", 0.1}}, {}}},
                      KindCase{"rmsprop",
                               {{{"centered", true}, {"momentum", 0.5}, {"decay", 0.1}},
                                {{"lr", 0.001}},
                                {{"centered", true}}}}),
    [](const ::testing::TestParamInfo<KindCase>& info) { return info.param.kind; });

using MultiTensorLaunchTest = LeakCheckTest;

// The multi-tensor operations of one adam step (after the first, which makes the state) over a
// module of `layers` linear layers in one group.
std::int64_t ForeachCallsPerStep(int layers) {
  auto scope = Scope::Open();
  std::vector<ModuleDefinition> children;
  for (int i = 0; i < layers; ++i)
    children.push_back(ModuleDefinition{"linear", "", {4, 4}, {}, {}});
  const Handle q = module(ModuleDefinition{"sequential", "", {}, {}, children});
  const Handle o = opt("adam", q);
  Backward(q, at::ones({2, 4}));
  step(o);
  OpCounter foreach_ops(OpCounter::Prefix("aten::_foreach_"));
  step(o);
  return foreach_ops.count();
}

TEST_F(MultiTensorLaunchTest, AStepLaunchesAsManyOperationsForAnyNumberOfParameters) {
  const std::int64_t two = ForeachCallsPerStep(1), twelve = ForeachCallsPerStep(6);
  EXPECT_GT(two, 0);
  EXPECT_EQ(two, twelve) << "multi-tensor calls grew with the parameters: 2 -> " << two
                         << ", 12 -> " << twelve;
}

TEST_F(MultiTensorLaunchTest, SparseGradientsTakeThePerParameterStep) {
  // q)e:module(`embed;10;3;`sparse;1b); o:opt(`sgd;e;.1)
  auto scope = Scope::Open();
  auto make = [] { return module(ModuleDefinition{"embed", "", {10, 3}, {{"sparse", true}}, {}}); };
  const Handle e1 = make(), e2 = make();
  CopyParameters(e1, e2);
  const Handle o1 = opt("sgd", e1, {0.1}), o2 = opt("sgd", e2, {0.1});
  const at::Tensor rows = at::tensor(std::vector<std::int64_t>{1, 4, 4});
  absl::Cleanup restore = [] { Use(StepPath::kFused); };
  Use(StepPath::kPerParameter);
  Backward(e1, rows);
  step(o1);
  Use(StepPath::kFused);
  Backward(e2, rows);
  ASSERT_TRUE(nn::OptimizerOf("test", o2)->parameters()[0].grad().is_sparse());
  OpCounter foreach_ops(OpCounter::Prefix("aten::_foreach_"));
  step(o2);
  EXPECT_EQ(foreach_ops.count(), 0);
  EXPECT_TRUE(at::equal(nn::OptimizerOf("test", o1)->parameters()[0],
                        nn::OptimizerOf("test", o2)->parameters()[0]));
}

// The fused adam and adamw steps, where this libtorch has the kernels for the device.
class FusedAdamTest : public MultiTensorStepTest {
 protected:
  // Why the fused kernel cannot run on `device` here; empty when it can.
  static std::string Unfusable(const KindCase& c, const std::string& device) {
    if (device == "cuda" && !at::hasCUDA())
      return "no CUDA device: this libtorch reports at::hasCUDA() == false";
    const std::vector<at::Tensor> one{at::ones({1}, at::Device(device))};
    if (!nn::CanFuseAdam(c.kind == "adamw", one, one))
      return absl::StrFormat("libtorch %d.%d has no fused %s kernel for the %s",
                             TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR, c.kind, device);
    return "";
  }
};

// The kernel evaluates each element's update in one expression, in its own order: within 1e-6
// of the per-parameter step after four steps of values near 1 (float32 rounding, a few ulps).
TEST_P(FusedAdamTest, EqualsThePerParameterStepToRounding) {
  if (const std::string why = Unfusable(GetParam(), "cpu"); !why.empty()) GTEST_SKIP() << why;
  CompareWithThePerParameterStep(GetParam(), "cpu", 1e-6, Paths(4, StepPath::kFused),
                                 "aten::_fused_adam");
}

// A fused step's only list operation is the step counts' advance: the kernel does the rest.
TEST_P(FusedAdamTest, AFusedStepLeavesTheArithmeticToTheKernel) {
  if (const std::string why = Unfusable(GetParam(), "cpu"); !why.empty()) GTEST_SKIP() << why;
  auto scope = Scope::Open();
  std::vector<Handle> modules;
  const Handle o = Optimizer(GetParam(), "cpu", &modules);
  Train(o, modules, Paths(4, StepPath::kFused));
  OpCounter arithmetic([](const at::RecordFunction& call) {
    const std::string name = call.name();
    return name.rfind("aten::_foreach_", 0) == 0 && name != "aten::_foreach_add_";
  });
  Train(o, modules, Paths(4, StepPath::kFused));
  EXPECT_EQ(arithmetic.count(), 0);
  Train(o, modules, Paths(4, StepPath::kMultiTensor));
  EXPECT_GT(arithmetic.count(), 0) << "the counter saw nothing of the unfused steps";
}

// Steps taken without the kernel advance libtorch's counts but not the device's: the next fused
// step starts from libtorch's (bias corrections of the right step).
TEST_P(FusedAdamTest, StepsTakenWithoutTheKernelCount) {
  if (const std::string why = Unfusable(GetParam(), "cpu"); !why.empty()) GTEST_SKIP() << why;
  CompareWithThePerParameterStep(
      GetParam(), "cpu", 1e-6,
      {StepPath::kFused, StepPath::kPerParameter, StepPath::kMultiTensor, StepPath::kFused},
      "aten::_fused_adam");
}

TEST_P(FusedAdamTest, OnTheGpuEqualsThePerParameterStepToRounding) {
  if (const std::string why = Unfusable(GetParam(), "cuda"); !why.empty()) GTEST_SKIP() << why;
  CompareWithThePerParameterStep(GetParam(), "cuda", 1e-6, Paths(4, StepPath::kFused),
                                 "aten::_fused_adam");
}

INSTANTIATE_TEST_SUITE_P(
    AdamKinds, FusedAdamTest,
    ::testing::Values(KindCase{"adam", {{{"lr", 0.01}}, {{"amsgrad", true}, {"decay", 0.1}}}},
                      KindCase{"adamw", {{{"decay", 0.05}}, {{"amsgrad", true}, {"lr", 0.02}}}}),
    [](const ::testing::TestParamInfo<KindCase>& info) { return info.param.kind; });

}  // namespace optimizer_multi_tensor_test
}  // namespace kscope
