// Models between PyTorch and kscope through the plugin (q/nn/pytorch_fns.cc):
// q)savestatedict(q;`:/dir/q.pt)      loadstatedict(q2;`:/dir/q.pt) -> `missing`unexpected!(();())
// q)loadstatedict(q3;`:/dir/q.pt;0b)  -> the names left out; a model stands for its module; bad
// arguments and files are errors naming the function and change nothing. With the project's
// PyTorch (tests/python_torch.h): README's session — weights trained in PyTorch loaded, evaluated
// on k data, fine-tuned with run and handed back, which PyTorch computes as kscope does — and a
// TorchScript module made by module(`torchscript;file) and saved back by savescript.
#include <cmath>
#include <string>
#include <vector>

#include <torch/version.h>

#include "tests/plugin_fixture.h"
#include "tests/python_torch.h"
#include "tests/temp_directory.h"

namespace kscope::testing {
namespace plugin_pytorch_test {

// Whether this libtorch line has AOTInductor's package loader (the pt2 kind).
constexpr bool kTorch2 = TORCH_VERSION_MAJOR >= 2;

class PyTorchFnsTest : public PluginTest {
 protected:
  KRef Mlp(const char* layers) { return Call("module", Call("seq", layers)); }
};

TEST_F(PyTorchFnsTest, SavedByOneModuleLoadedByAnother) {
  const TempDirectory dir("plugin_pytorch_test");
  const std::string file = dir.Join("q.pt");
  KRef q = Mlp("(`sequential;(`linear;4;8);`relu;(`linear;8;3))");
  KRef q2 = Mlp("(`sequential;(`linear;4;8);`relu;(`linear;8;3))");
  KRef x = Q("(1 2 3 4e;5 6 7 8e)");
  auto output = [&](const KRef& module) {
    return S1(Call("evaluate", List({module.share(), x.share()})));
  };
  EXPECT_NE(output(q), output(q2));
  EXPECT_EQ(S1(Call("savestatedict", List({q.share(), kq::Sym(":" + file)}))), "::");
  EXPECT_EQ(S1(Call("loadstatedict", List({q2.share(), kq::Sym(":" + file)}))),
            "`missing`unexpected!(`symbol$();`symbol$())");
  EXPECT_EQ(output(q), output(q2));

  KRef longer = Mlp("(`sequential;(`linear;4;8);`relu;(`linear;8;3);`relu;(`linear;3;2))");
  KRef m = Call("model", List({longer.share(), Call("loss", "`ce").share(),
                               Call("opt", List({kq::Sym("sgd"), longer.share()})).share()}));
  EXPECT_EQ(Error("loadstatedict", List({m.share(), kq::Sym(file)})),
            "loadstatedict: " + file + " does not match the module: missing `4.weight `4.bias");
  EXPECT_EQ(S1(Call("loadstatedict", List({m.share(), kq::Sym(file), kq::Bool(false)}))),
            "`missing`unexpected!(`4.weight`4.bias;`symbol$())");
  Call("free", List({q.share(), q2.share(), m.share()}));  // the model took `longer`
}

TEST_F(PyTorchFnsTest, BadArgumentsAndFilesAreNamed) {
  const TempDirectory dir("plugin_pytorch_test");
  KRef q = Mlp("(`sequential;(`linear;4;8))");
  EXPECT_EQ(Error("loadstatedict", List({q.share(), kq::Sym(dir.Join("none.pt"))})),
            "loadstatedict: cannot read " + dir.Join("none.pt") + ": No such file or directory");
  EXPECT_EQ(Error("savestatedict", q), "savestatedict: unrecognized arg(s) - module");
  EXPECT_THAT(Error("loadstatedict", List({q.share(), kq::Sym(dir.Join("q.pt")), kq::Long(1)})),
              ::testing::StartsWith("loadstatedict: "));
  KRef t = Call("tensor", "1 2 3e");
  EXPECT_EQ(Error("savestatedict", List({t.share(), kq::Sym(dir.Join("t.pt"))})),
            "savestatedict: expected module or model, given tensor");
  EXPECT_EQ(Error("savescript", List({q.share(), kq::Sym(dir.Join("q.pt"))})),
            "savescript: expected a torchscript module, given sequential");
  EXPECT_EQ(Error("module", List({kq::Sym("torchscript"), kq::Sym(":" + dir.Join("none.pt"))})),
            "torchscript: cannot read " + dir.Join("none.pt") + ": No such file or directory");
  Call("free", List({q.share(), t.share()}));
}

// q)help`torchscript / help`pt2: ktorch's dictionary of a kind, with the PyTorch class it loads.
TEST_F(PyTorchFnsTest, HelpDescribesTheKindsThatLoadPyTorchModels) {
  for (const auto& [kind, pytorch] :
       {std::pair<const char*, const char*>{"torchscript", "torch.jit.ScriptModule"},
        {"pt2", "torch.export.ExportedProgram"}}) {
    KRef help = Call("help", KRef(kq::Sym(kind)));
    EXPECT_EQ(S1(At(help, "module")), std::string("`") + kind);
    EXPECT_THAT(S1(At(help, "pytorch")), ::testing::HasSubstr(pytorch));
    EXPECT_THAT(S1(At(help, "options")), ::testing::HasSubstr("`file"));
  }
}

// A real matrix of k data from values in row-major order.
KRef RealMatrix(const std::vector<float>& values, std::int64_t rows) {
  const std::int64_t columns = static_cast<std::int64_t>(values.size()) / rows;
  std::vector<kabi::K> items;
  for (std::int64_t r = 0; r < rows; ++r) {
    kabi::K row = kabi::ktn(kabi::kReal, columns);
    for (std::int64_t c = 0; c < columns; ++c) kabi::Reals(row)[c] = values[r * columns + c];
    items.push_back(row);
  }
  return KRef(kq::List(items));
}

// The values of a real matrix, row by row.
std::vector<double> Flat(const KRef& matrix) {
  std::vector<double> out;
  for (long long r = 0; r < matrix->n; ++r) {
    const kabi::K row = kabi::Items(matrix.get())[r];
    for (long long c = 0; c < row->n; ++c) out.push_back(kabi::Reals(row)[c]);
  }
  return out;
}

class PyTorchSessionTest : public PyTorchFnsTest {
 protected:
  void SetUp() override {
    PyTorchFnsTest::SetUp();
    if (const std::string why = PyTorchMissing(); !why.empty()) {
      KSCOPE_SKIP_UNLESS_REQUIRED("KSCOPE_REQUIRE_PYTORCH", why);
    }
    ASSERT_EQ(PyTorchFiles().made.status, 0) << PyTorchFiles().made.output;
  }

  static KRef FileSym(const std::string& name) {
    return KRef(kq::Sym(":" + PyTorchFiles().File(name)));
  }

  // Whether PyTorch computes, from kscope's file for the mlp (`form` statedict or script), what
  // kscope computed on the same input.
  static void ExpectPyTorchComputes(const char* form, const KRef& kscope) {
    EXPECT_TRUE(PyTorchComputes("mlp", form, Flat(kscope), 1e-6));
  }
};

// README's session:
// q)q:module seq(`sequential;(`linear;6;16);`relu;(`linear;16;4))
// q)loadstatedict(q;`:mlp.pt)                       / trained in PyTorch
// q)y:evaluate(q;x)                                 / k data in, k data out
// q)m:model(q;loss`mse;opt(`sgd;q;.05))
// q)train(m;`batchsize;8); data(m;X;Y); do[20;run m]
// q)savestatedict(m;`:mlp.kscope.pt)                / model.load_state_dict(torch.load(...))
TEST_F(PyTorchSessionTest, APyTorchModelLoadedEvaluatedFineTunedAndHandedBack) {
  const TextTensor in = PyTorchText("mlp.x.txt");
  ASSERT_EQ(in.sizes, (std::vector<std::int64_t>{5, 6}));
  KRef x = RealMatrix(in.values, 5);
  KRef q = Mlp("(`sequential;(`linear;6;16);`relu;(`linear;16;4))");
  EXPECT_EQ(S1(Call("loadstatedict", List({q.share(), FileSym("mlp.pt").share()}))),
            "`missing`unexpected!(`symbol$();`symbol$())");
  KRef before = Call("evaluate", List({q.share(), x.share()}));
  KRef m = Call("model",
                List({q.share(), Call("loss", "`mse").share(),
                      Call("opt", List({kq::Sym("sgd"), q.share(), kq::Float(0.05)})).share()}));
  Call("train", List({m.share(), kq::Sym("batchsize"), kq::Long(8)}));
  std::vector<float> rows, targets;
  for (int i = 0; i < 40 * 6; ++i) rows.push_back(static_cast<float>(std::sin(i)));
  for (int i = 0; i < 40 * 4; ++i) targets.push_back(static_cast<float>(std::cos(i)));
  Call("data", List({m.share(), RealMatrix(rows, 40).share(), RealMatrix(targets, 40).share()}));
  auto loss = [&] {
    KRef r = Call("run", m);
    return r->t == -kabi::kReal ? double{r->e} : r->f;
  };
  const double first = loss();
  double last = first;
  for (int epoch = 0; epoch < 20; ++epoch) last = loss();
  EXPECT_LT(last, first);
  KRef after = Call("evaluate", List({m.share(), x.share()}));
  EXPECT_NE(S1(after), S1(before));
  EXPECT_EQ(S1(Call("savestatedict", List({m.share(), FileSym("mlp.kscope.pt").share()}))), "::");
  ExpectPyTorchComputes("statedict", after);
  Call("free", m);
}

// q)s:module(`torchscript;`:mlp.script.pt)   / torch.jit.script output
// q)savescript(s;`:mlp.kscope.script.pt)     / torch.jit.load reads it
TEST_F(PyTorchSessionTest, ATorchScriptModuleMadeAndSavedBack) {
  KRef x = RealMatrix(PyTorchText("mlp.x.txt").values, 5);
  KRef s = Call("module", List({kq::Sym("torchscript"), FileSym("mlp.script.pt").share()}));
  EXPECT_EQ(S1(Call("parmnames", s)), "`0.weight`0.bias`2.weight`2.bias");
  Call("parm", List({s.share(), kq::Sym("2.bias"), kq::Reals({1, 2, 3, 4})}));
  KRef y = Call("evaluate", List({s.share(), x.share()}));
  EXPECT_EQ(S1(Call("savescript", List({s.share(), FileSym("mlp.kscope.script.pt").share()}))),
            "::");
  ExpectPyTorchComputes("script", y);
  Call("free", s);
}

// q)e:module(`pt2;`:mlp.cpu.pt2)   / torch.export + AOTInductor (libtorch 2.x; refused on 1.13)
// q)evaluate(e;x)                   / what PyTorch computed
TEST_F(PyTorchSessionTest, AnExportedPackageEvaluatesKData) {
  KRef x = RealMatrix(PyTorchText("mlp.x.txt").values, 5);
  if (!kTorch2) {
    EXPECT_THAT(Error("module", List({kq::Sym("pt2"), FileSym("mlp.cpu.pt2").share()})),
                ::testing::StartsWith("pt2: torch.export packages need libtorch 2.x"));
    return;
  }
  const CommandResult& made = Pt2Package("cpu");
  ASSERT_EQ(made.status, 0) << made.output;
  KRef e = Call("module", List({kq::Sym("pt2"), FileSym("mlp.cpu.pt2").share()}));
  KRef y = Call("evaluate", List({e.share(), x.share()}));
  const std::vector<float> pytorch = PyTorchText("mlp.y.txt").values;
  // AOTInductor's compiled kernels sum in their own order: agreement to float rounding.
  EXPECT_TRUE(ValuesWithin(Flat(y), {pytorch.begin(), pytorch.end()}, 1e-5));
  EXPECT_EQ(Error("training", List({e.share(), kq::Bool(true)})),
            "pt2: a torch.export package runs inference only: it has no parameters to train (use "
            "forward, nforward or evaluate)");
  Call("free", e);
}

}  // namespace plugin_pytorch_test
}  // namespace kscope::testing
