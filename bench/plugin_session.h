// plugin_session — ktorch.so loaded into the k host (tests/khost/) for a benchmark program, its
// functions looked up by exported name and called as q calls them.
//
// PluginSession(path):
//   - sets the host's benchmark policies first: the release free policy (no quarantine) and
//     count-only reports (a report is recorded, never fails the run; CheckClean prints them);
//   - loads the plugin as q does (khost::Library: dlopen, then `fns`); ok() is false and error()
//     says why if that failed;
//   - Function(name) is the C function behind the exported `name` of the fns dictionary, to be
//     called directly (khost::NativeFunction: none of the host's per-call checks), or nullptr if
//     the plugin exports no rank-1 function of that name. A benchmark calls it with arguments it
//     owns and r0s what it gets back, as q would.
// CheckClean(), once at the end of main: free[] in the plugin and kscope::free() in the root
// scope, then a warning on stderr for each sign of a leak or a fault — a pending plugin error,
// rows left in obj[], live handles, host reports. It never fails the program: the times stand.
// Several sessions may live in one program (kscope's ktorch.so beside the real ktorch's: each
// .so is loaded RTLD_LOCAL and binds only its k symbols to the host).
//
// The per-call loops (CallAndFree, CallOnPointers, CallOnData) time one plugin function as a q
// user calls it, with any plugin that has ktorch's `tensor` and `free`.
//
// The host's allocator stands in for q's: every k object the plugin builds or r0s goes through
// the host's registry, so a plugin time includes the host's allocation cost, which in q would be
// q's own allocator's.
//
// Thread-safety: construct once in main, before any benchmark runs; Function may then be called
// from any thread, the plugin's functions from the benchmark thread.
#ifndef KSCOPE_BENCH_PLUGIN_SESSION_H_
#define KSCOPE_BENCH_PLUGIN_SESSION_H_

#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <benchmark/benchmark.h>

#include "absl/strings/string_view.h"
#include "q/convert/k_abi.h"
#include "tests/khost/library.h"

namespace kscope::bench {

// A plugin function of rank 1, as q calls it: the argument borrowed, the result owned (nullptr
// with an error pending in the host when it signalled one).
using PluginFn = kabi::K (*)(kabi::K);

// A plugin's own tensor and free: what the per-call loops need besides the function they time.
struct PluginCalls {
  PluginFn tensor = nullptr;
  PluginFn free = nullptr;
};

class PluginSession {
 public:
  explicit PluginSession(const std::string& path);
  PluginSession(const PluginSession&) = delete;
  PluginSession& operator=(const PluginSession&) = delete;

  bool ok() const { return library_.ok(); }
  const std::string& error() const { return library_.error(); }

  // The C function exported as `name` (nullptr if none, or not of rank 1).
  PluginFn Function(absl::string_view name) const;
  // Its tensor and free (either nullptr if missing).
  PluginCalls Calls() const { return {Function("tensor"), Function("free")}; }

  // free[], kscope::free(), and a warning on stderr for anything left over (see above).
  void CheckClean() const;

 private:
  // Sets the host's benchmark policies; a member so that it runs before library_ loads.
  struct HostPolicies {
    HostPolicies();
  };

  HostPolicies policies_;
  khost::Library library_;
};

// Unless `session` loaded the plugin, says so on stderr (naming `program` and why) and exits
// with status 1: the first thing a benchmark's main does.
void ExitUnlessLoaded(const PluginSession& session, absl::string_view program);

// r0 of a result the caller owns; nullptr (a failed call) is ignored.
void Drop(kabi::K x);

// Ends `state` as failed ("plugin: <message>") if the plugin signalled an error, a pending krr
// that q would raise; clears it. A benchmark clears errors before its loop and calls this after.
void SkipIfFailed(benchmark::State& state);

// k data holding a contiguous float tensor's values as q holds them: a real vector for one
// dimension, a general list of real vectors (the rows) for two. The caller owns the result.
kabi::K KFromFloats(const at::Tensor& t);

// Per iteration: r:op arg; free r; each owned result r0'd, as q would. `arg` stays the caller's.
void CallAndFree(benchmark::State& state, const PluginCalls& plugin, PluginFn op, kabi::K arg);
// CallAndFree on pointers: each of `inputs` made a pointer by the plugin's tensor (outside the
// timing), op given the one pointer or the list (a;b;...), the pointers freed at the end.
void CallOnPointers(benchmark::State& state, const PluginCalls& plugin, PluginFn op,
                    const std::vector<at::Tensor>& inputs);
// Per iteration: r:op data; r0 r — the inputs as k data (KFromFloats), one or a list of them,
// and k data back: the q user's path without pointers.
void CallOnData(benchmark::State& state, PluginFn op, const std::vector<at::Tensor>& inputs);

}  // namespace kscope::bench

#endif  // KSCOPE_BENCH_PLUGIN_SESSION_H_
