#include "api/distributed/rendezvous.h"

#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "api/distributed/failure_text.h"
#include "runtime/errors.h"

namespace kscope::distributed {
namespace {

constexpr absl::string_view kTcp = "tcp://";
constexpr absl::string_view kFile = "file://";

[[noreturn]] void BadRendezvous(const char* fn, const std::string& text) {
  Fail("%s: rendezvous must be tcp://host:port or a file path, given \"%s\"", fn, text);
}

}  // namespace

Rendezvous ParseRendezvous(const char* fn, const std::string& text) {
  absl::string_view s = text;
  Rendezvous r;
  if (absl::ConsumePrefix(&s, kTcp)) {
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
    options.isServer = rank == 0;
    options.numWorkers = world;
    options.waitWorkers = true;
    options.timeout = timeout;
    return c10::make_intrusive<c10d::TCPStore>(r.host, options);
  } catch (const std::exception& e) {
    const std::string where = r.tcp ? absl::StrFormat("tcp://%s:%d", r.host, r.port) : r.path;
    Fail("%s: rank %d of %d could not meet its peers at %s within %d ms: %s", fn, rank, world,
         where, timeout.count(), FailureText(e));
  }
}

}  // namespace kscope::distributed
