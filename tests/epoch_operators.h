// OperatorsPerEpoch — the operator calls an epoch of run, then one of testrun, makes (as an
// OpCounter counts them), on a model trained with everything that could read back from the
// device per batch: clipping by norm, the loss, batchloss, accuracy and matches metrics, shuffled
// batches. Shared by model_run_test.cc (CPU) and gpu_training_test.cc (GPU).
#ifndef KSCOPE_TESTS_EPOCH_OPERATORS_H_
#define KSCOPE_TESTS_EPOCH_OPERATORS_H_

#include <string>
#include <utility>
#include <vector>

#include "api/kscope/kscope.h"
#include "tests/op_counter.h"
#include "tests/optimizer_test_util.h"

namespace kscope::testing {

// A 2-8-3 classifier on `device` with adam over `batches` batches of 10 rows of k data (the
// model moves it to the device), or with `host_data` of tensors on the host (the batches copied
// to the device); counted after a first epoch that makes the optimizer's state.
inline std::int64_t OperatorsPerEpoch(const std::string& device, int batches,
                                      OpCounter::Predicate counted, bool needs_arguments = false,
                                      bool host_data = false) {
  auto scope = Scope::Open();
  at::manual_seed(2);
  const Handle q = Sequential(2, 8, 3);
  to(q, Options::Parse("to", {device}));
  const Handle m = model({q, loss("ce"), opt("adam", q)});
  const std::vector<std::string> metrics{"loss", "batchloss", "accuracy", "matches"};
  train(m, {{"batchsize", std::int64_t{10}},
            {"shuffle", true},
            {"clipnorm", std::vector<double>{0.5}},
            {"metrics", metrics}});
  test(m, {{"batchsize", std::int64_t{10}}, {"metrics", metrics}});
  const at::Tensor x = at::randn({batches * 10, 2});
  const at::Tensor y = (x.select(1, 0) > 0).to(at::kLong) + (x.select(1, 1) > 0).to(at::kLong);
  if (host_data) {
    const Handle hx = tensor(x), hy = tensor(y);
    model_data(m, nn::DataMode::kTrain, hx, hy);
    model_data(m, nn::DataMode::kTest, hx, hy);
  } else {
    model_data(m, nn::DataMode::kTrain, x, y);
    model_data(m, nn::DataMode::kTest, x, y);
  }
  run(m);
  OpCounter count(std::move(counted), needs_arguments);
  run(m);
  testrun(m);
  return count.count();
}

}  // namespace kscope::testing

#endif  // KSCOPE_TESTS_EPOCH_OPERATORS_H_
