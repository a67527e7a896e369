// ModuleKind — one entry of the table of module kinds (and, for losses, loss kinds): its
// ktorch name, its options, how to build the libtorch module from them, and how to run it.
//
// Internal to api/ (it includes libtorch's nn headers). The table is built once and never
// changes, so lookups are thread-safe. Containers have children added with add_child; leaf
// kinds can be wrapped as a child of libtorch's sequential with any(). A forward takes between
// `inputs` and `max_inputs` tensors (callers check the count) and returns one tensor, or
// several (fork, recurrent layers with their hidden state, attention with its weights).
#ifndef KSCOPE_API_NN_MODULE_KIND_H_
#define KSCOPE_API_NN_MODULE_KIND_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/modules/container/any.h>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "api/nn/options.h"

namespace kscope::nn {

// What a forward returns: one tensor, or several.
using ModuleOutput = std::variant<at::Tensor, std::vector<at::Tensor>>;

struct ModuleKind {
  using Make = std::function<std::shared_ptr<torch::nn::Module>(const OptionSet&)>;
  using Wrap = std::function<torch::nn::AnyModule(const std::shared_ptr<torch::nn::Module>&)>;
  using Forward = std::function<ModuleOutput(torch::nn::Module&, const std::vector<at::Tensor>&)>;
  // Adds child under `name` (or the container's default name when empty); returns the name.
  using AddChild = std::function<std::string(torch::nn::Module& parent, const std::string& name,
                                             const ModuleKind& kind,
                                             const std::shared_ptr<torch::nn::Module>& child)>;

  std::string name;
  std::vector<OptionSpec> options;
  Make make;
  Forward forward;         // the module's forward (or a loss's computation) on its inputs
  std::size_t inputs;      // the fewest tensors forward takes
  std::size_t max_inputs;  // the most
  Wrap any;                // leaf kinds: the module as a type-erased child; null for containers
  AddChild add_child;      // containers only
  // Leaf kinds built of other layers: each internal child's name and the kind ktorch reports
  // for it (embedseq: tok embed, pos embedpos), for moduletypes and parmtypes.
  std::vector<std::pair<std::string, std::string>> internal = {};
};

// Impl's forward on the inputs x[0], x[1], ... (the caller checked there are enough).
template <typename Impl, std::size_t... I>
auto ApplyForward(torch::nn::Module& m, const std::vector<at::Tensor>& x,
                  std::index_sequence<I...>) {
  return dynamic_cast<Impl&>(m).forward(x[I]...);
}

// The one tensor a forward returned; kscope::Error naming `fn` if it returned several.
const at::Tensor& SingleOutput(const char* fn, const ModuleOutput& out);

// An immutable name -> kind index over a table built once.
class KindTable {
 public:
  explicit KindTable(std::vector<ModuleKind> kinds);
  // nullptr if no kind has that name.
  const ModuleKind* Find(absl::string_view name) const;

 private:
  std::vector<ModuleKind> kinds_;
  absl::flat_hash_map<std::string, const ModuleKind*> index_;
};

// The kind of a submodule that libtorch made on its own (the layers inside a transformer):
// named `libtorch, no options, and a forward that fails (it has no kscope definition).
const ModuleKind& OpaqueKind();

// The kind named `name` among modules (nullptr if none).
const ModuleKind* FindModuleKind(absl::string_view name);
// The kind named `name` among losses (nullptr if none).
const ModuleKind* FindLossKind(absl::string_view name);

}  // namespace kscope::nn

#endif  // KSCOPE_API_NN_MODULE_KIND_H_
