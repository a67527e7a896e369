// GroupObject — how the handle table holds a c10d process group, and the collective operations
// the api runs on it, with no c10d header in sight (only group_object.cc includes them).
//
// Ownership: each GroupObject holds one std::shared_ptr to the group's state (the c10d store and
// process group); addref shares it, and `ref` counts the holders. The connections close when the
// last holder goes. Collectives block until every rank took part, or throw kscope::Error
// "<fn>: rank r of w failed: <c10d's or gloo's reason>; rank d did not answer (gone or stuck)"
// when a peer is gone or the group's timeout passed (the ranks that did not answer a roll call
// in the group's store within 5 s: api/distributed/roll_call.h); on a throw the tensors given
// may hold partial results (callers pass copies).
// Not thread-safe: one collective at a time per group, called in the same order on every rank.
#ifndef KSCOPE_API_DISTRIBUTED_GROUP_OBJECT_H_
#define KSCOPE_API_DISTRIBUTED_GROUP_OBJECT_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "api/distributed/collectives.h"
#include "api/distributed/group.h"
#include "runtime/composite_object.h"
#include "runtime/handle.h"

namespace kscope::distributed {

class GroupObject final : public CompositeObject {
 public:
  // Meets the other ranks and connects them; kscope::Error naming fn as group() documents.
  static std::shared_ptr<GroupObject> Join(const char* fn, const GroupOptions& options);

  ObjectClass object_class() const override { return ObjectClass::kGroup; }
  std::vector<at::Tensor> tensors() const override { return {}; }
  std::int64_t parameter_count() const override { return 0; }
  const void* address() const override { return state_.get(); }
  long use_count() const override { return state_.use_count(); }
  // "gloo process group: rank 0 of 2 at tcp://127.0.0.1:29500"
  std::string str() const override;
  std::shared_ptr<CompositeObject> share() const override;
  // A group has no tensors to move: kscope::Error "to: not implemented for groups".
  void MoveTo(std::optional<c10::Device> device, std::optional<c10::ScalarType> dtype) override;

  int rank() const;
  int world() const;
  // What the group was made from.
  GroupOptions options() const;

  // Where this group's collectives take the numbers that come from the host (counts, model
  // fingerprints, metric totals) for a model on `model_device`: CollectiveDevice below.
  c10::Device HostNumbersDevice(const char* fn, c10::Device model_device) const;

  // The collectives, on tensors every rank gives in the same shapes and order. An nccl group
  // takes CUDA tensors only: a tensor elsewhere travels through a copy on this thread's current
  // CUDA device (cudadevice), and the results come back to its own device.
  // Reduces `tensor` across the ranks in place (kMean: the sum divided by world).
  void AllReduce(const char* fn, at::Tensor& tensor, Reduction op) const;
  // Overwrites `tensor` with rank root's.
  void Broadcast(const char* fn, at::Tensor& tensor, int root) const;
  // Every rank's `tensor`, in rank order.
  std::vector<at::Tensor> AllGather(const char* fn, const at::Tensor& tensor) const;
  void Barrier(const char* fn) const;

  // Sums across the ranks that run while this rank goes on computing, finished together
  // (api/distributed/gradient_reducer.h overlaps them with backward). StartSum begins summing
  // `tensor` in place (it must not be touched until FinishSums); FinishSums waits for every sum
  // begun, in order, with AllReduce's errors (the first failure ends them all, with one roll
  // call). Sums destroyed or replaced unfinished are abandoned.
  class Sums {
   public:
    Sums();
    ~Sums();
    Sums(Sums&&) noexcept;
    Sums& operator=(Sums&&) noexcept;

   private:
    friend class GroupObject;
    struct UnderWay;  // group_object.cc
    std::vector<UnderWay> under_way_;
  };
  void StartSum(const char* fn, const at::Tensor& tensor, Sums& sums) const;
  void FinishSums(const char* fn, Sums& sums) const;

 private:
  struct State;  // the c10d store and process group (group_object.cc)
  explicit GroupObject(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

// Where a collective of `backend` ("gloo" or "nccl") takes tensors of numbers from the host, for
// a model on `model_device`: the host for gloo; for nccl, which reduces CUDA tensors only, the
// model's own CUDA device, so that each rank's communicator stays on that rank's GPU.
// kscope::Error naming fn for nccl and a model off CUDA ("distribute: an nccl group needs the
// model on a CUDA device, given cpu").
c10::Device CollectiveDevice(const char* fn, const std::string& backend, c10::Device model_device);

// The group behind handle g, or the default group when g is null; kscope::Error naming fn
// ("<fn>: expected group, given tensor", "stale pointer", no default group).
std::shared_ptr<GroupObject> GroupOf(const char* fn, Handle g);

}  // namespace kscope::distributed

#endif  // KSCOPE_API_DISTRIBUTED_GROUP_OBJECT_H_
