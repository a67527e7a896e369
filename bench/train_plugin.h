// train_plugin — an epoch case of bench/train_cases.h trained through the q plugin (ktorch.so
// in the k host, bench/plugin_session.h), made with the calls a q user makes:
//
//   q:module <the case's definition as ktorch's nested list: (0;`sequential);(1;(`linear;..))..>
//   to(q;`cuda)                                  / the case's device
//   m:model(q; loss`ce; opt(`sgd;q;.01))         / its optimizer and learning rate
//   train(m; `batchsize`amp`graph!(64;`none;0b)) / train_bench's options
//   train(m; x; y)                               / tensor pointers of the case's data on the device
//   run m                                        / timed: one epoch, the loss back as a k float
//
// The case's parameters come from the same seed in the same order as kscope's C++ side (the
// plugin shares the process's libtorch and its default generator), so its first loss is that
// side's. Settings that the C++ side changed (multi-tensor steps) are set in the plugin alike.
//
// Errors: the constructor throws std::runtime_error naming the q call that failed and the
// plugin's error text; Epoch() likewise. Ownership: the model's pointer is freed on destruction;
// nothing else is left in the plugin. Not thread-safe: the benchmark's thread only.
#ifndef KSCOPE_BENCH_TRAIN_PLUGIN_H_
#define KSCOPE_BENCH_TRAIN_PLUGIN_H_

#include <string>

#include <c10/core/Device.h>

#include "bench/plugin_session.h"
#include "bench/train_cases.h"
#include "tests/khost/kref.h"

namespace kscope::bench {

// The q text of a module definition: ktorch's nested list ((0;`parent);(1;(`child;args..));..),
// or the one module's (`kind;args..) without children; options as trailing (`name;value) pairs.
std::string QDefinition(const ModuleDefinition& definition);

// Options of the epoch cases that both kscope sides train with.
struct PluginCaseOptions {
  std::string amp = "none";        // the train option amp
  bool graph = false;              // the train option graph
  bool multi_tensor_steps = true;  // setting`foreach
};

class PluginTraining {
 public:
  PluginTraining(const PluginSession& session, const TrainCase& c, const c10::Device& device,
                 const PluginCaseOptions& options);
  ~PluginTraining();
  PluginTraining(const PluginTraining&) = delete;
  PluginTraining& operator=(const PluginTraining&) = delete;

  // run m: one epoch; its loss.
  double Epoch() const;

 private:
  // `fn` applied to `arg` (taken over); its result, or std::runtime_error.
  khost::KRef Call(const char* fn, kabi::K arg) const;

  const PluginSession& session_;
  khost::KRef model_;
};

}  // namespace kscope::bench

#endif  // KSCOPE_BENCH_TRAIN_PLUGIN_H_
