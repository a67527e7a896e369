// ktorch's `help`: its topics, one table per kind of object (modules, losses, optimizers) with
// every option and its default, the defaults of one kind, and the table of backward modes.
//
// Everything is derived from the kind tables (api/nn/*kinds*.cc), so help never drifts from what
// `module`, `loss` and `opt` accept. An option without a default (required) reads as null.
// Errors: kscope::Error "help: unrecognized topic or kind `x". Thread-safe (read-only data).
// help_topic and kind_help(Handle) decide what a help call shows; each topic's content is one
// function below.
#ifndef KSCOPE_API_ENV_HELP_H_
#define KSCOPE_API_ENV_HELP_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "api/nn/options.h"
#include "runtime/handle.h"

namespace kscope {

// help[]: topic -> one-line description, ktorch's (backward dtype ktype loss module optimizer
// tensor). help`device, the devices this process can use, is kscope's own.
std::vector<std::pair<std::string, std::string>> help_topics();

// One kind: its name, how many inputs its forward takes (0 for optimizers) and its options with
// their defaults, in declaration order.
struct KindHelp {
  std::string kind;
  std::size_t inputs;
  std::size_t max_inputs;
  nn::NamedValues defaults;
};
std::vector<KindHelp> module_help();
std::vector<KindHelp> loss_help();
std::vector<KindHelp> optimizer_help();
// help`name for a module, loss or optimizer kind (modules first, as ktorch looks them up).
KindHelp kind_help(const std::string& name);
// help p: the kind of the module, loss or optimizer p holds. Error: "help: expecting a topic, a
// kind, or a module, loss or optimizer, given <class>" for tensors, vectors, dictionaries, models.
KindHelp kind_help(Handle h);

// What help`name shows: a topic's table or dictionary, or (kKind) kind_help(name).
enum class HelpTopic {
  kBackward,
  kDevice,
  kDtype,
  kKtype,
  kModule,
  kLoss,
  kOptimizer,
  kTensor,
  kKind
};
HelpTopic help_topic(const std::string& name);

// help`dtype / help`ktype: each dtype with the k type its values convert to, in ktorch's order
// (float double half bool byte char long int, then short chalf cfloat cdouble).
std::vector<std::pair<std::string, char>> dtype_ktypes();
// help`device: the devices this process can use (cpu, then cuda:0 ...).
std::vector<std::string> help_devices();
// help`tensor: each tensor option (device dtype layout gradient pin memory) with its default.
std::vector<std::pair<std::string, std::string>> tensor_option_defaults();

}  // namespace kscope

#endif  // KSCOPE_API_ENV_HELP_H_
