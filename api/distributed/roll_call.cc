#include "api/distributed/roll_call.h"

#include <thread>
#include <vector>

#include <torch/csrc/distributed/c10d/Store.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kscope::distributed {

std::string RollCall(c10d::Store& store, int rank, int world, int call,
                     std::chrono::milliseconds wait) {
  const std::string prefix = absl::StrCat("kscope/rollcall/", call, "/");
  std::vector<int> missing;
  for (int r = 0; r < world; ++r) {
    if (r != rank) missing.push_back(r);
  }
  bool answered = false;
  try {
    store.set(absl::StrCat(prefix, rank), std::vector<std::uint8_t>{1});
    answered = true;
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (!missing.empty()) {
      std::vector<int> still;
      for (int r : missing) {
        if (!store.check({absl::StrCat(prefix, r)})) still.push_back(r);
      }
      missing.swap(still);
      if (missing.empty() || std::chrono::steady_clock::now() >= deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  } catch (const std::exception&) {
    // Before this rank could answer: the store is gone. While it waited: the store's host left
    // (rank 0 done with its own roll call), and the ranks missing until then stand.
    if (!answered) return "; the group's store did not answer";
  }
  if (missing.empty()) return "";
  if (missing.size() == 1)
    return absl::StrCat("; rank ", missing[0], " did not answer (gone or stuck)");
  const int last = missing.back();
  missing.pop_back();
  return absl::StrCat("; ranks ", absl::StrJoin(missing, ", "), " and ", last,
                      " did not answer (gone or stuck)");
}

}  // namespace kscope::distributed
