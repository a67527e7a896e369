#include "api/distributed/rendezvous.h"

#include <atomic>
#include <utility>

#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "runtime/errors.h"
#include "runtime/failure_text.h"

namespace kscope::distributed {
namespace {

constexpr absl::string_view kTcp = "tcp://";
constexpr absl::string_view kFile = "file://";

[[noreturn]] void BadRendezvous(const char* fn, const std::string& text) {
  Fail("%s: rendezvous must be tcp://host:port or a file path, given \"%s\"", fn, text);
}

// The options after a tcp rendezvous's '?': server=rank0|launcher and prefix=P, '&' between.
bool ParseQuery(absl::string_view query, Rendezvous* r) {
  for (absl::string_view option : absl::StrSplit(query, '&')) {
    const std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(option, '=');
    if (kv.first == "server" && (kv.second == "rank0" || kv.second == "launcher")) {
      r->launcher_serves = kv.second == "launcher";
    } else if (kv.first == "prefix" && !kv.second.empty()) {
      r->prefix = std::string(kv.second);
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

Rendezvous ParseRendezvous(const char* fn, const std::string& text) {
  absl::string_view s = text;
  Rendezvous r;
  if (absl::ConsumePrefix(&s, kTcp)) {
    const std::size_t question = s.find('?');
    if (question != absl::string_view::npos) {
      if (!ParseQuery(s.substr(question + 1), &r)) BadRendezvous(fn, text);
      s = s.substr(0, question);
    }
    const std::size_t colon = s.rfind(':');
    int port = 0;
    if (colon == absl::string_view::npos || colon == 0 ||
        !absl::SimpleAtoi(s.substr(colon + 1), &port) || port < 1 || port > 65535) {
      BadRendezvous(fn, text);
    }
    r.tcp = true;
    r.host = std::string(s.substr(0, colon));
    r.port = static_cast<std::uint16_t>(port);
    return r;
  }
  absl::ConsumePrefix(&s, kFile);
  if (s.empty()) BadRendezvous(fn, text);
  r.path = std::string(s);
  return r;
}

int StoreServer(const Rendezvous& r) { return r.tcp && !r.launcher_serves ? 0 : -1; }

c10::intrusive_ptr<c10d::Store> MakeStore(const char* fn, const Rendezvous& r, int rank, int world,
                                          std::chrono::milliseconds timeout) {
  try {
    if (!r.tcp) {
      auto store = c10::make_intrusive<c10d::FileStore>(r.path, world);
      store->setTimeout(timeout);
      return store;
    }
    c10d::TCPStoreOptions options;
    options.port = r.port;
    options.isServer = rank == 0 && !r.launcher_serves;
    if (!r.launcher_serves) options.numWorkers = world;
    // Rank 0 does not wait for the others here: connecting them waits for every rank, and a
    // rank that never comes is named there (api/distributed/roll_call.h).
    options.waitWorkers = false;
    options.timeout = timeout;
    c10::intrusive_ptr<c10d::Store> store = c10::make_intrusive<c10d::TCPStore>(r.host, options);
    if (!r.launcher_serves) {
      if (r.prefix.empty()) return store;
      return c10::make_intrusive<c10d::PrefixStore>(r.prefix, std::move(store));
    }
    // A store that outlives the group: each group made from it gets keys of its own, numbered
    // in the order this process made them (every rank makes its groups in the same order).
    static std::atomic<int> launcher_groups{0};
    return c10::make_intrusive<c10d::PrefixStore>(
        absl::StrCat(r.prefix, "/group_", launcher_groups.fetch_add(1)), std::move(store));
  } catch (const std::exception& e) {
    const std::string where = r.tcp ? absl::StrFormat("tcp://%s:%d", r.host, r.port) : r.path;
    const int server = StoreServer(r);
    Fail("%s: rank %d of %d could not meet its peers at %s within %d ms: %s%s", fn, rank, world,
         where, timeout.count(), FailureText(e),
         server >= 0 && server != rank
             ? absl::StrFormat("; rank %d, which serves the store, did not answer", server)
             : "");
  }
}

}  // namespace kscope::distributed
