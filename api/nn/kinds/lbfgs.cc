// The lbfgs optimizer kind: ktorch's options over libtorch's LBFGS, and its state saved and
// restored. It can be defined and queried but not stepped by itself (its step needs a closure:
// ktorch's backstep/run on models).
#include <deque>

#include <ATen/ATen.h>
#include <torch/optim/lbfgs.h>

#include "api/nn/kinds/optimizer_families.h"
#include "runtime/errors.h"

namespace kscope::nn {
namespace {

using torch::optim::OptimizerParamState;

// A history (lbfgs) as one tensor, one row per entry; undefined when empty.
at::Tensor Stack(const std::deque<at::Tensor>& history) {
  return history.empty() ? at::Tensor()
                         : at::stack(std::vector<at::Tensor>(history.begin(), history.end()));
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
}  // namespace

OptimizerKind LbfgsKind() {
  using State = torch::optim::LBFGSParamState;
  OptimizerKind k = MakeOptimizerKind<torch::optim::LBFGS>(
      "lbfgs",
      {{"lr", OptionType::kDouble, 1.0},
       {"iter", OptionType::kLong, std::int64_t{20}},
       LbfgsEval(),
       {"gradtol", OptionType::kDouble, 1e-7},
       {"changetol", OptionType::kDouble, 1e-9},
       {"history", OptionType::kLong, std::int64_t{100}},
       LbfgsSearch()},
      {"func_evals", "n_iter", "t", "prev_loss", "d", "H_diag", "prev_flat_grad", "old_dirs",
       "old_stps", "ro"},
      &LbfgsOptions);
  k.scalars = 4;  // func_evals, n_iter, t, prev_loss
  k.state = [](const OptimizerParamState& s) {
    const auto& l = static_cast<const State&>(s);
    std::vector<at::Tensor> all = DefinedTensors({l.d(), l.H_diag(), l.prev_flat_grad()});
    for (const auto* history : {&l.old_dirs(), &l.old_stps(), &l.ro()}) {
      all.insert(all.end(), history->begin(), history->end());
    }
    if (l.al()) {
      const std::vector<at::Tensor> al = DefinedTensors(*l.al());
      all.insert(all.end(), al.begin(), al.end());
    }
    return all;
  };
  k.save = [](const OptimizerParamState& s) {
    const auto& l = static_cast<const State&>(s);
    OptimizerBuffers b{{"func_evals", CountBuffer(l.func_evals())},
                       {"n_iter", CountBuffer(l.n_iter())},
                       {"t", ValueBuffer(l.t())},
                       {"prev_loss", ValueBuffer(l.prev_loss())}};
    PutBuffer(&b, "d", l.d());
    PutBuffer(&b, "H_diag", l.H_diag());
    PutBuffer(&b, "prev_flat_grad", l.prev_flat_grad());
    PutBuffer(&b, "old_dirs", Stack(l.old_dirs()));
    PutBuffer(&b, "old_stps", Stack(l.old_stps()));
    PutBuffer(&b, "ro", Stack(l.ro()));
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

}  // namespace kscope::nn
