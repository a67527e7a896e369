// Roll calls — which ranks of a group are there, so that a rank's error can name the peer that
// never came, died or hung instead of only the timeout or closed connection c10d and gloo report
// (an address, a count of clients).
//
// Arrival: every rank marks itself arrived in the group's store (kscope/arrived/<rank>), and a
// second process marking the same rank learns that it came second (MarkArrived); then it waits
// for the others' marks before connecting them (AwaitArrivals), and names those that did not
// come.
//
// After a failed collective: every rank whose collective failed calls RollCall with the same
// `call` (its count of failed collectives in that group: the ranks fail on the same collective,
// so the counts agree): it writes its own key under kscope/rollcall/<call>/ in the group's store,
// then waits up to `wait` for every other rank's.
//
// Thread-compatible: one call at a time per store and rank.
#ifndef KSCOPE_API_DISTRIBUTED_ROLL_CALL_H_
#define KSCOPE_API_DISTRIBUTED_ROLL_CALL_H_

#include <chrono>
#include <string>

namespace c10d {
class Store;
}  // namespace c10d

namespace kscope::distributed {

// Marks `rank` arrived; false when another process had already marked it. Throws what the store
// throws.
bool MarkArrived(c10d::Store& store, int rank);

// Waits up to `timeout` for every other rank's mark: "" once all are there (at the deadline
// too), else what group()'s error ends with: "rank 2 did not arrive", "ranks 0 and 2 did not
// arrive". When the store stops answering meanwhile (rank 0, serving it, gave up first and
// left): the ranks missing at a look shortly before the deadline (the last quarter of the
// timeout, at most its last second) with " (then the group's store closed)", or "the group's
// store closed before every rank arrived" when it closed before that look. Each look while
// waiting reads a count of the marks (one request, whatever the world), at once, then after
// pauses growing from 1 ms to 50 ms. Never throws.
std::string AwaitArrivals(c10d::Store& store, int rank, int world,
                          std::chrono::milliseconds timeout);

// The text an error appends: "; rank 2 did not answer (gone or stuck)", "; ranks 1 and 2 did
// not answer (gone or stuck)", or "" when every rank answered. `store_server` is the rank whose
// process serves the store (a tcp rendezvous's rank 0 unless the launcher serves it), -1 when
// none does. When the store cannot be reached: "; rank 0 did not answer (gone): the group's
// store it served is unreachable" while the server had not answered (a stuck process still
// serves its store from a thread of its own, so the server is gone), the ranks missing until
// then when it had (its host, done with its own roll call, left), and "; the group's store did
// not answer" when no rank serves it and this rank could not answer. Never throws.
std::string RollCall(c10d::Store& store, int rank, int world, int store_server, int call,
                     std::chrono::milliseconds wait);

}  // namespace kscope::distributed

#endif  // KSCOPE_API_DISTRIBUTED_ROLL_CALL_H_
