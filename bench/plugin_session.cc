// plugin_session.cc — loading, lookup by name and the end-of-run checks.
#include "bench/plugin_session.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
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

kabi::K KFromFloats(const at::Tensor& t) {
  if (t.dim() == 1) {
    kabi::K v = kabi::ktn(kabi::kReal, t.numel());
    std::memcpy(kabi::Reals(v), t.data_ptr<float>(), t.numel() * sizeof(float));
    return v;
  }
  kabi::K rows = kabi::ktn(kabi::kMixed, t.size(0));
  for (std::int64_t i = 0; i < t.size(0); ++i) kabi::Items(rows)[i] = KFromFloats(t[i]);
  return rows;
}

namespace {

// The argument of a call on `inputs` (taken over): the one input itself, or the list of all.
kabi::K Argument(const std::vector<kabi::K>& inputs) {
  return inputs.size() == 1 ? inputs[0] : kq::List(inputs);
}

}  // namespace

void CallAndFree(benchmark::State& state, const PluginCalls& plugin, PluginFn op, kabi::K arg) {
  khost::ClearError();
  for (auto _ : state) {
    kabi::K r = op(arg);
    if (r == nullptr) break;
    Drop(plugin.free(r));
    kabi::r0(r);
  }
  SkipIfFailed(state);
}

void CallOnPointers(benchmark::State& state, const PluginCalls& plugin, PluginFn op,
                    const std::vector<at::Tensor>& inputs) {
  khost::ClearError();
  std::vector<kabi::K> pointers;
  for (const at::Tensor& t : inputs) {
    const khost::KRef data(KFromFloats(t));
    kabi::K p = plugin.tensor(data.get());
    if (p == nullptr) break;
    pointers.push_back(p);
  }
  if (pointers.size() < inputs.size()) {
    for (kabi::K p : pointers) {
      Drop(plugin.free(p));
      kabi::r0(p);
    }
    SkipIfFailed(state);
    return;
  }
  const khost::KRef args(Argument(pointers));
  CallAndFree(state, plugin, op, args.get());
  Drop(plugin.free(args.get()));  // the inputs' tensors
}

void CallOnData(benchmark::State& state, PluginFn op, const std::vector<at::Tensor>& inputs) {
  std::vector<kabi::K> data;
  for (const at::Tensor& t : inputs) data.push_back(KFromFloats(t));
  const khost::KRef args(Argument(data));
  khost::ClearError();
  for (auto _ : state) {
    kabi::K r = op(args.get());
    if (r == nullptr) break;
    kabi::r0(r);
  }
  SkipIfFailed(state);
}

}  // namespace kscope::bench
