// The names of every module, loss and optimizer kind, in the order of their tables
// (api/nn/kinds/module_table.cc, losses.cc, optimizers.cc); look each one up with FindModuleKind,
// FindLossKind or FindOptimizerKind. Built once; thread-safe.
#ifndef KSCOPE_API_NN_KIND_NAMES_H_
#define KSCOPE_API_NN_KIND_NAMES_H_

#include <string>
#include <vector>

namespace kscope::nn {

struct ModuleKind;

const std::vector<std::string>& ModuleKindNames();
const std::vector<std::string>& LossKindNames();
const std::vector<std::string>& OptimizerKindNames();

// The names of a table's kinds, in order (for the tables' own files).
std::vector<std::string> NamesOf(const std::vector<ModuleKind>& kinds);

}  // namespace kscope::nn

#endif  // KSCOPE_API_NN_KIND_NAMES_H_
