#include "api/model/model_data.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

#include "api/core/selection.h"
#include "api/data/batch_window.h"
#include "api/data/shuffle.h"
#include "api/model/model_object.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "runtime/object.h"
#include "scope/scope_stack.h"

namespace kscope {
namespace {

using nn::DataTensors;
using Form = DataTensors::Form;

struct Bound {
  nn::ModelData& data;
  const nn::RunOptions& options;
  const nn::Model& model;
};

Bound DataOf(const char* fn, Handle m, nn::DataMode mode) {
  nn::Model& model = nn::ModelOf(fn, m)->model();
  return mode == nn::DataMode::kTrain ? Bound{model.train_data, model.train.get(), model}
                                      : Bound{model.test_data, model.test.get(), model};
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

// Collects the parts of one input or target, checking each; data to be batched must have at
// least one dimension.
class Gatherer {
 public:
  Gatherer(const char* fn, std::optional<c10::Device> device, bool batched)
      : fn_(fn), device_(device), batched_(batched) {}

  void Add(const DataPart& part) {
    ++parts_;
    const Operand& x = part.source();
    if (!x.is_handle()) return AddTensor(device_ ? x.data().to(*device_) : x.data(), part);
    Object o = HandleTable::Global().Get(x.handle());
    if (const at::Tensor* t = o.tensor()) return AddTensor(*t, part);
    if (const TensorVector* v = o.vector()) return AddVector(*v, part);
    if (const TensorDict* d = o.dict()) return AddDictionary(*d, part);
    Fail("%s: expected tensor, vector or dictionary, given %s", fn_, ClassName(o.object_class()));
  }

  // The input or target the parts make.
  DataTensors Take() {
    if (parts_ == 0) Fail("%s: expected data, given an empty list", fn_);
    out_.form = dictionary_                     ? Form::kDictionary
                : parts_ == 1 && single_tensor_ ? Form::kTensor
                                                : Form::kVector;
    return std::move(out_);
  }

 private:
  void AddTensor(const at::Tensor& t, const DataPart& part) {
    if (part.indices() || part.keys()) Fail("%s: indices or keys given with a tensor", fn_);
    single_tensor_ = true;
    Push(t);
  }

  void AddVector(const TensorVector& v, const DataPart& part) {
    if (part.keys()) Fail("%s: keys given with a vector", fn_);
    if (part.indices() && part.indices()->empty()) return;  // no tensor selected
    for (const Selected& s :
         SelectElements(fn_, v, part.indices().value_or(std::vector<std::int64_t>{})))
      Push(s.tensor);
  }

  void AddDictionary(const TensorDict& d, const DataPart& part) {
    if (part.indices()) Fail("%s: indices given with a dictionary", fn_);
    dictionary_ = true;
    if (part.keys() && part.keys()->empty()) return;  // no tensor selected
    const std::vector<std::string> keys = part.keys() ? *part.keys() : d.keys();
    const std::vector<Selected> selected = SelectElements(fn_, d, keys);
    for (std::size_t i = 0; i < keys.size(); ++i) PushKeyed(keys[i], selected[i].tensor);
  }

  void Push(const at::Tensor& t) {
    if (dictionary_) Fail("%s: expected tensors and vectors, or dictionaries, given both", fn_);
    out_.tensors.push_back(Checked(t));
  }

  void PushKeyed(const std::string& key, const at::Tensor& t) {
    if (out_.keys.size() != out_.tensors.size())
      Fail("%s: expected tensors and vectors, or dictionaries, given both", fn_);
    if (std::find(out_.keys.begin(), out_.keys.end(), key) != out_.keys.end())
      Fail("%s: a key given twice: `%s", fn_, key);
    out_.keys.push_back(key);
    out_.tensors.push_back(Checked(t));
  }

  const at::Tensor& Checked(const at::Tensor& t) const {
    if (batched_ && t.dim() == 0)
      Fail("%s: expected data with at least one dimension, given a scalar", fn_);
    return t;
  }

  const char* fn_;
  std::optional<c10::Device> device_;
  bool batched_;
  DataTensors out_;
  std::size_t parts_ = 0;
  bool single_tensor_ = false;
  bool dictionary_ = false;
};

DataTensors Gather(const char* fn, const Bound& b, const DataParts& parts, bool batched = true) {
  Gatherer g(fn, b.model.device(), batched);
  for (const DataPart& part : parts.parts()) g.Add(part);
  return g.Take();
}

// Replaces the data with `input` and `target` once they are checked to batch together.
std::int64_t Store(const char* fn, Bound b, DataTensors input, DataTensors target) {
  nn::ModelData given;
  given.input = std::move(input);
  given.target = std::move(target);
  const std::int64_t rows = FullSize(fn, given.tensors());
  Restore(fn, b.data.tensors());
  given.generator = b.data.generator;
  b.data = std::move(given);
  return TaskBatches(b.options, rows);
}

const char* Name(nn::DataMode mode, const char* train, const char* test) {
  return mode == nn::DataMode::kTrain ? train : test;
}

// Full size, then a reshuffle of training data if the options say so; next batch: the first.
void StartEpoch(const char* fn, Bound b, nn::DataMode mode) {
  const std::vector<at::Tensor> tensors = b.data.tensors();
  Restore(fn, tensors);
  if (mode == nn::DataMode::kTrain && b.options.shuffle && !tensors.empty()) {
    if (b.options.tasks > 1 && !b.data.generator.defined()) {
      // As ktorch: the shared generator is the CPU's unless `shufflecuda` puts it on the data's
      // device.
      const c10::Device device =
          b.options.shufflecuda ? tensors.front().device() : c10::Device(c10::kCPU);
      b.data.generator = ShuffleGenerator(b.options.shuffleseed, device);
    }
    b.data.permutation =
        ComposePermutations(b.data.permutation, Shuffle(fn, tensors, 0, b.data.generator));
  }
  b.data.next = 0;
  b.data.hidden.clear();
}

}  // namespace

std::int64_t model_data(Handle m, nn::DataMode mode, const DataParts& input,
                        const DataParts& target) {
  const char* fn = Name(mode, "train", "test");
  const Bound b = DataOf(fn, m, mode);
  return Store(fn, b, Gather(fn, b, input), Gather(fn, b, target));
}

std::int64_t model_data(Handle m, nn::DataMode mode, const DataParts& input) {
  const char* fn = Name(mode, "train", "test");
  const Bound b = DataOf(fn, m, mode);
  return Store(fn, b, Gather(fn, b, input), DataTensors());
}

std::int64_t model_input(Handle m, nn::DataMode mode, const DataParts& input) {
  const char* fn = Name(mode, "input", "testinput");
  const Bound b = DataOf(fn, m, mode);
  return Store(fn, b, Gather(fn, b, input), b.data.target);
}

std::int64_t model_target(Handle m, nn::DataMode mode, const DataParts& target) {
  const char* fn = Name(mode, "target", "testtarget");
  const Bound b = DataOf(fn, m, mode);
  return Store(fn, b, b.data.input, Gather(fn, b, target));
}

DataTensors model_data_tensors(const char* fn, Handle m, const DataParts& parts) {
  return Gather(fn, DataOf(fn, m, nn::DataMode::kTrain), parts, /*batched=*/false);
}

DataTensors model_input(Handle m, nn::DataMode mode) {
  return DataOf(Name(mode, "input", "testinput"), m, mode).data.input;
}

DataTensors model_target(Handle m, nn::DataMode mode) {
  return DataOf(Name(mode, "target", "testtarget"), m, mode).data.target;
}

namespace {

// A new handle sharing data's tensors, as they were given (a tensor, vector or dictionary); an
// empty Handle when there are none.
Handle HandleSharing(const DataTensors& x, const char* fn) {
  switch (x.form) {
    case Form::kNone: return Handle();
    case Form::kTensor: return Own(Object(x.tensors.front()), fn);
    case Form::kVector: return Own(Object(TensorVector(x.tensors)), fn);
    case Form::kDictionary: {
      TensorDict d;
      for (std::size_t i = 0; i < x.keys.size(); ++i) d.insert(x.keys[i], x.tensors[i]);
      return Own(Object(std::move(d)), fn);
    }
  }
  return Handle();
}

}  // namespace

Handle model_input_handle(Handle m, nn::DataMode mode) {
  const char* fn = Name(mode, "input", "testinput");
  return HandleSharing(DataOf(fn, m, mode).data.input, fn);
}

Handle model_target_handle(Handle m, nn::DataMode mode) {
  const char* fn = Name(mode, "target", "testtarget");
  return HandleSharing(DataOf(fn, m, mode).data.target, fn);
}

std::int64_t model_datasize(Handle m, nn::DataMode mode) {
  const DataTensors& x = DataOf(Name(mode, "datasize", "testsize"), m, mode).data.input;
  return x.defined() ? x.tensors.front().size(0) : 0;
}

bool model_batch(Handle m, nn::DataMode mode) {
  const char* fn = Name(mode, "batch", "testbatch");
  const Bound b = DataOf(fn, m, mode);
  const std::vector<at::Tensor> tensors = b.data.tensors();
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
  const std::vector<at::Tensor> tensors = b.data.tensors();
  return tensors.empty() ? -1 : TaskBatches(b.options, FullSize(fn, tensors));
}

std::int64_t model_restore(Handle m, nn::DataMode mode) {
  const char* fn = Name(mode, "restore", "testrestore");
  const Bound b = DataOf(fn, m, mode);
  const std::vector<at::Tensor> tensors = b.data.tensors();
  b.data.next = -1;
  return tensors.empty() ? 0 : RestoreFull(fn, tensors);
}

void model_shuffle(Handle m) {
  const Bound b = DataOf("shuffle", m, nn::DataMode::kTrain);
  const std::vector<at::Tensor> tensors = b.data.tensors();
  if (tensors.empty()) return;
  b.data.permutation =
      ComposePermutations(b.data.permutation, Shuffle("shuffle", tensors, 0, b.data.generator));
  b.data.next = -1;
}

void model_unshuffle(Handle m) {
  const Bound b = DataOf("unshuffle", m, nn::DataMode::kTrain);
  Unshuffle("unshuffle", b.data.tensors(), b.data.permutation);
  b.data.permutation = at::Tensor();
  b.data.next = -1;
}

}  // namespace kscope
