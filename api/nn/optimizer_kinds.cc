// The table of optimizer kinds. Each entry restates ktorch's option names, order and defaults
// (../shared/reference/ktorch-api.md §2.3), maps them onto libtorch's options, and names the
// state buffers of one parameter. ktorch's `sgd` has a default learning rate of 0.01, where
// libtorch's SGDOptions has none. lbfgs can be defined and queried but not stepped (its step
// needs a closure: ktorch's backstep/run, which need models). lamb is ktorch's own optimizer
// (api/nn/lamb.h).
#include <deque>
#include <tuple>

#include <ATen/ATen.h>
#include <torch/optim/adagrad.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/lbfgs.h>
#include <torch/optim/rmsprop.h>
#include <torch/optim/sgd.h>

#include "absl/types/span.h"
#include "api/nn/kind_names.h"
#include "api/nn/lamb.h"
#include "api/nn/optimizer_kind.h"
#include "runtime/errors.h"

namespace kscope::nn {
namespace {

using torch::optim::Optimizer;
using torch::optim::OptimizerParamGroup;
using torch::optim::OptimizerParamState;

// The defined tensors among `tensors` (state buffers a configuration does not use stay undefined).
std::vector<at::Tensor> Defined(absl::Span<const at::Tensor> tensors) {
  std::vector<at::Tensor> out;
  for (const at::Tensor& t : tensors) {
    if (t.defined()) out.push_back(t);
  }
  return out;
}

// Saved buffers: counts and values as scalars, tensors as copies (undefined ones left out).
at::Tensor Count(std::int64_t n) { return at::scalar_tensor(n, at::kLong); }
at::Tensor Value(double v) { return at::scalar_tensor(v, at::kDouble); }
void Put(OptimizerBuffers* buffers, const char* name, const at::Tensor& t) {
  if (t.defined()) buffers->emplace_back(name, t.detach().clone());
}
// A history (lbfgs) as one tensor, one row per entry; undefined when empty.
at::Tensor Stack(const std::deque<at::Tensor>& history) {
  return history.empty() ? at::Tensor() : at::stack(std::vector<at::Tensor>(history.begin(), history.end()));
}
// Each row its own tensor, as libtorch made them: a row viewed at an offset into the stack
// lies otherwise aligned, and libtorch 2.x's vectorized dot products then round the last bit
// differently, so a restored optimizer would drift from the one it was saved from.
std::deque<at::Tensor> Unstack(const at::Tensor& t) {
  std::deque<at::Tensor> rows;
  if (t.defined()) {
    for (const at::Tensor& row : t.unbind(0)) rows.push_back(row.clone());
  }
  return rows;
}

// A kind whose libtorch optimizer is Impl with options ImplOptions made by `convert`.
template <typename Impl, typename ImplOptions>
OptimizerKind Kind(std::string name, std::vector<OptionSpec> options, std::vector<std::string> buffers,
                   ImplOptions (*convert)(const OptionSet&)) {
  OptimizerKind kind;
  kind.name = std::move(name);
  kind.options = std::move(options);
  kind.buffers = std::move(buffers);
  kind.make = [convert](std::vector<OptimizerParamGroup> groups, const OptionSet& o) -> std::shared_ptr<Optimizer> {
    return std::make_shared<Impl>(std::move(groups), convert(o));
  };
  kind.group_options = [convert](const OptionSet& o) -> std::unique_ptr<torch::optim::OptimizerOptions> {
    return std::make_unique<ImplOptions>(convert(o));
  };
  return kind;
}

torch::optim::SGDOptions SgdOptions(const OptionSet& o) {
  return torch::optim::SGDOptions(o.Double("lr"))
      .momentum(o.Double("momentum"))
      .dampening(o.Double("dampening"))
      .weight_decay(o.Double("decay"))
      .nesterov(o.Bool("nesterov"));
}

OptimizerKind Sgd() {
  using State = torch::optim::SGDParamState;
  OptimizerKind k = Kind<torch::optim::SGD>("sgd",
                                            {{"lr", OptionType::kDouble, 0.01},
                                             {"momentum", OptionType::kDouble, 0.0},
                                             {"dampening", OptionType::kDouble, 0.0},
                                             {"decay", OptionType::kDouble, 0.0},
                                             {"nesterov", OptionType::kBool, false}},
                                            {"momentum_buffer"}, &SgdOptions);
  k.state = [](const OptimizerParamState& s) { return Defined({static_cast<const State&>(s).momentum_buffer()}); };
  k.save = [](const OptimizerParamState& s) {
    OptimizerBuffers b;
    Put(&b, "momentum_buffer", static_cast<const State&>(s).momentum_buffer());
    return b;
  };
  k.load = [](const SavedBuffers& saved) -> std::unique_ptr<OptimizerParamState> {
    auto s = std::make_unique<State>();
    s->momentum_buffer(saved.Like("momentum_buffer"));
    return s;
  };
  return k;
}

// adam and adamw: the same options (but for the default decay) and the same state.
template <typename Options>
Options AdamOptions(const OptionSet& o) {
  return Options(o.Double("lr"))
      .betas(std::make_tuple(o.Double("beta1"), o.Double("beta2")))
      .eps(o.Double("eps"))
      .weight_decay(o.Double("decay"))
      .amsgrad(o.Bool("amsgrad"));
}

template <typename Impl, typename Options, typename State>
OptimizerKind AdamLike(std::string name, double decay) {
  OptimizerKind k = Kind<Impl>(std::move(name),
                               {{"lr", OptionType::kDouble, 0.001},
                                {"beta1", OptionType::kDouble, 0.9},
                                {"beta2", OptionType::kDouble, 0.999},
                                {"eps", OptionType::kDouble, 1e-8},
                                {"decay", OptionType::kDouble, decay},
                                {"amsgrad", OptionType::kBool, false}},
                               {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}, &AdamOptions<Options>);
  k.state = [](const OptimizerParamState& s) {
    const auto& a = static_cast<const State&>(s);
    return Defined({a.exp_avg(), a.exp_avg_sq(), a.max_exp_avg_sq()});
  };
  k.scalars = 1;  // step
  k.save = [](const OptimizerParamState& s) {
    const auto& a = static_cast<const State&>(s);
    OptimizerBuffers b{{"step", Count(a.step())}};
    Put(&b, "exp_avg", a.exp_avg());
    Put(&b, "exp_avg_sq", a.exp_avg_sq());
    Put(&b, "max_exp_avg_sq", a.max_exp_avg_sq());
    return b;
  };
  k.load = [](const SavedBuffers& saved) -> std::unique_ptr<OptimizerParamState> {
    auto s = std::make_unique<State>();
    s->step(saved.Long("step"));
    s->exp_avg(saved.Like("exp_avg"));
    s->exp_avg_sq(saved.Like("exp_avg_sq"));
    s->max_exp_avg_sq(saved.Like("max_exp_avg_sq", /*required=*/false));
    return s;
  };
  return k;
}

torch::optim::AdagradOptions AdagradOptions(const OptionSet& o) {
  return torch::optim::AdagradOptions(o.Double("lr"))
      .lr_decay(o.Double("lrdecay"))
      .weight_decay(o.Double("decay"))
      .initial_accumulator_value(o.Double("init"))
      .eps(o.Double("eps"));
}

// The sum of squared gradients is made with the parameter's place in the optimizer (libtorch's
// Adagrad fills it with `init` in its constructor), so adagrad's buffers exist before a step.
OptimizerKind Adagrad() {
  using State = torch::optim::AdagradParamState;
  OptimizerKind k = Kind<torch::optim::Adagrad>("adagrad",
                                                {{"lr", OptionType::kDouble, 0.01},
                                                 {"lrdecay", OptionType::kDouble, 0.0},
                                                 {"decay", OptionType::kDouble, 0.0},
                                                 {"init", OptionType::kDouble, 0.0},
                                                 {"eps", OptionType::kDouble, 1e-10}},
                                                {"step", "sum"}, &AdagradOptions);
  k.state = [](const OptimizerParamState& s) { return Defined({static_cast<const State&>(s).sum()}); };
  k.scalars = 1;  // step
  k.save = [](const OptimizerParamState& s) {
    const auto& a = static_cast<const State&>(s);
    OptimizerBuffers b{{"step", Count(a.step())}};
    Put(&b, "sum", a.sum());
    return b;
  };
  k.load = [](const SavedBuffers& saved) -> std::unique_ptr<OptimizerParamState> {
    auto s = std::make_unique<State>();
    s->step(saved.Long("step"));
    s->sum(saved.Like("sum"));
    return s;
  };
  k.initial = [](const at::Tensor& p, const OptionSet& group) -> std::unique_ptr<OptimizerParamState> {
    auto s = std::make_unique<State>();
    s->sum(at::full_like(p.detach(), group.Double("init"), at::MemoryFormat::Preserve));
    return s;
  };
  return k;
}

torch::optim::RMSpropOptions RmspropOptions(const OptionSet& o) {
  return torch::optim::RMSpropOptions(o.Double("lr"))
      .alpha(o.Double("alpha"))
      .eps(o.Double("eps"))
      .weight_decay(o.Double("decay"))
      .momentum(o.Double("momentum"))
      .centered(o.Bool("centered"));
}

// square_avg always; momentum_buffer only with momentum > 0, grad_avg only when centered.
OptimizerKind Rmsprop() {
  using State = torch::optim::RMSpropParamState;
  OptimizerKind k = Kind<torch::optim::RMSprop>("rmsprop",
                                                {{"lr", OptionType::kDouble, 0.01},
                                                 {"alpha", OptionType::kDouble, 0.99},
                                                 {"eps", OptionType::kDouble, 1e-8},
                                                 {"decay", OptionType::kDouble, 0.0},
                                                 {"momentum", OptionType::kDouble, 0.0},
                                                 {"centered", OptionType::kBool, false}},
                                                {"step", "square_avg", "momentum_buffer", "grad_avg"}, &RmspropOptions);
  k.state = [](const OptimizerParamState& s) {
    const auto& r = static_cast<const State&>(s);
    return Defined({r.square_avg(), r.momentum_buffer(), r.grad_avg()});
  };
  k.scalars = 1;  // step
  k.save = [](const OptimizerParamState& s) {
    const auto& r = static_cast<const State&>(s);
    OptimizerBuffers b{{"step", Count(r.step())}};
    Put(&b, "square_avg", r.square_avg());
    Put(&b, "momentum_buffer", r.momentum_buffer());
    Put(&b, "grad_avg", r.grad_avg());
    return b;
  };
  k.load = [](const SavedBuffers& saved) -> std::unique_ptr<OptimizerParamState> {
    auto s = std::make_unique<State>();
    s->step(saved.Long("step"));
    s->square_avg(saved.Like("square_avg"));
    s->momentum_buffer(saved.Like("momentum_buffer", /*required=*/false));
    s->grad_avg(saved.Like("grad_avg", /*required=*/false));
    return s;
  };
  return k;
}

// A null `eval` becomes iter*5/4, libtorch's own default, set here on every options object:
// libtorch fills it in only on the defaults and group of an optimizer whose defaults lack it,
// and its step reads the group's value unchecked (an optimizer restored from a state, whose
// defaults carried eval and whose group did not, stepped on an empty optional). `search` is
// null (no line search) or strong_wolfe, the one line search libtorch has.
torch::optim::LBFGSOptions LbfgsOptions(const OptionSet& o) {
  auto options = torch::optim::LBFGSOptions(o.Double("lr"))
                     .max_iter(o.Long("iter"))
                     .tolerance_grad(o.Double("gradtol"))
                     .tolerance_change(o.Double("changetol"))
                     .history_size(o.Long("history"));
  options.max_eval(o.IsNull("eval") ? o.Long("iter") * 5 / 4 : o.Long("eval"));
  if (!o.IsNull("search")) {
    if (o.Symbol("search") != "strong_wolfe") {
      Fail("lbfgs: unrecognized search `%s, expecting strong_wolfe", o.Symbol("search"));
    }
    options.line_search_fn(o.Symbol("search"));
  }
  return options;
}

// lbfgs's `eval: null stands for libtorch's iter*5/4, which ktorch echoes.
OptionSpec LbfgsEval() {
  OptionSpec spec{"eval", OptionType::kLongOrNull, {}};
  spec.null_stands_for = [](const OptionSet& o) { return OptionValue(o.Long("iter") * 5 / 4); };
  return spec;
}

// lbfgs's `search: echoed only when set, as ktorch does.
OptionSpec LbfgsSearch() {
  OptionSpec spec{"search", OptionType::kSymbolOrNull, {}};
  spec.null_echo = OptionSpec::NullEcho::kOmitted;
  return spec;
}

// libtorch keeps lbfgs's state under the first parameter only: counts, the last step size and
// loss, the search direction, the curvature histories, the last flat gradient and the scratch
// coefficients of the two-loop recursion (written before they are read: not saved).
OptimizerKind Lbfgs() {
  using State = torch::optim::LBFGSParamState;
  OptimizerKind k = Kind<torch::optim::LBFGS>("lbfgs",
                                              {{"lr", OptionType::kDouble, 1.0},
                                               {"iter", OptionType::kLong, std::int64_t{20}},
                                               LbfgsEval(),
                                               {"gradtol", OptionType::kDouble, 1e-7},
                                               {"changetol", OptionType::kDouble, 1e-9},
                                               {"history", OptionType::kLong, std::int64_t{100}},
                                               LbfgsSearch()},
                                              {"func_evals", "n_iter", "t", "prev_loss", "d", "H_diag",
                                               "prev_flat_grad", "old_dirs", "old_stps", "ro"},
                                              &LbfgsOptions);
  k.scalars = 4;  // func_evals, n_iter, t, prev_loss
  k.state = [](const OptimizerParamState& s) {
    const auto& l = static_cast<const State&>(s);
    std::vector<at::Tensor> all = Defined({l.d(), l.H_diag(), l.prev_flat_grad()});
    for (const auto* history : {&l.old_dirs(), &l.old_stps(), &l.ro()}) {
      all.insert(all.end(), history->begin(), history->end());
    }
    if (l.al()) {
      const std::vector<at::Tensor> al = Defined(*l.al());
      all.insert(all.end(), al.begin(), al.end());
    }
    return all;
  };
  k.save = [](const OptimizerParamState& s) {
    const auto& l = static_cast<const State&>(s);
    OptimizerBuffers b{{"func_evals", Count(l.func_evals())},
                       {"n_iter", Count(l.n_iter())},
                       {"t", Value(l.t())},
                       {"prev_loss", Value(l.prev_loss())}};
    Put(&b, "d", l.d());
    Put(&b, "H_diag", l.H_diag());
    Put(&b, "prev_flat_grad", l.prev_flat_grad());
    Put(&b, "old_dirs", Stack(l.old_dirs()));
    Put(&b, "old_stps", Stack(l.old_stps()));
    Put(&b, "ro", Stack(l.ro()));
    return b;
  };
  k.load = [](const SavedBuffers& saved) -> std::unique_ptr<OptimizerParamState> {
    auto s = std::make_unique<State>();
    s->func_evals(saved.Long("func_evals"));
    s->n_iter(saved.Long("n_iter"));
    s->t(saved.Double("t"));
    s->prev_loss(saved.Double("prev_loss"));
    s->d(saved.Any("d"));
    s->H_diag(saved.Any("H_diag"));
    s->prev_flat_grad(saved.Any("prev_flat_grad"));
    s->old_dirs(Unstack(saved.Any("old_dirs")));
    s->old_stps(Unstack(saved.Any("old_stps")));
    s->ro(Unstack(saved.Any("ro")));
    return s;
  };
  k.step_refusal = "LBFGS optimizer requires model, loss & inputs";
  k.groups = false;
  return k;
}

LambOptions LambOptionsOf(const OptionSet& o) {
  return LambOptions(o.Double("lr"))
      .betas(std::make_tuple(o.Double("beta1"), o.Double("beta2")))
      .eps(o.Double("eps"))
      .weight_decay(o.Double("decay"))
      .unbiased(o.Bool("unbiased"))
      .globalnorm(o.Bool("globalnorm"))
      .trustclip(o.Bool("trustclip"))
      .trustmin(o.Double("trustmin"))
      .trustmax(o.Double("trustmax"));
}

OptimizerKind LambKind() {
  OptimizerKind k = Kind<Lamb>("lamb",
                               {{"lr", OptionType::kDouble, 0.001},
                                {"beta1", OptionType::kDouble, 0.9},
                                {"beta2", OptionType::kDouble, 0.999},
                                {"eps", OptionType::kDouble, 1e-8},
                                {"decay", OptionType::kDouble, 0.0},
                                {"unbiased", OptionType::kBool, true},
                                {"globalnorm", OptionType::kBool, true},
                                {"trustclip", OptionType::kBool, true},
                                {"trustmin", OptionType::kDouble, 0.0},
                                {"trustmax", OptionType::kDouble, 1.0}},
                               {"step", "exp_avg", "exp_avg_sq"}, &LambOptionsOf);
  k.state = [](const OptimizerParamState& s) {
    const auto& l = static_cast<const LambParamState&>(s);
    return Defined({l.exp_avg(), l.exp_avg_sq()});
  };
  k.scalars = 1;  // step
  k.save = [](const OptimizerParamState& s) {
    const auto& l = static_cast<const LambParamState&>(s);
    OptimizerBuffers b{{"step", Count(l.step())}};
    Put(&b, "exp_avg", l.exp_avg());
    Put(&b, "exp_avg_sq", l.exp_avg_sq());
    return b;
  };
  k.load = [](const SavedBuffers& saved) -> std::unique_ptr<OptimizerParamState> {
    auto s = std::make_unique<LambParamState>();
    s->step(saved.Long("step"));
    s->exp_avg(saved.Like("exp_avg"));
    s->exp_avg_sq(saved.Like("exp_avg_sq"));
    return s;
  };
  return k;
}

std::vector<OptimizerKind> Kinds() {
  std::vector<OptimizerKind> kinds;
  kinds.push_back(Sgd());
  kinds.push_back(AdamLike<torch::optim::Adam, torch::optim::AdamOptions, torch::optim::AdamParamState>("adam", 0.0));
  kinds.push_back(
      AdamLike<torch::optim::AdamW, torch::optim::AdamWOptions, torch::optim::AdamWParamState>("adamw", 0.01));
  kinds.push_back(Adagrad());
  kinds.push_back(Rmsprop());
  kinds.push_back(Lbfgs());
  kinds.push_back(LambKind());
  return kinds;
}

}  // namespace

const OptimizerKind* FindOptimizerKind(absl::string_view name) {
  // A handful of kinds: a linear search. Never destroyed, like the module table.
  static const auto* const kinds = new std::vector<OptimizerKind>(Kinds());
  for (const OptimizerKind& k : *kinds) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

const std::vector<std::string>& OptimizerKindNames() {
  static const auto* const names = new std::vector<std::string>([] {
    std::vector<std::string> out;
    for (const OptimizerKind& k : Kinds()) out.push_back(k.name);
    return out;
  }());
  return *names;
}

}  // namespace kscope::nn
