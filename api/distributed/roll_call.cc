#include "api/distributed/roll_call.h"

#include <algorithm>
#include <thread>
#include <utility>
#include <vector>

#include <torch/csrc/distributed/c10d/Store.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kscope::distributed {
namespace {

constexpr const char* kArrived = "kscope/arrived/";   // one mark per rank
constexpr const char* kArrivals = "kscope/arrivals";  // the count of marks

// Every rank of `world` but `rank`.
std::vector<int> Others(int rank, int world) {
  std::vector<int> others;
  for (int r = 0; r < world; ++r) {
    if (r != rank) others.push_back(r);
  }
  return others;
}

// Those of `ranks` whose key (`prefix` and the rank) is not in the store.
std::vector<int> Absent(c10d::Store& store, const std::string& prefix,
                        const std::vector<int>& ranks) {
  std::vector<int> absent;
  for (int r : ranks) {
    if (!store.check({absl::StrCat(prefix, r)})) absent.push_back(r);
  }
  return absent;
}

// Calls `done` at once, then after pauses growing from 1 ms to 50 ms, until it returns true or
// `deadline` has passed; whether it returned true. Throws what `done` throws.
template <typename Done>
bool PollUntil(std::chrono::steady_clock::time_point deadline, Done done) {
  std::chrono::milliseconds pause(1);
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  return true;
}

// Looks for the keys (`prefix` and the rank) of `missing` until none is missing or `wait` has
// passed (PollUntil); `missing` keeps the ranks the last look the store answered did not see.
// False when the store stopped answering.
bool Await(c10d::Store& store, const std::string& prefix, std::vector<int>& missing,
           std::chrono::milliseconds wait) {
  try {
    PollUntil(std::chrono::steady_clock::now() + wait, [&] {
      missing = Absent(store, prefix, missing);
      return missing.empty();
    });
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// "rank 2 <what>", "ranks 1 and 2 <what>", "" for none.
std::string Named(std::vector<int> ranks, const char* what) {
  if (ranks.empty()) return "";
  if (ranks.size() == 1) return absl::StrCat("rank ", ranks[0], " ", what);
  const int last = ranks.back();
  ranks.pop_back();
  return absl::StrCat("ranks ", absl::StrJoin(ranks, ", "), " and ", last, " ", what);
}

}  // namespace

bool MarkArrived(c10d::Store& store, int rank) {
  if (store.add(absl::StrCat(kArrived, rank), 1) != 1) return false;
  store.add(kArrivals, 1);
  return true;
}

std::string AwaitArrivals(c10d::Store& store, int rank, int world,
                          std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  // Who is missing is looked up once shortly before the deadline, should the store close
  // before it (rank 0, serving it, gave up and left), and at the deadline.
  const auto early_look =
      deadline - std::min<std::chrono::milliseconds>(timeout / 4, std::chrono::milliseconds(1000));
  const auto all_arrived = [&] { return store.add(kArrivals, 0) >= world; };  // one request
  std::vector<int> missing = Others(rank, world);
  bool looked = false;
  try {
    if (PollUntil(early_look, all_arrived)) return "";
    missing = Absent(store, kArrived, missing);
    looked = true;
    if (PollUntil(deadline, all_arrived)) return "";
    missing = Absent(store, kArrived, missing);
    return Named(std::move(missing), "did not arrive");
  } catch (const std::exception&) {
    if (!looked) return "the group's store closed before every rank arrived";
    return Named(std::move(missing), "did not arrive (then the group's store closed)");
  }
}

std::string RollCall(c10d::Store& store, int rank, int world, int store_server, int call,
                     std::chrono::milliseconds wait) {
  const std::string prefix = absl::StrCat("kscope/rollcall/", call, "/");
  std::vector<int> missing = Others(rank, world);
  bool answered = true;
  try {
    store.set(absl::StrCat(prefix, rank), std::vector<std::uint8_t>{1});
  } catch (const std::exception&) {
    answered = false;
  }
  const bool store_answers = answered && Await(store, prefix, missing, wait);
  if (!store_answers && std::find(missing.begin(), missing.end(), store_server) != missing.end()) {
    // The store went with its server, which had not answered.
    return absl::StrCat("; rank ", store_server,
                        " did not answer (gone): the group's store it served is unreachable");
  }
  if (!answered) return "; the group's store did not answer";
  // Any store that went meanwhile went with a server done with its own roll call: the ranks
  // missing until then stand.
  if (missing.empty()) return "";
  return absl::StrCat("; ", Named(std::move(missing), "did not answer (gone or stuck)"));
}

}  // namespace kscope::distributed
