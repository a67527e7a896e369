// ktorch's `help`: its topics, one table per kind of object (modules, losses, optimizers) with
// what ktorch says of each kind (api/env/kind_facts.h) and its options with sample values, the
// dictionary of one kind, and the table of backward modes.
//
// The options are derived from the kind tables (api/nn/*kinds*.cc), so help never drifts from what
// `module`, `loss` and `opt` accept: each option with its default (null where required), and, as
// ktorch shows them, with ktorch's sample values in place of some (linear's in 784 and out 10).
// Errors: kscope::Error "help: unrecognized topic or kind `x". Thread-safe (read-only data).
// help_topic and kind_help(Handle) decide what a help call shows; each topic's content is one
// function below.
#ifndef KSCOPE_API_ENV_HELP_H_
#define KSCOPE_API_ENV_HELP_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "api/env/kind_facts.h"
#include "api/nn/options.h"
#include "runtime/handle.h"

namespace kscope {

// help[]: topic -> one-line description, ktorch 2.3's (backward device dtype ktype loss module
// optimizer tensor; help`device maps each device to its random seed, as seed[] does).
std::vector<std::pair<std::string, std::string>> help_topics();

// One kind: its name, how many inputs its forward takes (0 for optimizers), its options with their
// defaults and with ktorch's sample values (`example`, in declaration order), the PyTorch class it
// stands for ("torch.optim.SGD"; lamb has none), and for modules and losses the rest of what
// ktorch's help says of it (never null for them; null for optimizers).
struct KindHelp {
  std::string kind;
  std::size_t inputs;
  std::size_t max_inputs;
  nn::NamedValues defaults;
  nn::NamedValues example;
  std::string pytorch;
  const KindFacts* facts;
};
// Every kind of a family, sorted by name as ktorch lists them.
std::vector<KindHelp> module_help();
std::vector<KindHelp> loss_help();
std::vector<KindHelp> optimizer_help();
// help`name for a module, loss or optimizer kind (modules first, as ktorch looks them up). Error:
// "<fn>: unrecognized topic or kind `name".
KindHelp kind_help(const std::string& name, const char* fn = "help");
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
// help`tensor: each tensor option (device dtype layout gradient pin memory) with its default.
std::vector<std::pair<std::string, std::string>> tensor_option_defaults();

}  // namespace kscope

#endif  // KSCOPE_API_ENV_HELP_H_
