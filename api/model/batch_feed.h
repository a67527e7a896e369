// BatchFeed — the batches of one epoch of a model's data (model_batch, api/model/model_data.h),
// each on the model's device: what run and testrun train and test on.
//
// Data held on the module's device (k data always is: it is moved there when given) is handed
// over as it stands: each batch is the data's own window, nothing copied. Data held elsewhere —
// host tensors given as the data of a model on a GPU — is copied batch by batch, one batch
// ahead: when batch k is handed out, batch k+1 is already windowed and its copy begun, so it
// travels while k trains. To a CUDA device the copy runs on a side stream, with non_blocking,
// from pinned memory (the data's own pages when its tensors are pinned, else the batch is first
// copied into pinned memory from libtorch's caching host allocator, which keeps those pages until
// the copy is done); the stream that takes the batch waits for the copy on the device, not on the
// host, and the copy is recorded as used by that stream. To other devices each batch is copied
// with an ordinary to(). Shuffling is model_batch's: the epoch's first batch reshuffles the data
// where it is held.
//
// Ownership: a feed holds the batch it last handed out and the one staged after it (copies, when
// it copies) until the next Next() or its end. Errors: model_batch's and libtorch's for a copy;
// after an error the feed is spent and the caller ends the epoch (model_restore), as run does.
// Thread-compatible: one epoch, one thread, which must not change its current stream between
// Next() calls.
#ifndef KSCOPE_API_MODEL_BATCH_FEED_H_
#define KSCOPE_API_MODEL_BATCH_FEED_H_

#include <memory>
#include <optional>

#include <c10/core/Device.h>

#include "api/model/model_object.h"
#include "runtime/handle.h"

namespace kscope {

class BatchFeed {
 public:
  // When batches are copied: where the data is not on the module's device, or always (a batch
  // that later calls can change without touching the data; how the CPU tests drive the copies).
  enum class Copies { kWhereHeldElsewhere, kAlways };

  // One batch: its input and target, valid until the next Next().
  struct Batch {
    const nn::DataTensors& input;
    const nn::DataTensors& target;
  };

  // The batches of `mode`'s data of `model`, the model of live handle m.
  BatchFeed(Handle m, const nn::Model& model, nn::DataMode mode,
            Copies copies = Copies::kWhereHeldElsewhere);
  ~BatchFeed();
  BatchFeed(const BatchFeed&) = delete;
  BatchFeed& operator=(const BatchFeed&) = delete;

  // The next batch of this task; none after the last (the data back at full size, the epoch
  // ended), and none from then on.
  std::optional<Batch> Next();

  // Whether this feed copies its batches.
  bool copies() const { return copier_ != nullptr; }

  class Copier;  // batch_feed.cc

 private:
  // Windows the next batch and begins its copy (staged_), or ends the epoch (staged_ false).
  void Stage();

  Handle m_;
  nn::DataMode mode_;
  const nn::ModelData& data_;
  std::unique_ptr<Copier> copier_;  // null: batches handed over as they stand
  bool started_ = false;            // the first batch windowed
  bool staged_ = false;             // a batch windowed (and copied) and not yet handed out
  bool ended_ = false;
};

// x where all its tensors are on `device` (or no device is given), else a copy of x with every
// tensor there (*moved holds it): for calls on a model's stored data outside run and testrun.
const nn::DataTensors& OnDevice(const nn::DataTensors& x, std::optional<c10::Device> device,
                                nn::DataTensors* moved);

}  // namespace kscope

#endif  // KSCOPE_API_MODEL_BATCH_FEED_H_
