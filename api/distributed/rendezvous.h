// Rendezvous — where the ranks of a process group meet, and the c10d store that lets them.
//
// A rendezvous is written `tcp://host:port` (a TCPStore: rank 0 serves it on `port`, every rank
// connects to `host`) or as a file path, optionally `file://path` (a FileStore on a file every rank
// can reach, e.g. a shared filesystem). `tcp://host:port?server=launcher&prefix=P` is a store the
// launcher serves (torchrun 2.x's agent store: api/distributed/launch_environment.h): every rank
// connects as a client and keeps its keys under P, each group under P/group_<n> (n counts the
// groups this process made from launcher-served stores: every rank makes them in the same order).
// ParseRendezvous checks the text only; MakeStore connects. Errors: kscope::Error naming the
// function. Thread-safe: no shared state.
#ifndef KSCOPE_API_DISTRIBUTED_RENDEZVOUS_H_
#define KSCOPE_API_DISTRIBUTED_RENDEZVOUS_H_

#include <chrono>
#include <cstdint>
#include <string>

#include <c10/util/intrusive_ptr.h>

namespace c10d {
class Store;
}  // namespace c10d

namespace kscope::distributed {

struct Rendezvous {
  bool tcp = false;
  std::string host;              // tcp only
  std::uint16_t port = 0;        // tcp only
  bool launcher_serves = false;  // tcp only: no rank serves the store
  std::string prefix;            // tcp only: the ranks' keys are under it ("": none)
  std::string path;              // file only
};

// The rendezvous `text` names; kscope::Error "<fn>: rendezvous must be tcp://host:port or a file
// path, given ..." when it is neither (empty, no host, a port outside 1-65535, a query other than
// server=rank0|launcher and prefix=P).
Rendezvous ParseRendezvous(const char* fn, const std::string& text);

// The rank whose process serves r's store: 0 for a tcp rendezvous that rank 0 serves, -1 for a
// file or a store the launcher serves.
int StoreServer(const Rendezvous& r);

// The store of rank `rank` of `world`: for tcp, rank 0 starts the server (unless the launcher
// serves it) without waiting for the others (connecting the group waits for every rank); the
// other ranks connect to it within `timeout`. Throws kscope::Error naming fn and the rendezvous
// when the store cannot be reached in time or the file cannot be used.
c10::intrusive_ptr<c10d::Store> MakeStore(const char* fn, const Rendezvous& r, int rank, int world,
                                          std::chrono::milliseconds timeout);

}  // namespace kscope::distributed

#endif  // KSCOPE_API_DISTRIBUTED_RENDEZVOUS_H_
