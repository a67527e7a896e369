// plugin_session.cc — loading, lookup by name and the end-of-run checks.
#include "bench/plugin_session.h"

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <vector>

#include "absl/strings/str_format.h"
#include "kscope/kscope.h"
#include "tests/khost/khost.h"

namespace kscope::bench {
namespace {

// The number of rows obj[] lists in the plugin, or -1 if obj[] failed.
std::int64_t PluginObjects(PluginFn obj) {
  if (obj == nullptr) return -1;
  const khost::KRef null(kq::Null());
  const khost::KRef table(obj(null.get()));
  if (!table || table->t != kabi::kTable) return -1;
  return kabi::Items(kabi::DictValues(kabi::TableDict(table.get())))[0]->n;
}

}  // namespace

PluginSession::HostPolicies::HostPolicies() {
  khost::SetFreePolicy(khost::FreePolicy::kRelease);
  khost::SetReportMode(khost::ReportMode::kCountOnly);
}

PluginSession::PluginSession(const std::string& path) : library_(path) {}

PluginFn PluginSession::Function(absl::string_view name) const {
  if (library_.Rank(name) != 1) return nullptr;
  return reinterpret_cast<PluginFn>(khost::NativeFunction(library_.Function(name)));
}

void PluginSession::CheckClean() const {
  if (const PluginFn free = Function("free")) {
    const khost::KRef null(kq::Null());
    Drop(free(null.get()));  // free[]
  }
  kscope::free();
  if (const std::optional<std::string> error = khost::PendingError()) {
    absl::FPrintF(stderr, "warning: the plugin signalled '%s'\n", *error);
  }
  const std::int64_t plugin_objects = PluginObjects(Function("obj"));
  if (plugin_objects != 0) {
    absl::FPrintF(stderr,
                  "warning: the plugin's obj[] lists %d object(s) at exit (-1: obj[] failed)\n",
                  plugin_objects);
  }
  if (kscope::live_handles() != 0) {
    absl::FPrintF(stderr, "warning: %d handle(s) still live at exit\n", kscope::live_handles());
  }
  const std::vector<khost::Report> reports = khost::Stats().reports;
  if (!reports.empty()) {
    absl::FPrintF(stderr, "warning: the k host reported %d defect(s), the first: %s\n",
                  reports.size(), reports.front().message);
  }
}

void ExitUnlessLoaded(const PluginSession& session, absl::string_view program) {
  if (session.ok()) return;
  absl::FPrintF(stderr, "%s: cannot load the plugin: %s\n", program, session.error());
  std::exit(1);
}

void Drop(kabi::K x) {
  if (x != nullptr) kabi::r0(x);
}

void SkipIfFailed(benchmark::State& state) {
  const std::optional<std::string> error = khost::PendingError();
  if (!error) return;
  khost::ClearError();
  state.SkipWithError(("plugin: " + *error).c_str());
}

}  // namespace kscope::bench
