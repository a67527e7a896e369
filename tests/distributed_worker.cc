// distributed_worker — one rank of a multi-process test of process groups and collectives,
// started by tests/distributed_test.cc (never by hand in CI).
//
//   distributed_worker SCENARIO RANK WORLD RENDEZVOUS TIMEOUT_MS
//   distributed_worker train env TIMEOUT_MS    rank, world and rendezvous from the variables of
//                                              the launcher that started it (torchrun, srun)
//
// Scenarios:
//   collectives  allreduce (sum mean max min; tensor, vector, dictionary handles and data),
//                broadcast, allgather and barrier, each result checked against the arithmetic
//                every rank can compute from the ranks' known inputs;
//   early_exit   the last rank leaves right after joining; every other rank's allreduce must
//                fail with kscope::Error naming allreduce (a closed peer or the timeout) and
//                the rank that left;
//   missing      started as ranks 0..WORLD-2: group must fail naming group, the rendezvous
//                and rank WORLD-1 as the one that did not arrive;
//   duplicate    started twice as the same rank: each process either joins (meets the others
//                at a barrier, then waits for the file $REFUSED_MARKER to appear, so that the
//                store outlives the other's try) or is refused at once, naming the rank taken,
//                and makes that file (exit status 3);
//   train, train_nccl, mismatch, killed, killed_first, rank_error  models bound to the group
//                (tests/distributed_worker.h).
// Exit status: 0 when every check passed and no handle outlived its scope, 1 otherwise (the
// reason on stderr), 2 for bad command-line arguments, 3 for a duplicate refused.
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tests/distributed_worker.h"

namespace {

using kscope::Handle;
using kscope::Reduction;
using kscope::worker::Check;
using kscope::worker::CheckEqual;
using kscope::worker::ErrorOf;
using kscope::worker::Setup;

// Sum over ranks r of f(r).
template <typename F>
double OverRanks(int world, F f) {
  double total = 0;
  for (int r = 0; r < world; ++r) total += f(r);
  return total;
}

void AllreduceTensors(int rank, int world) {
  const double r = rank;
  const Handle t = kscope::tensor(at::tensor({r + 1, 2 * (r + 1)}));
  kscope::allreduce(t);
  const double sum = OverRanks(world, [](int q) { return q + 1.0; });
  CheckEqual(kscope::tensor(t), at::tensor({sum, 2 * sum}), "allreduce sum");

  const Handle m = kscope::tensor(at::tensor({r, 10 - r}));
  kscope::allreduce(m, Reduction::kMean);
  const double mean = OverRanks(world, [](int q) { return q; }) / world;
  CheckEqual(kscope::tensor(m), at::tensor({mean, 10 - mean}), "allreduce mean");

  const Handle hi = kscope::tensor(at::tensor({r, -r}).to(at::kLong)),
               lo = kscope::tensor(at::tensor({r, -r}).to(at::kLong));
  kscope::allreduce(hi, Reduction::kMax);
  kscope::allreduce(lo, Reduction::kMin);
  CheckEqual(kscope::tensor(hi), at::tensor({world - 1, 0}).to(at::kLong), "allreduce max");
  CheckEqual(kscope::tensor(lo), at::tensor({0, 1 - world}).to(at::kLong), "allreduce min");

  // A local error before any communication: every rank gets it, nothing changes.
  const std::string error = ErrorOf([&] { kscope::allreduce(hi, Reduction::kMean); });
  Check(error == "allreduce: mean needs floating-point tensors, given long", error);
  CheckEqual(kscope::tensor(hi), at::tensor({world - 1, 0}).to(at::kLong), "unchanged after error");
}

void AllreduceContainers(int rank, int world) {
  const double r = rank;
  const double sum = OverRanks(world, [](int q) { return q; });
  // Two dtypes: two buckets.
  const Handle v = kscope::vector({at::tensor({r}), at::full({2, 2}, rank, at::kLong)});
  kscope::allreduce(v, Reduction::kSum);
  CheckEqual(kscope::vector(v, 0), at::tensor({sum}), "vector sum, element 0");
  CheckEqual(kscope::vector(v, 1), at::full({2, 2}, static_cast<std::int64_t>(sum), at::kLong),
             "vector sum, element 1");

  const Handle d = kscope::dict({{"a", at::tensor({r, r})}, {"b", at::full({3}, 1.0 + rank)}});
  kscope::allreduce(d, Reduction::kMax);
  CheckEqual(kscope::dict(d, "a"), at::tensor({world - 1.0, world - 1.0}), "dictionary max, a");
  CheckEqual(kscope::dict(d, "b"), at::full({3}, static_cast<double>(world)), "dictionary max, b");

  // Data in, data out; the data given is not changed.
  const at::Tensor data = at::tensor({r, 1.0});
  const kscope::Value out = kscope::allreduce(kscope::Value(data), Reduction::kMean);
  CheckEqual(std::get<at::Tensor>(out), at::tensor({sum / world, 1.0}), "allreduce data");
  CheckEqual(data, at::tensor({r, 1.0}), "data given unchanged");
  kscope::TensorDict named;
  named.insert("x", at::tensor({1.0}));
  const kscope::Value dd = kscope::allreduce(kscope::Value(std::move(named)));
  CheckEqual(std::get<kscope::TensorDict>(dd)["x"], at::tensor({static_cast<double>(world)}),
             "allreduce dictionary data");
}

void BroadcastGatherBarrier(int rank, int world) {
  const int root = world - 1;
  const Handle t = kscope::tensor(at::tensor({10.0 * rank, 1.0}));
  kscope::broadcast(t, root);
  CheckEqual(kscope::tensor(t), at::tensor({10.0 * root, 1.0}), "broadcast tensor");
  const kscope::Value v = kscope::broadcast(
      kscope::Value(kscope::TensorVector{at::tensor({rank}), at::tensor({-rank})}), 0);
  CheckEqual(std::get<kscope::TensorVector>(v).at(0), at::tensor({0}),
             "broadcast vector data, element 0");
  CheckEqual(std::get<kscope::TensorVector>(v).at(1), at::tensor({0}),
             "broadcast vector data, element 1");

  const Handle x = kscope::tensor(at::tensor({rank, 2 * rank}));
  const Handle gathered = kscope::allgather(x);
  Check(kscope::class_(gathered) == kscope::ObjectClass::kVector, "allgather gives a vector");
  for (int q = 0; q < world; ++q)
    CheckEqual(kscope::vector(gathered, q), at::tensor({q, 2 * q}), "allgather element");
  const kscope::Result data = kscope::allgather(at::tensor({1.0 * rank}));
  const auto& items = std::get<kscope::TensorVector>(data.value());
  Check(static_cast<int>(items.size()) == world, "allgather data size");
  for (int q = 0; q < world; ++q)
    CheckEqual(items[q], at::tensor({1.0 * q}), "allgather data element");

  kscope::barrier();
}

void Collectives(const Setup& s) {
  const kscope::Scope scope = kscope::Scope::Open();
  const Handle g = kscope::group(s.group);
  Check(kscope::group_rank(g) == s.group.rank && kscope::group_world() == s.group.world,
        "rank and world");
  Check(kscope::str(g) == absl::StrFormat("gloo process group: rank %d of %d at %s", s.group.rank,
                                          s.group.world, s.group.rendezvous),
        kscope::str(g));
  AllreduceTensors(s.group.rank, s.group.world);
  AllreduceContainers(s.group.rank, s.group.world);
  BroadcastGatherBarrier(s.group.rank, s.group.world);
  kscope::barrier(g);
}

void EarlyExit(const Setup& s) {
  const kscope::Scope scope = kscope::Scope::Open();
  kscope::group(s.group);
  kscope::barrier();  // every rank connected: what fails next is the allreduce
  if (s.group.rank == s.group.world - 1) std::_Exit(0);  // gone without a word to its peers
  const Handle t = kscope::tensor(at::tensor({1.0, 2.0}));
  const std::string error = ErrorOf([&] { kscope::allreduce(t); });
  Check(absl::StartsWith(error, absl::StrFormat("allreduce: rank %d of %d failed: ", s.group.rank,
                                                s.group.world)),
        error);
  Check(absl::EndsWith(error, kscope::worker::DeadRankNamed(s)), error);
  CheckEqual(kscope::tensor(t), at::tensor({1.0, 2.0}), "unchanged after a failed allreduce");
}

void Missing(const Setup& s) {
  const std::string error = ErrorOf([&] { kscope::group(s.group); });
  Check(absl::StartsWith(error, "group: rank "), error);
  Check(absl::StrContains(error, s.group.rendezvous), error);
  // Rank 0 serves the store, so it always names the rank; another rank names it too unless rank
  // 0 gave up and left before that rank looked (api/distributed/roll_call.h).
  const std::string within = absl::StrFormat("within %d ms: ", s.group.timeout.count());
  Check(absl::StrContains(error,
                          absl::StrFormat("%srank %d did not arrive", within, s.group.world - 1)) ||
            (s.group.rank != 0 &&
             absl::EndsWith(error, within + "the group's store closed before every rank arrived")),
        error);
}

// Whether the group refused this process as a second one of its rank.
bool Duplicate(const Setup& s) {
  const char* marker = std::getenv("REFUSED_MARKER");
  Check(marker != nullptr, "REFUSED_MARKER set");
  const kscope::Scope scope = kscope::Scope::Open();
  const std::string error = ErrorOf([&] { kscope::group(s.group); });
  if (error == "no error") {
    kscope::barrier();
    for (int waited = 0; !std::ifstream(marker); waited += 50) {
      Check(waited < 60000, "the other process of this rank refused within 60 s");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  Check(error ==
            absl::StrFormat("group: rank %d of %d: another process already joined as rank %d at %s",
                            s.group.rank, s.group.world, s.group.rank, s.group.rendezvous),
        error);
  std::ofstream(marker) << "refused\n";
  return true;
}

bool Parse(int argc, char** argv, Setup* s) {
  int timeout_ms = 0;
  if (argc == 4 && std::string(argv[1]) == "train" && std::string(argv[2]) == "env" &&
      absl::SimpleAtoi(argv[3], &timeout_ms)) {
    s->scenario = argv[1];
    s->from_environment = true;  // the group's place is read in main, where errors are reported
    s->group.timeout = std::chrono::milliseconds(timeout_ms);
    return true;
  }
  if (argc != 6 || !absl::SimpleAtoi(argv[2], &s->group.rank) ||
      !absl::SimpleAtoi(argv[3], &s->group.world) || !absl::SimpleAtoi(argv[5], &timeout_ms)) {
    return false;
  }
  s->scenario = argv[1];
  s->group.rendezvous = argv[4];
  s->group.timeout = std::chrono::milliseconds(timeout_ms);
  if (s->scenario == "train_nccl") {
    s->group.backend = "nccl";
    s->device = absl::StrCat("cuda:", s->group.rank);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Setup s;
  if (!Parse(argc, argv, &s)) {
    std::cerr << "usage: distributed_worker "
                 "collectives|early_exit|missing|duplicate|train|train_nccl|mismatch|killed|"
                 "killed_first|killed_distribute|"
                 "killed_testrun|slow|rank_error|resume|overlap RANK "
                 "WORLD RENDEZVOUS "
                 "TIMEOUT_MS\n"
                 "       distributed_worker train env TIMEOUT_MS   (placed by its launcher's "
                 "variables)\n";
    return 2;
  }
  bool refused = false;
  try {
    if (s.from_environment) s.group = kscope::placed_by_launcher(s.group, "distributed_worker");
    if (s.scenario == "collectives") {
      Collectives(s);
    } else if (s.scenario == "early_exit") {
      EarlyExit(s);
    } else if (s.scenario == "missing") {
      Missing(s);
    } else if (s.scenario == "duplicate") {
      refused = Duplicate(s);
    } else if (s.scenario == "train" || s.scenario == "train_nccl") {
      kscope::worker::Train(s);
    } else if (s.scenario == "mismatch") {
      kscope::worker::Mismatch(s);
    } else if (s.scenario == "killed" || s.scenario == "killed_first") {
      kscope::worker::Killed(s, s.scenario == "killed" ? s.group.world - 1 : 0);
    } else if (s.scenario == "killed_distribute" || s.scenario == "killed_testrun") {
      kscope::worker::KilledBeforePhase(s, s.scenario.substr(std::string("killed_").size()));
    } else if (s.scenario == "slow") {
      kscope::worker::Slow(s);
    } else if (s.scenario == "rank_error") {
      kscope::worker::RankError(s);
    } else if (s.scenario == "resume") {
      kscope::worker::Resume(s);
    } else if (s.scenario == "overlap") {
      kscope::worker::Overlap(s);
    } else {
      std::cerr << "distributed_worker: unknown scenario " << s.scenario << "\n";
      return 2;
    }
    Check(kscope::live_handles() == 0,
          "every handle freed: " + kscope::FormatObjects(kscope::obj()));
  } catch (const std::exception& e) {
    std::cerr << "distributed_worker " << s.scenario << " rank " << s.group.rank << ": " << e.what()
              << "\n";
    return 1;
  }
  return refused ? 3 : 0;
}
