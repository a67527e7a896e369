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

constexpr const char* kArrived = "kscope/arrived/";

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

// "; rank 2 <what>", "; ranks 1 and 2 <what>", "" for none.
std::string Named(std::vector<int> ranks, const char* what) {
  if (ranks.empty()) return "";
  if (ranks.size() == 1) return absl::StrCat("; rank ", ranks[0], " ", what);
  const int last = ranks.back();
  ranks.pop_back();
  return absl::StrCat("; ranks ", absl::StrJoin(ranks, ", "), " and ", last, " ", what);
}

}  // namespace

void MarkArrived(c10d::Store& store, int rank) {
  store.set(absl::StrCat(kArrived, rank), std::vector<std::uint8_t>{1});
}

std::string MissingArrivals(c10d::Store& store, int rank, int world) {
  try {
    return Named(Absent(store, kArrived, Others(rank, world)), "did not arrive");
  } catch (const std::exception&) {
    return "";
  }
}

std::string RollCall(c10d::Store& store, int rank, int world, int store_server, int call,
                     std::chrono::milliseconds wait) {
  const std::string prefix = absl::StrCat("kscope/rollcall/", call, "/");
  std::vector<int> missing = Others(rank, world);
  bool answered = false;
  try {
    store.set(absl::StrCat(prefix, rank), std::vector<std::uint8_t>{1});
    answered = true;
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (!missing.empty()) {
      missing = Absent(store, prefix, missing);
      if (missing.empty() || std::chrono::steady_clock::now() >= deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  } catch (const std::exception&) {
    // The store is gone: with its server, if that had not answered; else its server left, done
    // with its own roll call, and the ranks missing until then stand.
    if (std::find(missing.begin(), missing.end(), store_server) != missing.end()) {
      return Named({store_server},
                   "did not answer (gone): the group's store it served is unreachable");
    }
    if (!answered) return "; the group's store did not answer";
  }
  return Named(std::move(missing), "did not answer (gone or stuck)");
}

}  // namespace kscope::distributed
