// A model's training and testing data and its batching (ktorch's train(m;x;y), data, input,
// target, datasize, batch, restore, batchinit, shuffle, unshuffle and their test forms).
//
// Data: an input and an optional target, each given as one or more parts (DataPart below):
// one tensor (a tensor handle's tensor is shared, so batches and shuffles show through that
// handle too, and stays where it is: run copies its batches to the module's device,
// api/model/batch_feed.h; k data is moved to the module's device) makes a tensor; tensors, vectors
// and vector elements make a vector, in the order given; dictionaries and dictionary entries make
// one dictionary (a key given twice is an error), as in ktorch. Every tensor of the input and
// the target must match along the first dimension ("tensor size mismatch, 100 vs 10", ktorch's
// text); an input given alone must match the stored target and vice versa. Giving data ends
// any epoch under way and forgets earlier shuffles. Setters return the number of batches,
// from the mode's batchsize and droplast (and, with several tasks, this task's share).
//
// Batching (api/data/batch_window.h, no copies): model_batch starts an epoch when none is under
// way — full size restored, the training data reshuffled if the `shuffle option is set —
// then windows the data at the next batch of this task (task t of n takes batches t, t+n, ..)
// and returns true; after the last batch it restores full size, ends the epoch and returns
// false. model_batchinit does the epoch start by hand; model_restore ends an epoch early.
// Shuffles are composed so that model_unshuffle puts the rows back in the order given; with
// several tasks every task draws from one generator seeded by `shuffleseed`.
//
// Errors: kscope::Error naming the function ("batch: expected model, given tensor", "stale
// pointer", "train: expected tensor, vector or dictionary, given module", "train: vector
// index 2 out of range for 2 tensor(s)", "train: no key `c in dictionary", "train: a key given
// twice: `a", "train: expected tensors and vectors, or dictionaries, given both", the batch window
// errors); on error nothing changes. Thread-safety: a model and
// its data must not be used from two threads at once.
#ifndef KSCOPE_API_MODEL_MODEL_DATA_H_
#define KSCOPE_API_MODEL_MODEL_DATA_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/core/operand.h"
#include "api/model/model_object.h"
#include "api/model/model_options.h"
#include "runtime/handle.h"

namespace kscope {

// One part of a model's input or target as given: a tensor (handle or data), a vector or
// dictionary handle (all its tensors), or a vector handle with indices / a dictionary handle
// with keys (those elements, in the order given). A value type; the handles are looked up
// when the data is set.
class DataPart {
 public:
  template <typename T, typename = std::enable_if_t<std::is_constructible_v<Operand, T>>>
  DataPart(T&& x) : source_(std::forward<T>(x)) {}  // NOLINT: a tensor, vector or dictionary
  DataPart(Handle vector, std::vector<std::int64_t> indices)
      : source_(vector), indices_(std::move(indices)) {}
  DataPart(Handle dictionary, std::vector<std::string> keys)
      : source_(dictionary), keys_(std::move(keys)) {}

  const Operand& source() const { return source_; }
  const std::optional<std::vector<std::int64_t>>& indices() const { return indices_; }
  const std::optional<std::vector<std::string>>& keys() const { return keys_; }

 private:
  Operand source_;
  std::optional<std::vector<std::int64_t>> indices_;
  std::optional<std::vector<std::string>> keys_;
};

// The parts of an input or a target: one part converts implicitly, several go in braces.
class DataParts {
 public:
  template <typename T, typename = std::enable_if_t<std::is_constructible_v<DataPart, T>>>
  DataParts(T&& x) : parts_{DataPart(std::forward<T>(x))} {}  // NOLINT
  DataParts(std::initializer_list<DataPart> parts) : parts_(parts) {}
  explicit DataParts(std::vector<DataPart> parts) : parts_(std::move(parts)) {}

  const std::vector<DataPart>& parts() const { return parts_; }

 private:
  std::vector<DataPart> parts_;
};

// train(m;x;y) / data(m;x;y) (kTrain), test(m;x;y) / testdata(m;x;y) (kTest): number of batches.
std::int64_t model_data(Handle m, nn::DataMode mode, const DataParts& input,
                        const DataParts& target);
// train(m;x) / data(m;x) / test(m;x) / testdata(m;x): an input and no target.
std::int64_t model_data(Handle m, nn::DataMode mode, const DataParts& input);
// input(m;x) / testinput(m;x): replaces the input only.
std::int64_t model_input(Handle m, nn::DataMode mode, const DataParts& input);
// target(m;y) / testtarget(m;y): replaces the target only.
std::int64_t model_target(Handle m, nn::DataMode mode, const DataParts& target);

// The tensors `parts` make for model m (k data moved to its module's device), without storing
// or batching them (scalars allowed): for calls given data, as backward(m;x;y). Errors name `fn`.
nn::DataTensors model_data_tensors(const char* fn, Handle m, const DataParts& parts);

// The stored data (its tensors showing the current batch); form kNone when not given.
nn::DataTensors model_input(Handle m, nn::DataMode mode);
nn::DataTensors model_target(Handle m, nn::DataMode mode);
// input m / testinput m: a new handle sharing the input's tensors (a tensor, vector or
// dictionary, as the input was given); an empty Handle when there is no input. target m /
// testtarget m likewise for the target.
Handle model_input_handle(Handle m, nn::DataMode mode);
Handle model_target_handle(Handle m, nn::DataMode mode);

// datasize m / testsize m: rows of the input as it stands (the current batch's), 0 if none.
std::int64_t model_datasize(Handle m, nn::DataMode mode);

// batch m / testbatch m: the next batch (see above).
bool model_batch(Handle m, nn::DataMode mode);
// batchinit m / testinit m: starts an epoch; returns the number of batches (-1 without data).
std::int64_t model_batchinit(Handle m, nn::DataMode mode);
// restore m / testrestore m: full size, no epoch under way; returns the full number of rows.
std::int64_t model_restore(Handle m, nn::DataMode mode);
// shuffle m: reshuffles the training data (full size restored, epoch ended).
void model_shuffle(Handle m);
// unshuffle m: puts the training data back in the order given.
void model_unshuffle(Handle m);

}  // namespace kscope

#endif  // KSCOPE_API_MODEL_MODEL_DATA_H_
