// api/model/model_data.h with several tensors: inputs and targets given as vectors, dictionaries,
// (vector;indices), (dictionary;keys) and lists of parts; the forms kept and given back; every
// tensor batched together; the errors that change nothing. api/model/model_run.h with such data: a
// two-input forward, a loss with two targets (bce with weights), and the recurrent `hidden
// option and metrics (state carried from batch to batch, hidden and hiddencell reported).
#include <ATen/ATen.h>

#include "api/kscope/kscope.h"
#include "tests/error_text.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace model_data_test {

using nn::DataMode;
using testing::ErrorOf;
using testing::LeakCheckTest;
using Form = nn::DataTensors::Form;

using ModelDataTest = LeakCheckTest;

ModuleDefinition Def(std::string kind, std::vector<nn::OptionValue> positional = {},
                     nn::NamedValues named = {}) {
  return ModuleDefinition{std::move(kind), "", std::move(positional), std::move(named), {}};
}

// A model whose module multiplies its two inputs (k-api `mul`), with mse loss.
Handle MulModel() { return model({module(Def("mul")), loss("mse"), opt("sgd")}); }

at::Tensor Rows(std::int64_t n, std::int64_t from = 0) {
  return at::arange(from, from + n, at::kFloat);
}

TEST_F(ModelDataTest, VectorInputsAreOneVectorAndBatchTogether) {
  const Handle m = MulModel();
  train(m, {{"batchsize", std::int64_t{3}}});
  const Handle v = vector({Rows(7), Rows(7, 10)});
  EXPECT_EQ(model_data(m, DataMode::kTrain, v, Rows(7, 100)), 3);
  const nn::DataTensors x = model_input(m, DataMode::kTrain);
  EXPECT_EQ(x.form, Form::kVector);
  ASSERT_EQ(x.tensors.size(), 2u);
  // The forward multiplies the batch's two inputs; the vector handle shows the window too.
  ASSERT_TRUE(model_batch(m, DataMode::kTrain));
  ASSERT_TRUE(model_batch(m, DataMode::kTrain));
  const Handle y = model_forward(m, ForwardMode::kNoGrad);
  EXPECT_TRUE(at::equal(TensorOf("test", y), Rows(3, 3) * Rows(3, 13)));
  free(y);
  EXPECT_TRUE(at::equal(kscope::vector(v, 1), Rows(3, 13)));
  EXPECT_TRUE(at::equal(model_target(m, DataMode::kTrain).tensors[0], Rows(3, 103)));
  EXPECT_EQ(model_restore(m, DataMode::kTrain), 7);
  EXPECT_EQ(kscope::vector(v, 1).size(0), 7);
  free(v);
  free(m);
}

TEST_F(ModelDataTest, ListsOfPartsAndSelectionsSeed004) {
  // q)train(m; (x1;x2); y) / train(m; (v;0 1); y) / train(m; ((v;0);(v;1)); y) -> 5
  const Handle m = MulModel();
  train(m, {{"batchsize", std::int64_t{100}}});
  const at::Tensor x1 = at::randn({500, 32}), x2 = at::randint(10, {500}), y = at::ones({500});
  EXPECT_EQ(model_data(m, DataMode::kTrain, {x1, x2}, y), 5);
  const Handle v = vector({x1, x2});
  EXPECT_EQ(model_data(m, DataMode::kTrain, DataPart(v, std::vector<std::int64_t>{1, 0}), y), 5);
  nn::DataTensors in = model_input(m, DataMode::kTrain);
  EXPECT_EQ(in.form, Form::kVector);
  EXPECT_EQ(in.tensors[0].sizes(), at::IntArrayRef({500}));  // in the order given
  EXPECT_EQ(model_data(m, DataMode::kTrain,
                       {DataPart(v, std::vector<std::int64_t>{0}),
                        DataPart(v, std::vector<std::int64_t>{1})},
                       y),
            5);
  EXPECT_EQ(model_input(m, DataMode::kTrain).tensors[0].sizes(), at::IntArrayRef({500, 32}));
  // A vector and a tensor together: one vector, in order.
  EXPECT_EQ(model_data(m, DataMode::kTrain, {v, y}, y), 5);
  EXPECT_EQ(model_input(m, DataMode::kTrain).tensors.size(), 3u);
  free(v);
  free(m);
}

TEST_F(ModelDataTest, DictionariesMergeInTheOrderGivenSeed004) {
  const Handle m = MulModel();
  const Handle d = dict({{"a", Rows(5)}, {"b", Rows(5, 10)}});
  const Handle e = dict({{"c", Rows(5, 20)}});
  EXPECT_EQ(model_data(m, DataMode::kTrain, d, Rows(5)), 1);
  EXPECT_EQ(model_input(m, DataMode::kTrain).form, Form::kDictionary);
  EXPECT_EQ(
      model_data(m, DataMode::kTrain, {DataPart(d, std::vector<std::string>{"b"}), e}, Rows(5)), 1);
  const nn::DataTensors x = model_input(m, DataMode::kTrain);
  EXPECT_EQ(x.keys, (std::vector<std::string>{"b", "c"}));
  EXPECT_TRUE(at::equal(x.tensors[1], Rows(5, 20)));
  // input m gives a dictionary handle sharing the tensors.
  const Handle in = model_input_handle(m, DataMode::kTrain);
  EXPECT_EQ(class_(in), ObjectClass::kDictionary);
  EXPECT_TRUE(batch(in, 2));  // the handle's tensors are the model's: its batch shows there
  EXPECT_EQ(model_datasize(m, DataMode::kTrain), 2);
  free(in);
  free(e);
  free(d);
  free(m);
}

TEST_F(ModelDataTest, BadPartsChangeNothing) {
  const Handle m = MulModel();
  EXPECT_EQ(model_data(m, DataMode::kTrain, Rows(4), Rows(4)), 1);
  const Handle v = vector({Rows(4), Rows(4)});
  const Handle d = dict({{"a", Rows(4)}});
  const Handle q = module(Def("relu"));
  EXPECT_EQ(ErrorOf([&] {
              model_data(m, DataMode::kTrain, DataPart(v, std::vector<std::int64_t>{2}), Rows(4));
            }),
            "train: vector index 2 out of range for 2 tensor(s)");
  EXPECT_EQ(ErrorOf([&] {
              model_data(m, DataMode::kTrain, DataPart(d, std::vector<std::string>{"z"}), Rows(4));
            }),
            "train: no key `z in dictionary");
  EXPECT_EQ(ErrorOf([&] {
              model_data(m, DataMode::kTrain, {d, d}, Rows(4));
            }),
            "train: a key given twice: `a");
  EXPECT_EQ(ErrorOf([&] {
              model_data(m, DataMode::kTrain, {d, v}, Rows(4));
            }),
            "train: expected tensors and vectors, or dictionaries, given both");
  EXPECT_EQ(ErrorOf([&] {
              model_data(m, DataMode::kTrain, {v, d}, Rows(4));
            }),
            "train: expected tensors and vectors, or dictionaries, given both");
  EXPECT_EQ(ErrorOf([&] { model_data(m, DataMode::kTrain, q, Rows(4)); }),
            "train: expected tensor, vector or dictionary, given module");
  EXPECT_EQ(ErrorOf([&] {
              model_data(m, DataMode::kTrain, DataPart(v, std::vector<std::string>{"a"}), Rows(4));
            }),
            "train: keys given with a vector");
  EXPECT_EQ(ErrorOf([&] {
              model_data(m, DataMode::kTrain, DataParts(std::vector<DataPart>{}), Rows(4));
            }),
            "train: expected data, given an empty list");
  EXPECT_EQ(ErrorOf([&] {
              model_data(m, DataMode::kTrain, {v, Rows(5)}, Rows(4));
            }),
            "tensor size mismatch, 4 vs 5");
  EXPECT_EQ(ErrorOf([&] { model_input(m, DataMode::kTrain, DataParts({Rows(3)})); }),
            "tensor size mismatch, 3 vs 4");
  const nn::DataTensors x = model_input(m, DataMode::kTrain);
  EXPECT_EQ(x.form, Form::kTensor);
  EXPECT_TRUE(at::equal(x.tensors[0], Rows(4)));
  for (Handle h : {q, d, v, m}) free(h);
}

TEST_F(ModelDataTest, ShufflesKeepEveryTensorAligned) {
  const Handle m = MulModel();
  EXPECT_EQ(model_data(m, DataMode::kTrain, {Rows(50), Rows(50, 100)}, Rows(50, 1000)), 2);
  model_shuffle(m);
  const nn::DataTensors x = model_input(m, DataMode::kTrain);
  EXPECT_FALSE(at::equal(x.tensors[0], Rows(50)));
  EXPECT_TRUE(at::equal(x.tensors[1], x.tensors[0] + 100));
  EXPECT_TRUE(at::equal(model_target(m, DataMode::kTrain).tensors[0], x.tensors[0] + 1000));
  model_unshuffle(m);
  EXPECT_TRUE(at::equal(model_input(m, DataMode::kTrain).tensors[0], Rows(50)));
  free(m);
}

TEST_F(ModelDataTest, TwoTargetsFeedAWeightedLoss) {
  // bce with weights: the target is (y; w), the loss bce(output, y, w).
  const Handle m = model({module(Def("sigmoid")), loss("bce"), opt("sgd")});
  const at::Tensor x = at::randn({6}).requires_grad_(), y = at::randint(2, {6}).to(at::kFloat),
                   w = at::rand({6});
  model_data(m, DataMode::kTrain, x, {y, w});
  EXPECT_EQ(model_target(m, DataMode::kTrain).form, Form::kVector);
  const double expected = at::binary_cross_entropy(x.detach().sigmoid(), y, w).item<double>();
  EXPECT_NEAR(model_backward(m).item<double>(), expected, 1e-6);
  free(m);
}

// A recurrent model over sequences of 4 steps (batch first), with `hidden on in testing.
struct Recurrent {
  Handle m;
  at::Tensor x = at::randn({6, 4, 2});
  explicit Recurrent(const char* kind)
      : m(model({module(Def(kind, {std::int64_t{2}, std::int64_t{3}}, {{"batchfirst", true}})),
                 loss("mse"), opt("sgd")})) {
    model_data(m, DataMode::kTest, x, at::zeros({6, 4, 3}));
  }
};

TEST_F(ModelDataTest, HiddenStateIsCarriedAndReported) {
  Recurrent r("rnn");
  test(r.m, {{"batchsize", std::int64_t{3}},
             {"hidden", true},
             {"metrics", std::vector<std::string>{"output", "hidden"}}});
  const RunMetrics got = testrun(r.m);
  // By hand: the second batch starts from the state the first one left.
  const Handle q = model_module(r.m);
  const Result first = forward(q, {at::Tensor(r.x.narrow(0, 0, 3))}, ForwardMode::kEvaluate);
  const TensorVector one = std::get<TensorVector>(first.value());
  const Result second =
      forward(q, {at::Tensor(r.x.narrow(0, 3, 3)), one[1]}, ForwardMode::kEvaluate);
  const TensorVector two = std::get<TensorVector>(second.value());
  EXPECT_TRUE(at::allclose(got.values[0].second, at::cat({one[0], two[0]})));
  EXPECT_EQ(got.values[1].second.sizes(),
            at::IntArrayRef({2, 3, 3}));  // (layers x batches; batch; hidden)
  EXPECT_TRUE(at::allclose(got.values[1].second, at::cat({one[1], two[1]})));
  // Without `hidden, every batch starts afresh.
  test(r.m, {{"hidden", false}, {"metrics", std::vector<std::string>{"output"}}});
  const Result fresh = forward(q, {at::Tensor(r.x.narrow(0, 3, 3))}, ForwardMode::kEvaluate);
  EXPECT_TRUE(at::allclose(testrun(r.m).values[0].second.narrow(0, 3, 3),
                           std::get<TensorVector>(fresh.value())[0]));
  free(q);
  free(r.m);
}

TEST_F(ModelDataTest, HiddenCellOfAnLstm) {
  Recurrent r("lstm");
  test(r.m, {{"batchsize", std::int64_t{2}},
             {"metrics", std::vector<std::string>{"hidden", "hiddencell"}}});
  const RunMetrics got = testrun(r.m);
  EXPECT_EQ(got.values[0].second.sizes(), at::IntArrayRef({3, 2, 3}));
  EXPECT_EQ(got.values[1].second.sizes(), at::IntArrayRef({3, 2, 3}));
  free(r.m);
}

TEST_F(ModelDataTest, HiddenMetricNeedsARecurrentModel) {
  const Handle m = model({module(Def("relu")), loss("mse"), opt("sgd")});
  model_data(m, DataMode::kTest, at::randn({4, 2}), at::randn({4, 2}));
  test(m, {{"metrics", std::vector<std::string>{"hiddencell"}}});
  EXPECT_EQ(ErrorOf([&] { testrun(m); }), "testrun: metric `hiddencell needs a recurrent model");
  EXPECT_EQ(model_batch(m, DataMode::kTest), true);  // the failed run left no epoch under way
  free(m);
}

}  // namespace model_data_test
}  // namespace kscope
