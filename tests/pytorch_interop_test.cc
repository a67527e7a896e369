// PyTorch -> kscope -> PyTorch through state dict files, with the project's own PyTorch
// (tests/python_torch.h; tests/pytorch_interop.py is its side): for a sequential MLP, a convnet
// with batchnorm, a two-layer LSTM and a transformer encoder layer, PyTorch's
// torch.save(model.state_dict()) loads strictly into kscope's module of the same architecture,
// which then computes PyTorch's output to 1e-6; its parameters changed, kscope's savestatedict
// loads strictly into a fresh PyTorch model, which computes kscope's output to 1e-6. PyTorch's
// file also loads loosely into a larger module, and strictly not into another architecture.
// TorchScript (the `torchscript` kind, api/nn/torchscript.h): a scripted MLP runs as PyTorch's
// did, trains in a model by run and goes back by savescript to torch.jit.load, which computes
// kscope's output; a traced convnet moves with `to`, clones, and goes back too; bad files and
// modules of other kinds are refused, naming the call. torch.export (the `pt2` kind, libtorch
// 2.x): the mlp exported and compiled by AOTInductor evaluates as PyTorch computed, inside
// scopes, and refuses training; the 1.13 line refuses the kind. The GPU twin loads all three
// onto a CUDA device (the GPU suite runs it).
//
// Skips, saying why, when no Python with torch is found; CI sets KSCOPE_REQUIRE_PYTORCH so that
// it fails there instead.
#include <string>
#include <vector>

#include <ATen/Context.h>
#include <ATen/Functions.h>
#include <ATen/core/Dict.h>
#include <c10/core/GradMode.h>
#include <torch/version.h>

#include "api/core/move.h"
#include "api/core/operand.h"
#include "api/core/pickle_file.h"
#include "api/model/model.h"
#include "api/model/model_data.h"
#include "api/model/model_object.h"
#include "api/model/model_run.h"
#include "api/nn/loss.h"
#include "api/nn/module.h"
#include "api/nn/module_state.h"
#include "api/nn/optimizer.h"
#include "api/nn/state_dict.h"
#include "api/nn/torchscript.h"
#include "api/tensor/tensor.h"
#include "gmock/gmock.h"
#include "tests/error_text.h"
#include "tests/module_case.h"
#include "tests/python_torch.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace {

using testing::Def;
using ::testing::ElementsAre;
using testing::ErrorOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::J;
using testing::Sequential;

struct Architecture {
  std::string name;  // pytorch_interop.py's
  ModuleDefinition definition;
};

void PrintTo(const Architecture& a, std::ostream* out) { *out << a.name; }

// kscope's twins of pytorch_interop.py's architectures.
std::vector<Architecture> Architectures() {
  return {
      {"mlp",
       Sequential({Def("linear", {J(6), J(16)}), Def("relu"), Def("linear", {J(16), J(4)})})},
      {"convnet",
       Sequential({Def("conv2d", {J(1), J(4), J(3)}), Def("batchnorm2d", {J(4)}), Def("relu"),
                   Def("maxpool2d", {J(2)}), Def("flatten"), Def("linear", {J(36), J(5)})})},
      {"lstm", Def("lstm", {J(5), J(7), J(2)}, {{"batchfirst", true}})},
      {"transformer", Def("encoderlayer", {J(16), J(4), J(32), 0.0})},
  };
}

class PyTorchInteropTest : public testing::LeakCheckTest {
 protected:
  void SetUp() override {
    testing::LeakCheckTest::SetUp();
    if (const std::string why = testing::PyTorchMissing(); !why.empty()) {
      KSCOPE_SKIP_UNLESS_REQUIRED("KSCOPE_REQUIRE_PYTORCH", why);
    }
    ASSERT_EQ(testing::PyTorchFiles().made.status, 0) << testing::PyTorchFiles().made.output;
  }
  static std::string File(const std::string& name) { return testing::PyTorchFiles().File(name); }
};

class ArchitectureTest : public PyTorchInteropTest,
                         public ::testing::WithParamInterface<Architecture> {};

// q's evaluation-mode output on x (a recurrent layer's first output, its sequence).
at::Tensor Output(Handle q, const at::Tensor& x) {
  const Value v = evaluate(q, x).value();
  if (const auto* several = std::get_if<TensorVector>(&v)) return several->at(0);
  return std::get<at::Tensor>(v);
}

// x and y from PyTorch's DIR/NAME.io.pt.
std::pair<at::Tensor, at::Tensor> InputAndOutput(const std::string& name) {
  std::pair<at::Tensor, at::Tensor> io;
  ReadPickleFile("test", testing::PyTorchFiles().File(name + ".io.pt"), "x and y",
                 [&](const c10::IValue& v) {
                   const auto dict = v.toGenericDict();
                   io = {dict.at("x").toTensor(), dict.at("y").toTensor()};
                 });
  return io;
}

double Difference(const at::Tensor& a, const at::Tensor& b) {
  return (a - b).abs().max().item<double>();
}

// Whether PyTorch, given kscope's file for architecture `name` (`form` statedict or script),
// computes kscope's output y on its input (on the CPU), to `tolerance`.
void ExpectPyTorchComputes(const std::string& name, const char* form, const at::Tensor& y,
                           double tolerance = 1e-6) {
  const at::Tensor flat = y.to(at::kDouble).contiguous().flatten();
  EXPECT_TRUE(testing::PyTorchComputes(
      name, form,
      std::vector<double>(flat.data_ptr<double>(), flat.data_ptr<double>() + flat.numel()),
      tolerance));
}

// Every parameter of q moved (kscope's training stands here).
void Perturb(Handle q) {
  const c10::NoGradGuard no_grad;
  for (const at::Tensor& p : nn::ModuleOrModelsModule("test", q)->module().parameters())
    p.mul_(0.5).add_(0.01);
}

// q, whose values moved away from those that gave y on x, saved by kscope (`form` statedict:
// savestatedict; script: savescript) and computed from that file by PyTorch as kscope does.
void ExpectHandedBack(Handle q, const std::string& name, const char* form, const at::Tensor& x,
                      const at::Tensor& y) {
  const at::Tensor changed = Output(q, x);
  EXPECT_GT(Difference(changed, y), 1e-3);
  if (std::string(form) == "script") {
    save_torchscript(q, testing::PyTorchFiles().File(name + ".kscope.script.pt"));
  } else {
    save_state_dict(q, testing::PyTorchFiles().File(name + ".kscope.pt"));
  }
  ExpectPyTorchComputes(name, form, changed);
}

TEST_P(ArchitectureTest, PyTorchToKscopeAndBack) {
  auto scope = Scope::Open();
  const Architecture& a = GetParam();
  const Handle q = module(a.definition);
  const StateDictKeys left = load_state_dict(q, File(a.name + ".pt"));
  EXPECT_THAT(left.missing, IsEmpty());
  EXPECT_THAT(left.unexpected, IsEmpty());
  const auto [x, y] = InputAndOutput(a.name);
  EXPECT_LE(Difference(Output(q, x), y), 1e-6);

  Perturb(q);
  ExpectHandedBack(q, a.name, "statedict", x, y);
}

INSTANTIATE_TEST_SUITE_P(Architectures, ArchitectureTest, ::testing::ValuesIn(Architectures()),
                         [](const auto& info) { return info.param.name; });

TEST_F(PyTorchInteropTest, PyTorchsFileLoadsLooselyIntoALargerModule) {
  auto scope = Scope::Open();
  const Handle q =
      module(Sequential({Def("linear", {J(6), J(16)}), Def("relu"), Def("linear", {J(16), J(4)}),
                         Def("relu"), Def("linear", {J(4), J(2)})}));
  const StateDictKeys left = load_state_dict(q, File("mlp.pt"), /*strict=*/false);
  EXPECT_THAT(left.missing, ElementsAre("4.weight", "4.bias"));
  EXPECT_THAT(left.unexpected, IsEmpty());
}

TEST_F(PyTorchInteropTest, PyTorchsFileOfAnotherArchitectureIsRefused) {
  auto scope = Scope::Open();
  const Handle q = module(Architectures()[0].definition);
  const std::string file = File("convnet.pt");
  EXPECT_EQ(ErrorOf([&] { load_state_dict(q, file); }),
            "loadstatedict: " + file + ": `0.weight is 4 1 3 3 in the file, 16 6 in the module");
  EXPECT_EQ(ErrorOf([&] { load_state_dict(q, File("lstm.pt")); }),
            "loadstatedict: " + File("lstm.pt") +
                " does not match the module: missing `0.weight `0.bias `2.weight `2.bias; "
                "unexpected `weight_ih_l0 `weight_hh_l0 `bias_ih_l0 `bias_hh_l0 `weight_ih_l1 "
                "`weight_hh_l1 `bias_ih_l1 `bias_hh_l1");
}

TEST_F(PyTorchInteropTest, AScriptedModuleRunsTrainsAndGoesBack) {
  auto scope = Scope::Open();
  const Handle q = torchscript(File("mlp.script.pt"));
  EXPECT_THAT(parmnames(q), ElementsAre("0.weight", "0.bias", "2.weight", "2.bias"));
  const auto [x, y] = InputAndOutput("mlp");
  EXPECT_LE(Difference(Output(q, x), y), 1e-6);
  training(q, true);
  EXPECT_TRUE(training(q));

  const Handle m = model({q, loss("mse"), opt("sgd", q, {0.05})});
  at::manual_seed(3);
  model_data(m, nn::DataMode::kTrain, at::randn({40, 6}), at::randn({40, 4}));
  train(m, {{"batchsize", std::int64_t{8}}});
  const double first = run(m).values.at(0).second.item<double>();
  double last = first;
  for (int epoch = 0; epoch < 20; ++epoch) last = run(m).values.at(0).second.item<double>();
  EXPECT_LT(last, first);
  ExpectHandedBack(m, "mlp", "script", x, y);
}

TEST_F(PyTorchInteropTest, ATracedModuleMovesClonesAndGoesBack) {
  auto scope = Scope::Open();
  const Handle q = torchscript(File("convnet.script.pt"));
  const auto [x, y] = InputAndOutput("convnet");
  EXPECT_LE(Difference(Output(q, x), y), 1e-6);
  Options doubles, floats;
  doubles.dtype = at::kDouble;
  floats.dtype = at::kFloat;
  to(q, doubles);  // the TorchScript module's tensors move too
  EXPECT_LE(Difference(Output(q, x.to(at::kDouble)), y.to(at::kDouble)), 1e-6);
  to(q, floats);
  const Handle copy = clone(q);
  EXPECT_LE(Difference(Output(copy, x), y), 1e-6);
  Perturb(q);
  EXPECT_LE(Difference(Output(copy, x), y), 1e-6);  // the clone has its own values
  ExpectHandedBack(q, "convnet", "script", x, y);
}

TEST_F(PyTorchInteropTest, BadTorchScriptFilesAndModulesAreRefused) {
  auto scope = Scope::Open();
  const std::string missing = File("none.pt"), state_dict = File("mlp.pt");
  EXPECT_EQ(ErrorOf([&] { torchscript(missing); }),
            "torchscript: cannot read " + missing + ": No such file or directory");
  EXPECT_THAT(
      ErrorOf([&] { torchscript(state_dict); }),
      ::testing::StartsWith("torchscript: " + state_dict + " is not a TorchScript module ("));
  const Handle q = module(Architectures()[0].definition);
  EXPECT_EQ(ErrorOf([&] { save_torchscript(q, File("q.pt")); }),
            "savescript: expected a torchscript module, given sequential");
}

// An AOTInductor package of the mlp (made by this line's PyTorch 2.x) evaluated as a `pt2`
// module inside scopes; training refused. On 1.13 the kind is refused, saying why.
TEST_F(PyTorchInteropTest, AnExportedPackageEvaluatesAndRefusesTraining) {
  auto scope = Scope::Open();
  const std::string package = File("mlp.cpu.pt2");
  const ModuleDefinition definition = Def("pt2", {package});
  if (TORCH_VERSION_MAJOR < 2) {
    EXPECT_THAT(ErrorOf([&] { module(definition); }),
                ::testing::StartsWith("pt2: torch.export packages need libtorch 2.x"));
    return;
  }
  const testing::CommandResult& made = testing::Pt2Package("cpu");
  ASSERT_EQ(made.status, 0) << made.output;
  const Handle e = module(definition);
  EXPECT_THAT(parmnames(e), IsEmpty());
  const auto [x, y] = InputAndOutput("mlp");
  // AOTInductor's compiled kernels sum in their own order: agreement to float rounding.
  EXPECT_LE(Difference(Output(e, x), y), 1e-5);
  {
    auto inner = Scope::Open();
    const Handle out = forward(e, tensor(x));  // handles in, a handle of the inner scope out
    EXPECT_LE(Difference(TensorOf("test", out), y), 1e-5);
  }
  EXPECT_EQ(ErrorOf([&] { training(e, true); }),
            "pt2: a torch.export package runs inference only: it has no parameters to train (use "
            "forward, nforward or evaluate)");
  EXPECT_FALSE(training(e));
  EXPECT_THAT(ErrorOf([&] { module(Def("pt2", {File("mlp.pt")})); }),
              ::testing::StartsWith("pt2: " + File("mlp.pt") +
                                    " is not a torch.export package compiled by AOTInductor ("));
}

// The GPU suite's (.ci/gpu-suite): PyTorch's files onto CUDA modules.
using CudaPyTorchInteropTest = PyTorchInteropTest;

TEST_F(CudaPyTorchInteropTest, StateDictsAndTorchScriptOnAGpu) {
  if (!at::hasCUDA())
    GTEST_SKIP() << "no CUDA device: this libtorch reports at::hasCUDA() == false";
  auto scope = Scope::Open();
  Options cuda;
  cuda.device = c10::Device(c10::kCUDA, 0);
  const Handle q = module(Architectures()[1].definition);  // the convnet
  to(q, cuda);
  load_state_dict(q, File("convnet.pt"));  // read on the CPU, copied onto the GPU
  const auto [x, y] = InputAndOutput("convnet");
  // cuDNN's convolutions sum in another order than the CPU's: agreement to float rounding.
  EXPECT_LE(Difference(Output(q, x.to(*cuda.device)).cpu(), y), 1e-5);
  save_state_dict(q, File("convnet.kscope.pt"));
  ExpectPyTorchComputes("convnet", "statedict", Output(q, x.to(*cuda.device)).cpu(), 1e-5);
  const Handle s = torchscript(File("mlp.script.pt"));
  to(s, cuda);
  const auto [mx, my] = InputAndOutput("mlp");
  EXPECT_LE(Difference(Output(s, mx.to(*cuda.device)).cpu(), my), 1e-5);
  if (TORCH_VERSION_MAJOR >= 2) {  // an AOTInductor package compiled for the GPU
    const testing::CommandResult& made = testing::Pt2Package("cuda");
    ASSERT_EQ(made.status, 0) << made.output;
    const Handle e = module(Def("pt2", {File("mlp.cuda.pt2")}));
    EXPECT_LE(Difference(Output(e, mx).cpu(), my), 1e-5);  // k data moved to the package's GPU
  }
}

}  // namespace
}  // namespace kscope
