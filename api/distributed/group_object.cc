#include "api/distributed/group_object.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <utility>

#include <ATen/ops/empty_like.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#if defined(KSCOPE_WITH_CUDA) && defined(USE_C10D_NCCL)
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#define KSCOPE_WITH_NCCL 1
#endif

#include "absl/strings/str_format.h"
#include "api/distributed/rendezvous.h"
#include "api/distributed/roll_call.h"
#include "api/env/environment.h"
#include "api/nn/module_object.h"
#include "runtime/errors.h"
#include "runtime/failure_text.h"
#include "runtime/names.h"
#include "runtime/torch_compat_c10d.h"

namespace kscope::distributed {
namespace {

bool IsLoopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1";
}

// The network device gloo binds: the interface GLOO_SOCKET_IFNAME names (as in PyTorch), the
// loopback device for a loopback rendezvous, else the address this host's name resolves to.
std::shared_ptr<::gloo::transport::Device> GlooDevice(const Rendezvous& r) {
  if (const char* interface = std::getenv("GLOO_SOCKET_IFNAME")) {
    return c10d::ProcessGroupGloo::createDeviceForInterface(interface);
  }
  if (r.tcp && IsLoopback(r.host)) return c10d::ProcessGroupGloo::createDeviceForHostname(r.host);
  return c10d::ProcessGroupGloo::createDefaultDevice();
}

c10::intrusive_ptr<C10dCollectives> Connect(const GroupOptions& o, const Rendezvous& r,
                                            const c10::intrusive_ptr<c10d::Store>& store) {
  if (o.backend == "gloo") {
    auto options = c10d::ProcessGroupGloo::Options::create(o.timeout);
    options->devices.push_back(GlooDevice(r));
    return c10::make_intrusive<c10d::ProcessGroupGloo>(store, o.rank, o.world, options);
  }
#ifdef KSCOPE_WITH_NCCL
  if (cuda_device_count() == 0) Fail("group: backend `nccl needs a CUDA device, none available");
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = o.timeout;
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, o.rank, o.world, options);
#else
  Fail("group: backend `nccl needs a libtorch built with CUDA and NCCL");
#endif
}

c10d::ReduceOp::RedOpType OpOf(Reduction op) {
  switch (op) {
    case Reduction::kMax: return c10d::ReduceOp::MAX;
    case Reduction::kMin: return c10d::ReduceOp::MIN;
    default: return c10d::ReduceOp::SUM;  // kMean divides the sum afterwards
  }
}

}  // namespace

struct GroupObject::State {
  GroupOptions options;
  int store_server = -1;  // the rank whose process serves the store (-1: none does)
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<C10dCollectives> collectives;

  // An nccl group is shut down before it goes (what PyTorch's destroy_process_group does):
  // ProcessGroupNCCL's destructor otherwise warns that resources may leak.
  ~State() {
#ifdef KSCOPE_WITH_NCCL
    if (options.backend == "nccl" && collectives) {
      try {
        static_cast<c10d::ProcessGroupNCCL*>(collectives.get())->shutdown();
      } catch (const std::exception&) {  // the destructor below releases what is left
      }
    }
#endif
  }

  // `t` where the backend can take it: itself, or for nccl and a tensor off CUDA, a copy on this
  // thread's current CUDA device (what Unstage copies back from).
  at::Tensor Staged(const at::Tensor& t) const {
    return options.backend == "nccl" && !t.is_cuda() ? t.to(c10::Device(c10::kCUDA)) : t;
  }
  static void Unstage(const at::Tensor& staged, at::Tensor& t) {
    if (!staged.is_same(t)) t.copy_(staged);
  }

  // The group's collectives; kscope::Error naming fn once a failed collective closed them.
  C10dCollectives& Live(const char* fn) const {
    if (!collectives) {
      Fail("%s: rank %d of %d: this group failed in an earlier collective: make a new group", fn,
           options.rank, options.world);
    }
    return *collectives;
  }

  // Waits for one collective; its failure becomes kscope::Error naming fn and, after a roll
  // call of the ranks (api/distributed/roll_call.h), the ranks that did not answer. A gloo
  // group's connections are closed first: a peer blocked on this rank in the same collective
  // (a ring's next rank) then fails at once, not at its timeout, and answers too.
  void Wait(const char* fn, c10::intrusive_ptr<c10d::Work> work) {
    std::vector<c10::intrusive_ptr<c10d::Work>> works{std::move(work)};
    WaitAll(fn, works);
  }
  // The same for collectives begun one after another: the first failure drops the rest.
  void WaitAll(const char* fn, std::vector<c10::intrusive_ptr<c10d::Work>>& works) {
    try {
      for (const auto& work : works) work->wait();
    } catch (const std::exception& e) {
      const std::string reason = FailureText(e);
      if (options.backend == "gloo") {
        works.clear();  // they hold the gloo context (the connections) too
        collectives.reset();
      }
      const auto wait = std::min<std::chrono::milliseconds>(options.timeout, kRollCallWait);
      Fail("%s: rank %d of %d failed: %s%s", fn, options.rank, options.world, reason,
           RollCall(*store, options.rank, options.world, store_server, ++failed_collectives, wait));
    }
  }

  // How long a failed collective's roll call waits for the other ranks.
  static constexpr std::chrono::milliseconds kRollCallWait{5000};
  int failed_collectives = 0;
};

std::shared_ptr<GroupObject> GroupObject::Join(const char* fn, const GroupOptions& o) {
  if (o.world < 1 || o.rank < 0 || o.rank >= o.world) {
    Fail("%s: rank must be 0..world-1 for a world of at least 1, given rank %d of %d", fn, o.rank,
         o.world);
  }
  if (o.backend != "gloo" && o.backend != "nccl")
    Fail("%s: unrecognized backend `%s, expected `gloo or `nccl", fn, o.backend);
  if (o.timeout.count() <= 0)
    Fail("%s: timeout must be positive, given %d ms", fn, o.timeout.count());
  const Rendezvous r = ParseRendezvous(fn, o.rendezvous);
  auto state = std::make_shared<State>(
      State{o, StoreServer(r), MakeStore(fn, r, o.rank, o.world, o.timeout), {}});
  try {
    if (!MarkArrived(*state->store, o.rank)) {
      Fail("%s: rank %d of %d: another process already joined as rank %d at %s%s", fn, o.rank,
           o.world, o.rank, o.rendezvous,
           r.tcp ? "" : " (or the file is left from an earlier job: remove it)");
    }
    const std::string absent = AwaitArrivals(*state->store, o.rank, o.world, o.timeout);
    if (!absent.empty()) {
      Fail("%s: rank %d of %d could not meet its peers at %s within %d ms: %s", fn, o.rank, o.world,
           o.rendezvous, o.timeout.count(), absent);
    }
    state->collectives = Connect(o, r, state->store);
  } catch (const kscope::Error&) {
    throw;
  } catch (const std::exception& e) {
    Fail("%s: rank %d of %d could not connect its peers at %s within %d ms: %s", fn, o.rank,
         o.world, o.rendezvous, o.timeout.count(), FailureText(e));
  }
  return std::shared_ptr<GroupObject>(new GroupObject(std::move(state)));
}

std::string GroupObject::str() const {
  return absl::StrFormat("%s process group: rank %d of %d at %s", state_->options.backend,
                         state_->options.rank, state_->options.world, state_->options.rendezvous);
}

std::shared_ptr<CompositeObject> GroupObject::share() const {
  return std::shared_ptr<GroupObject>(new GroupObject(state_));
}

void GroupObject::MoveTo(std::optional<c10::Device>, std::optional<c10::ScalarType>) {
  Fail("to: not implemented for groups");
}

int GroupObject::rank() const { return state_->options.rank; }
int GroupObject::world() const { return state_->options.world; }
GroupOptions GroupObject::options() const { return state_->options; }

c10::Device GroupObject::HostNumbersDevice(const char* fn, c10::Device model_device) const {
  return CollectiveDevice(fn, state_->options.backend, model_device);
}

void GroupObject::AllReduce(const char* fn, at::Tensor& tensor, Reduction op) const {
  std::vector<at::Tensor> tensors{state_->Staged(tensor)};
  c10d::AllreduceOptions options;
  options.reduceOp = OpOf(op);
  state_->Wait(fn, state_->Live(fn).allreduce(tensors, options));
  if (op == Reduction::kMean) tensors[0].div_(state_->options.world);
  State::Unstage(tensors[0], tensor);
}

void GroupObject::Broadcast(const char* fn, at::Tensor& tensor, int root) const {
  std::vector<at::Tensor> tensors{state_->Staged(tensor)};
  c10d::BroadcastOptions options;
  options.rootRank = root;
  state_->Wait(fn, state_->Live(fn).broadcast(tensors, options));
  State::Unstage(tensors[0], tensor);
}

std::vector<at::Tensor> GroupObject::AllGather(const char* fn, const at::Tensor& tensor) const {
  std::vector<at::Tensor> inputs{state_->Staged(tensor)};
  std::vector<std::vector<at::Tensor>> outputs(1);
  for (int i = 0; i < state_->options.world; ++i) outputs[0].push_back(at::empty_like(inputs[0]));
  state_->Wait(fn, state_->Live(fn).allgather(outputs, inputs));
  for (at::Tensor& t : outputs[0]) t = t.to(tensor.device());
  return std::move(outputs[0]);
}

void GroupObject::Barrier(const char* fn) const { state_->Wait(fn, state_->Live(fn).barrier()); }

struct GroupObject::Sums::UnderWay {
  c10::intrusive_ptr<c10d::Work> work;
  at::Tensor staged;  // what the backend sums: the tensor itself, or its staged copy
  at::Tensor tensor;
};

GroupObject::Sums::Sums() = default;
GroupObject::Sums::~Sums() = default;
GroupObject::Sums::Sums(Sums&&) noexcept = default;
GroupObject::Sums& GroupObject::Sums::operator=(Sums&&) noexcept = default;

void GroupObject::StartSum(const char* fn, const at::Tensor& tensor, Sums& sums) const {
  std::vector<at::Tensor> tensors{state_->Staged(tensor)};
  auto work = state_->Live(fn).allreduce(tensors, c10d::AllreduceOptions());
  sums.under_way_.push_back(Sums::UnderWay{std::move(work), tensors[0], tensor});
}

void GroupObject::FinishSums(const char* fn, Sums& sums) const {
  std::vector<Sums::UnderWay> under_way = std::move(sums.under_way_);
  sums.under_way_.clear();
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  for (Sums::UnderWay& u : under_way) works.push_back(std::move(u.work));
  state_->WaitAll(fn, works);
  for (Sums::UnderWay& u : under_way) State::Unstage(u.staged, u.tensor);
}

c10::Device CollectiveDevice(const char* fn, const std::string& backend, c10::Device model_device) {
  if (backend != "nccl") return c10::Device(c10::kCPU);
  if (!model_device.is_cuda()) {
    Fail("%s: an nccl group needs the model on a CUDA device, given %s", fn,
         DeviceName(model_device));
  }
  return model_device;
}

std::shared_ptr<GroupObject> GroupOf(const char* fn, Handle g) {
  return std::static_pointer_cast<GroupObject>(
      nn::CompositeOf(fn, g.is_null() ? default_group(fn) : g, ObjectClass::kGroup));
}

}  // namespace kscope::distributed
