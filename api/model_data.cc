#include "api/model_data.h"

#include <vector>

#include <ATen/core/Tensor.h>

#include "api/batch_window.h"
#include "api/nn/model_object.h"
#include "api/shuffle.h"
#include "runtime/errors.h"

namespace kscope {
namespace {

struct Bound {
  nn::ModelData& data;
  const nn::RunOptions& options;
};

Bound DataOf(const char* fn, Handle m, nn::DataMode mode) {
  nn::Model& model = nn::ModelOf(fn, m)->model();
  return mode == nn::DataMode::kTrain ? Bound{model.train_data, model.train.get()}
                                      : Bound{model.test_data, model.test.get()};
}

// The defined tensors among the data's input and target.
std::vector<at::Tensor> Tensors(const nn::ModelData& data) {
  std::vector<at::Tensor> tensors;
  for (const at::Tensor* t : {&data.input, &data.target}) {
    if (t->defined()) tensors.push_back(*t);
  }
  return tensors;
}

// Full size for the data's tensors, if any.
void Restore(const char* fn, const std::vector<at::Tensor>& tensors) {
  if (!tensors.empty()) RestoreFull(fn, tensors);
}

// The number of batches this task takes of `rows`.
std::int64_t TaskBatches(const nn::RunOptions& o, std::int64_t rows) {
  const std::int64_t all = BatchCount(rows, o.batchsize, o.droplast);
  return all > o.task ? (all - o.task + o.tasks - 1) / o.tasks : 0;
}

// The tensor of one data operand (shared with its handle), at least one-dimensional.
at::Tensor DataTensor(const char* fn, const Operand& x) {
  at::Tensor t = Resolve(fn, {&x}).tensors.front();
  if (t.dim() == 0) Fail("%s: expected data with at least one dimension, given a scalar", fn);
  return t;
}

// Replaces the data with `input` and `target` once they are checked to batch together.
std::int64_t Store(const char* fn, Bound b, at::Tensor input, at::Tensor target) {
  nn::ModelData given;
  given.input = std::move(input);
  given.target = std::move(target);
  const std::int64_t rows = FullSize(fn, Tensors(given));
  Restore(fn, Tensors(b.data));
  given.generator = b.data.generator;
  b.data = std::move(given);
  return TaskBatches(b.options, rows);
}

const char* Name(nn::DataMode mode, const char* train, const char* test) {
  return mode == nn::DataMode::kTrain ? train : test;
}

// Full size, then a reshuffle of training data if the options say so; next batch: the first.
void StartEpoch(const char* fn, Bound b, nn::DataMode mode) {
  const std::vector<at::Tensor> tensors = Tensors(b.data);
  Restore(fn, tensors);
  if (mode == nn::DataMode::kTrain && b.options.shuffle && !tensors.empty()) {
    if (b.options.tasks > 1 && !b.data.generator.defined()) {
      b.data.generator = ShuffleGenerator(b.options.shuffleseed, tensors.front().device());
    }
    b.data.permutation = ComposePermutations(b.data.permutation, Shuffle(fn, tensors, 0, b.data.generator));
  }
  b.data.next = 0;
}

}  // namespace

std::int64_t model_data(Handle m, nn::DataMode mode, const Operand& input, const Operand& target) {
  const char* fn = Name(mode, "train", "test");
  return Store(fn, DataOf(fn, m, mode), DataTensor(fn, input), DataTensor(fn, target));
}

std::int64_t model_data(Handle m, nn::DataMode mode, const Operand& input) {
  const char* fn = Name(mode, "train", "test");
  return Store(fn, DataOf(fn, m, mode), DataTensor(fn, input), at::Tensor());
}

std::int64_t model_input(Handle m, nn::DataMode mode, const Operand& input) {
  const char* fn = Name(mode, "input", "testinput");
  const Bound b = DataOf(fn, m, mode);
  return Store(fn, b, DataTensor(fn, input), b.data.target);
}

std::int64_t model_target(Handle m, nn::DataMode mode, const Operand& target) {
  const char* fn = Name(mode, "target", "testtarget");
  const Bound b = DataOf(fn, m, mode);
  return Store(fn, b, b.data.input, DataTensor(fn, target));
}

at::Tensor model_input(Handle m, nn::DataMode mode) {
  return DataOf(Name(mode, "input", "testinput"), m, mode).data.input;
}

at::Tensor model_target(Handle m, nn::DataMode mode) {
  return DataOf(Name(mode, "target", "testtarget"), m, mode).data.target;
}

std::int64_t model_datasize(Handle m, nn::DataMode mode) {
  const at::Tensor& x = DataOf(Name(mode, "datasize", "testsize"), m, mode).data.input;
  return x.defined() ? x.size(0) : 0;
}

bool model_batch(Handle m, nn::DataMode mode) {
  const char* fn = Name(mode, "batch", "testbatch");
  const Bound b = DataOf(fn, m, mode);
  const std::vector<at::Tensor> tensors = Tensors(b.data);
  if (tensors.empty()) return false;
  if (b.data.next < 0) StartEpoch(fn, b, mode);
  const std::int64_t index = b.options.task + b.data.next * b.options.tasks;
  if (index >= BatchCount(FullSize(fn, tensors), b.options.batchsize, b.options.droplast)) {
    RestoreFull(fn, tensors);
    b.data.next = -1;
    return false;
  }
  SelectBatch(fn, tensors, b.options.batchsize, index);
  ++b.data.next;
  return true;
}

std::int64_t model_batchinit(Handle m, nn::DataMode mode) {
  const char* fn = Name(mode, "batchinit", "testinit");
  const Bound b = DataOf(fn, m, mode);
  StartEpoch(fn, b, mode);
  const std::vector<at::Tensor> tensors = Tensors(b.data);
  return tensors.empty() ? -1 : TaskBatches(b.options, FullSize(fn, tensors));
}

std::int64_t model_restore(Handle m, nn::DataMode mode) {
  const char* fn = Name(mode, "restore", "testrestore");
  const Bound b = DataOf(fn, m, mode);
  const std::vector<at::Tensor> tensors = Tensors(b.data);
  b.data.next = -1;
  return tensors.empty() ? 0 : RestoreFull(fn, tensors);
}

void model_shuffle(Handle m) {
  const Bound b = DataOf("shuffle", m, nn::DataMode::kTrain);
  const std::vector<at::Tensor> tensors = Tensors(b.data);
  if (tensors.empty()) return;
  b.data.permutation = ComposePermutations(b.data.permutation, Shuffle("shuffle", tensors, 0, b.data.generator));
  b.data.next = -1;
}

void model_unshuffle(Handle m) {
  const Bound b = DataOf("unshuffle", m, nn::DataMode::kTrain);
  Unshuffle("unshuffle", Tensors(b.data), b.data.permutation);
  b.data.permutation = at::Tensor();
  b.data.next = -1;
}

}  // namespace kscope
