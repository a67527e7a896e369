// train_plugin.cc — a case's definition as q text, and its model built and run through the plugin.
#include "bench/train_plugin.h"

#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <ATen/ops/contiguous.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tests/khost/khost.h"

namespace kscope::bench {
namespace {

std::string QItems(const std::string& kind, const std::vector<nn::OptionValue>& positional,
                   const nn::NamedValues& named);

// An option value as a q literal.
std::string QValue(const nn::OptionValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          return v ? "1b" : "0b";
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          return absl::StrCat(v);
        } else if constexpr (std::is_same_v<T, double>) {
          return absl::StrFormat("%.17gf", v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          return absl::StrCat("`", v);
        } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
          return absl::StrCat(v.size() == 1 ? "," : "", absl::StrJoin(v, " "));
        } else if constexpr (std::is_same_v<T, nn::Nested>) {
          return QItems(v.definition->kind, v.definition->positional, v.definition->named);
        } else {
          throw std::invalid_argument("QDefinition: an option value the cases do not use");
        }
      },
      value);
}

// (`kind;positional..;(`name;value)..), without the kind when it is "" (a nested definition
// of options only).
std::string QItems(const std::string& kind, const std::vector<nn::OptionValue>& positional,
                   const nn::NamedValues& named) {
  std::vector<std::string> items;
  if (!kind.empty()) items.push_back(absl::StrCat("`", kind));
  for (const nn::OptionValue& v : positional) items.push_back(QValue(v));
  for (const auto& [name, v] : named)
    items.push_back(absl::StrCat("(`", name, ";", QValue(v), ")"));
  return absl::StrCat("(", absl::StrJoin(items, ";"), ")");
}

// A module's definition, or `kind alone.
std::string QModule(const ModuleDefinition& d) {
  if (d.positional.empty() && d.named.empty()) return absl::StrCat("`", d.kind);
  return QItems(d.kind, d.positional, d.named);
}

// Appends (depth;module) of d and of its children, depth first.
void AddNested(const ModuleDefinition& d, int depth, std::vector<std::string>* rows) {
  rows->push_back(absl::StrCat("(", depth, ";", QModule(d), ")"));
  for (const ModuleDefinition& child : d.children) AddNested(child, depth + 1, rows);
}

// k data of a contiguous CPU tensor's values as q holds them: a real or long vector for one
// dimension, a general list of the rows otherwise.
kabi::K KFromTensor(const at::Tensor& t) {
  if (t.dim() == 1) {
    const bool real = t.scalar_type() == at::kFloat;
    kabi::K v = kabi::ktn(real ? kabi::kReal : kabi::kLong, t.numel());
    std::memcpy(real ? static_cast<void*>(kabi::Reals(v)) : kabi::Longs(v), t.data_ptr(),
                t.numel() * t.element_size());
    return v;
  }
  kabi::K rows = kabi::ktn(kabi::kMixed, t.size(0));
  for (std::int64_t i = 0; i < t.size(0); ++i) kabi::Items(rows)[i] = KFromTensor(t[i]);
  return rows;
}

}  // namespace

std::string QDefinition(const ModuleDefinition& definition) {
  if (definition.children.empty()) return QModule(definition);
  std::vector<std::string> rows;
  AddNested(definition, 0, &rows);
  return absl::StrCat("(", absl::StrJoin(rows, ";"), ")");
}

khost::KRef PluginTraining::Call(const char* fn, kabi::K arg) const {
  const khost::KRef argument(arg);
  const PluginFn f = session_.Function(fn);
  if (f == nullptr) throw std::runtime_error(absl::StrCat("train_bench: the plugin has no ", fn));
  khost::ClearError();
  khost::KRef result(f(argument.get()));
  if (const std::optional<std::string> error = khost::PendingError()) {
    khost::ClearError();
    throw std::runtime_error(absl::StrCat("train_bench: the plugin's ", fn, ": ", *error));
  }
  return result;
}

PluginTraining::PluginTraining(const PluginSession& session, const TrainCase& c,
                               const c10::Device& device, const PluginCaseOptions& options)
    : session_(session) {
  if (!options.multi_tensor_steps) Call("setting", kq::List({kq::Sym("foreach"), kq::Bool(false)}));
  const khost::KRef where(kq::Sym(device.str()));
  const khost::KRef q = Call("module", kq::Parse(QDefinition(c.definition)));
  Call("to", kq::List({q.share(), where.share()}));
  const khost::KRef loss = Call("loss", kq::Sym("ce"));
  const khost::KRef optimizer =
      Call("opt", kq::List({kq::Sym(c.optimizer), q.share(), kq::Float(c.lr)}));
  model_ = Call("model", kq::List({q.share(), loss.share(), optimizer.share()}));  // takes them
  Call("train",
       kq::List({model_.share(), kq::Dict(kq::Syms({"batchsize", "amp", "graph"}),
                                          kq::List({kq::Long(c.batch), kq::Sym(options.amp),
                                                    kq::Bool(options.graph)}))}));
  const khost::KRef x =
      Call("tensor", kq::List({KFromTensor(c.x.cpu().contiguous()), where.share()}));
  const khost::KRef y =
      Call("tensor", kq::List({KFromTensor(c.y.cpu().contiguous()), where.share()}));
  Call("train", kq::List({model_.share(), x.share(), y.share()}));
  for (const khost::KRef* data : {&x, &y}) Call("free", data->share());
}

PluginTraining::~PluginTraining() {
  if (!model_) return;
  try {
    Call("free", model_.share());
  } catch (const std::exception& e) {
    absl::FPrintF(stderr, "warning: %s\n", e.what());
  }
}

double PluginTraining::Epoch() const {
  const khost::KRef loss = Call("run", model_.share());
  if (loss->t != -kabi::kFloat && loss->t != -kabi::kReal)
    throw std::runtime_error("train_bench: the plugin's run: expected a float or real atom");
  return loss->t == -kabi::kFloat ? loss->f : loss->e;
}

}  // namespace kscope::bench
