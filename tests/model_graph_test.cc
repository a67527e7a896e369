// kscope's `graph train option (api/model/graphed_steps.h): on the CPU, the option's place and
// every refusal, both when the option is set and when run starts with a model that has it (built
// from a state), each leaving the model as it was; where libtorch sees a CUDA device, a graphed
// run against an uncaptured one from the same values (parameters, metrics, optimizer state) and
// the proof that full-size batches replay instead of launching their operators.
#include <functional>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "api/kscope/kscope.h"
#include "api/model/graphed_steps.h"
#include "api/model/model_object.h"
#include "api/nn/callback_registry.h"
#include "tests/error_text.h"
#include "tests/op_counter.h"
#include "tests/optimizer_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace model_graph_test {

using nn::DataMode;
using testing::ErrorOf;
using testing::LeakCheckTest;
using testing::OpCounter;

class ModelGraphTest : public LeakCheckTest {
 protected:
  void TearDown() override {
    set_fused_steps(true);
    LeakCheckTest::TearDown();
  }
};

TEST_F(ModelGraphTest, IsTheLastTrainOptionAndNotATestOne) {
  auto scope = Scope::Open();
  const Handle q = testing::Sequential(2, 4, 3);
  const Handle m = model({q, loss("ce"), opt("sgd", q)});
  const nn::NamedValues train_options = model_options(m, DataMode::kTrain);
  EXPECT_EQ(train_options.back().first, "graph");
  EXPECT_EQ(std::get<bool>(train_options.back().second), false);
  for (const auto& [name, value] : model_options(m, DataMode::kTest)) EXPECT_NE(name, "graph");
  EXPECT_EQ(ErrorOf([&] {
              set_model_options(m, DataMode::kTest, {{"graph", true}});
            }),
            "unrecognized test setting: graph");
}

// A model that graph refuses, with the options that make it so and the refusal's reason.
struct Refused {
  std::string name;
  std::function<Handle()> make;  // the model, data given
  nn::NamedValues options;       // with graph on
  std::string reason;            // the error after "<fn>: "
};

void PrintTo(const Refused& r, std::ostream* os) { *os << r.name; }

// A 2-4-3 classifier over `kind` with 50 rows of data.
Handle Classifier(const std::string& kind, const std::vector<nn::OptionValue>& positional = {}) {
  const Handle q = testing::Sequential(2, 4, 3);
  const Handle m = model({q, loss("ce"), opt(kind, q, positional)});
  model_data(m, DataMode::kTrain, at::randn({50, 2}), at::randint(3, {50}));
  return m;
}

// A model of `q` with mse over 50 rows of k-long indices into 10 rows, targets of 3 columns.
Handle OnIndices(const ModuleDefinition& q) {
  const Handle module_handle = module(q);
  const Handle m = model({module_handle, loss("mse"), opt("sgd", module_handle)});
  model_data(m, DataMode::kTrain, at::randint(10, {50}), at::randn({50, 3}));
  return m;
}

ModuleDefinition Embed(const nn::NamedValues& options) {
  return ModuleDefinition{"embed", "", {std::int64_t{10}, std::int64_t{3}}, options, {}};
}

std::vector<Refused> RefusedCases() {
  const nn::NamedValues graph{{"graph", true}};
  auto with = [&](nn::NamedValues more) {
    more.insert(more.begin(), graph.begin(), graph.end());
    return more;
  };
  return {
      {"sync", [] { return Classifier("sgd"); }, with({{"sync", true}}),
       "graph cannot capture the `sync option's wait for the device"},
      {"hidden", [] { return Classifier("sgd"); }, with({{"hidden", true}}),
       "graph cannot capture the `hidden option's state between batches"},
      {"fp16", [] { return Classifier("sgd"); }, with({{"amp", std::string("fp16")}}),
       "graph cannot capture amp `fp16, whose loss scale checks gradients on the host"},
      {"lbfgs", [] { return Classifier("lbfgs"); }, graph,
       "graph cannot capture lbfgs, which evaluates the model several times per step"},
      {"lamb", [] { return Classifier("lamb"); }, graph,
       "graph captures the steps of sgd, adam, adamw, rmsprop and adagrad, not lamb"},
      {"unfused_adam",
       [] {
         set_fused_steps(false);
         return Classifier("adam");
       },
       graph,
       "graph needs adam's fused kernel (settings foreach and fused on, libtorch 2 on a CUDA "
       "device): unfused steps compute bias corrections on the host"},
      {"adagrad_lrdecay",
       [] {
         return Classifier("adagrad", {0.01, 0.1});
       },
       graph, "graph cannot capture adagrad with lrdecay: its rate follows the host's count"},
      {"callback",
       [] {
         register_callback("graph_test_identity", [](Handle, absl::Span<const Handle> x) {
           return Handle(mul(x[0], 1.0));
         });
         const Handle q = module(ModuleDefinition{
             "sequential",
             "",
             {},
             {},
             {ModuleDefinition{"linear", "", {std::int64_t{2}, std::int64_t{3}}, {}, {}},
              ModuleDefinition{"callback", "", {std::string("graph_test_identity")}, {}, {}}}});
         const Handle m = model({q, loss("ce"), opt("sgd", q)});
         model_data(m, DataMode::kTrain, at::randn({50, 2}), at::randint(3, {50}));
         return m;
       },
       graph, "graph cannot capture callback modules, which run functions on the host"},
      {"sparse_embedding",
       [] {
         return OnIndices(Embed({{"sparse", true}}));
       },
       graph, "graph cannot capture embeddings with `sparse or `maxnorm (data-dependent shapes)"},
      {"maxnorm_embedding",
       [] {
         return OnIndices(Embed({{"maxnorm", 1.0}}));
       },
       graph, "graph cannot capture embeddings with `sparse or `maxnorm (data-dependent shapes)"},
  };
}

class GraphRefusalTest : public ModelGraphTest, public ::testing::WithParamInterface<Refused> {
 protected:
  void TearDown() override {
    unregister_callback("graph_test_identity");
    ModelGraphTest::TearDown();
  }
};

// The module's parameters, copied.
std::vector<at::Tensor> Parameters(Handle m) {
  std::vector<at::Tensor> copies;
  for (const at::Tensor& p : nn::ModelOf("test", m)->model().module->module().parameters())
    copies.push_back(p.detach().clone());
  return copies;
}

TEST_P(GraphRefusalTest, WhenTheOptionIsSetNothingChanges) {
  auto scope = Scope::Open();
  const Handle m = GetParam().make();
  const nn::NamedValues before = model_options(m, DataMode::kTrain);
  EXPECT_EQ(ErrorOf([&] { set_model_options(m, DataMode::kTrain, GetParam().options); }),
            "train: " + GetParam().reason);
  EXPECT_EQ(model_options(m, DataMode::kTrain), before);
}

TEST_P(GraphRefusalTest, WhenRunStartsWithTheOptionNothingChanges) {
  auto scope = Scope::Open();
  const Handle given = GetParam().make();
  ModelState state = model_state(given);
  for (const auto& [name, value] : GetParam().options) {
    for (auto& [n, v] : state.train) {
      if (n == name) v = value;
    }
  }
  const Handle m = model(state);  // options taken as given: run is where they are checked
  model_data(m, DataMode::kTrain, model_input_handle(given, DataMode::kTrain),
             model_target_handle(given, DataMode::kTrain));
  const std::vector<at::Tensor> before = Parameters(m);
  EXPECT_EQ(ErrorOf([&] { run(m); }), "run: " + GetParam().reason);
  const std::vector<at::Tensor> after = Parameters(m);
  ASSERT_EQ(before.size(), after.size());
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_TRUE(at::equal(before[i], after[i]));
  EXPECT_EQ(model_datasize(m, DataMode::kTrain), 50) << "the data is left at full size";
}

INSTANTIATE_TEST_SUITE_P(EveryReason, GraphRefusalTest, ::testing::ValuesIn(RefusedCases()),
                         [](const ::testing::TestParamInfo<Refused>& info) {
                           return info.param.name;
                         });

// Where nothing else stands in the way, the device does: CPU models are refused (and every model
// in a build without CUDA).
TEST_F(ModelGraphTest, RefusesAModelOffACudaDevice) {
  auto scope = Scope::Open();
  const Handle m = Classifier("sgd");
  const std::string error = ErrorOf([&] {
    set_model_options(m, DataMode::kTrain, {{"graph", true}});
  });
  EXPECT_EQ(error.rfind("train: graph captures training steps on a CUDA device", 0), 0) << error;
  EXPECT_NE(error.find(", the model is on the cpu"), std::string::npos) << error;
  EXPECT_EQ(std::get<bool>(model_option(m, DataMode::kTrain, "graph")), false);
}

class CudaGraphTest : public ModelGraphTest {
 protected:
  void SetUp() override {
    ModelGraphTest::SetUp();
    if (!at::hasCUDA())
      GTEST_SKIP() << "no CUDA device: this libtorch reports at::hasCUDA() == false";
  }
};

// A 20-64-64-4 classifier on the GPU over `kind`, with clipping by norm, its parameters copied
// from `like` (when given), over 330 rows in batches of 32 (10 full, then 10 rows).
Handle GpuClassifier(const std::string& kind, bool graph, Handle like = Handle()) {
  const Handle q = testing::Mlp(20, 64, 4);
  if (!like.is_null()) testing::CopyParameters(like, q);
  to(q, Options::Parse("to", {std::string("cuda")}));
  const Handle o = kind == "sgd" ? opt("sgd", q, {0.05, 0.9}) : opt(kind, q, {0.01});
  const Handle m = model({q, loss("ce"), o});
  train(m, {{"batchsize", std::int64_t{32}},
            {"clipnorm", 1.0},
            {"metrics", std::vector<std::string>{"loss", "batchloss", "accuracy"}}});
  if (graph) train(m, {{"graph", true}});
  at::manual_seed(7);
  const at::Tensor x = at::randn({330, 20});
  model_data(m, DataMode::kTrain, x, x.narrow(1, 0, 4).argmax(1));
  return m;
}

// Two epochs graphed and two uncaptured from the same values: the same kernels in the same
// order, so the results agree to the last bits cuBLAS may choose differently on another stream.
TEST_F(CudaGraphTest, AGraphedRunEqualsTheUncapturedRun) {
  for (const char* kind : {"sgd", "adam", "adamw", "rmsprop"}) {
    auto scope = Scope::Open();
    at::manual_seed(1);
    const Handle eager = GpuClassifier(kind, false);
    const Handle graphed = GpuClassifier(kind, true, model_module(eager));
    for (int epoch = 0; epoch < 2; ++epoch) {
      const RunMetrics a = run(eager), b = run(graphed);
      for (std::size_t i = 0; i < a.values.size(); ++i) {
        EXPECT_TRUE(at::allclose(a.values[i].second.cpu(), b.values[i].second.cpu(), 1e-5, 1e-6))
            << kind << " epoch " << epoch << " " << a.values[i].first;
      }
    }
    const std::vector<at::Tensor> pa = Parameters(eager), pb = Parameters(graphed);
    for (std::size_t i = 0; i < pa.size(); ++i) {
      EXPECT_TRUE(at::allclose(pa[i], pb[i], 1e-5, 1e-6))
          << kind << " parameter " << i << ": " << (pa[i] - pb[i]).abs().max().item<double>();
    }
    const OptimizerState sa = opt_state(model_opt(eager)), sb = opt_state(model_opt(graphed));
    ASSERT_EQ(sa.buffers.size(), sb.buffers.size());
    for (std::size_t i = 0; i < sa.buffers.size(); ++i) {
      for (std::size_t j = 0; j < sa.buffers[i].size(); ++j) {
        EXPECT_TRUE(at::allclose(sa.buffers[i][j].second.cpu().to(at::kDouble),
                                 sb.buffers[i][j].second.cpu().to(at::kDouble), 1e-5, 1e-6))
            << kind << " parameter " << i << " " << sa.buffers[i][j].first;  // step counts too
      }
    }
  }
}

// An epoch of 10 full batches and a short one launches the operators of the warm-up steps, the
// captured step and the short one: the replays launch none of their own.
TEST_F(CudaGraphTest, FullBatchesReplayWithoutLaunchingTheirOperators) {
  auto scope = Scope::Open();
  at::manual_seed(2);
  const Handle eager = GpuClassifier("sgd", false);
  const Handle graphed = GpuClassifier("sgd", true, model_module(eager));
  run(eager);
  run(graphed);
  OpCounter matmuls(OpCounter::Named("aten::addmm"));
  run(eager);
  const std::int64_t per_batch = matmuls.count() / 11;
  ASSERT_GT(per_batch, 0);
  ASSERT_EQ(matmuls.count(), 11 * per_batch);
  matmuls.reset();
  run(graphed);
  EXPECT_EQ(matmuls.count(), (GraphedSteps::kWarmupSteps + 2) * per_batch);
}

}  // namespace model_graph_test
}  // namespace kscope
