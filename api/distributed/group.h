// Process groups: the ranks of a data-parallel job, met through a rendezvous, as one object that
// the scope stack owns like any other (ObjectClass::kGroup, ktorch-style class name `group`).
//
// group(options) blocks until all `world` ranks have met at the rendezvous (api/distributed/
// rendezvous.h: `tcp://host:port`, rank 0 serving, or a file path) and their backend has
// connected them, or fails after `timeout` with kscope::Error naming `group`, the rank and the
// rendezvous: a peer that never arrives gives an error, never a hang, and the error names it
// ("group: rank 0 of 3 could not meet its peers at tcp://127.0.0.1:29500 within 10000 ms: rank
// 2 did not arrive"; where rank 0 serves a tcp store, the others cannot reach it without rank
// 0: "...; rank 0, which serves the store, did not answer"). A second process joining as a rank
// already taken is refused at once ("group: rank 1 of 2: another process already joined as
// rank 1 at tcp://127.0.0.1:29500"). Each call registers one new handle in the current scope
// and makes that group the default group, the one collectives (api/distributed/collectives.h)
// use when given no group; freeing the handle leaves the process with no default until the next
// group(). Freeing the last handle closes the connections.
//
// Backends: "gloo" (CPU tensors) always; "nccl" only when kscope and libtorch are built with
// CUDA and NCCL, else kscope::Error "group: backend `nccl needs a libtorch built with CUDA and
// NCCL". Thread-safety: make and use a group from one thread; every rank must call the
// collectives of a group in the same order.
#ifndef KSCOPE_API_DISTRIBUTED_GROUP_H_
#define KSCOPE_API_DISTRIBUTED_GROUP_H_

#include <chrono>
#include <string>

#include "runtime/handle.h"

namespace kscope {

struct GroupOptions {
  int rank = 0;            // 0 .. world-1
  int world = 1;           // number of ranks, at least 1
  std::string rendezvous;  // tcp://host:port, or a file path (file://path)
  std::string backend = "gloo";
  std::chrono::milliseconds timeout = std::chrono::minutes(5);  // to meet, and per collective
  int local_rank = -1;  // this rank's place on its machine (for cuda:<local_rank>); -1: not given
};

// Joins a process group; see above. kscope::Error for a rank outside 0..world-1, an unknown
// backend, a malformed rendezvous or peers that do not arrive within the timeout.
Handle group(const GroupOptions& options);

// `o` placed where the launcher that started this process says (torchrun, srun, mpirun or
// examples/launch.sh: launch_environment(fn), api/distributed/launch_environment.h): its rank,
// world, rendezvous and local rank replaced, its backend and timeout kept. kscope::Error naming
// `fn` and the variables looked for when no launcher's are set.
GroupOptions placed_by_launcher(GroupOptions o, const char* fn);

// Joins the group the launcher that started this process describes (torchrun, srun, mpirun or
// examples/launch.sh: api/distributed/launch_environment.h), as group() does with its rank,
// world, rendezvous and local rank; kscope::Error naming `group` and the variables looked for
// when no launcher's are set, and group()'s errors.
Handle group_from_environment(const std::string& backend = "gloo",
                              std::chrono::milliseconds timeout = std::chrono::minutes(5));

// The group collectives use when given a null Handle: the last one group() made in this process.
// kscope::Error "<fn>: no process group, make one with group" when there is none or it was freed.
Handle default_group(const char* fn);

// The rank of this process and the number of ranks in group g (null: the default group).
int group_rank(Handle g = Handle());
int group_world(Handle g = Handle());

// What group g (null: the default group) was made from, its timeout included.
GroupOptions group_options(Handle g = Handle());

}  // namespace kscope

#endif  // KSCOPE_API_DISTRIBUTED_GROUP_H_
