// Adapters for losses: loss, and the functional losses (ce mse nll l1 bce kl softmargin
// smoothl1 huber bcelogit1 multilabel multisoft multimargin poissonloss hinge cosineloss
// margin triplet). bcelogit1 is ktorch's functional form of bcelogits (class weights, no batch
// weights).
#include "api/loss.h"
#include "q/args.h"
#include "q/convert.h"
#include "q/definition.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// loss`kind | loss(`kind;opts..) | loss l | loss(l;flag) | loss(l;yhat;y) | loss(l;x1;x2;y)
K Loss(K x) {
  return Guard([&] {
    const Args a("loss", x);
    if (IsPointer(x) || (a.size() == 2 && a.IsPointerAt(0) && a[1]->t == -kabi::kBoolean)) {
      const LossDescription d = describe_loss(a.PointerAt(0), a.size() == 2 ? a.BoolAt(1) : true);
      return kabi::xD(Symbols({"module", "options"}), kabi::knk(2, Symbol(d.kind), KFromOptions(d.options)));
    }
    if (a.size() == 3 && a.IsPointerAt(0)) return KFromResult(loss(a.PointerAt(0), a.InputAt(1), a.InputAt(2)));
    if (a.size() == 4 && a.IsPointerAt(0)) {
      return KFromResult(loss(a.PointerAt(0), a.InputAt(1), a.InputAt(2), a.InputAt(3)));
    }
    std::vector<nn::OptionValue> positional;
    nn::NamedValues named;
    if (x->t == kabi::kSymbol && x->n > 0) {  // (`mse;`sum) is the symbol list `mse`sum in q
      for (long long i = 1; i < x->n; ++i) positional.emplace_back(std::string(kabi::Symbols(x)[i]));
      return Pointer(loss(kabi::Symbols(x)[0], positional, named));
    }
    const std::string kind = a.SymbolAt(0);
    if (x->t == kabi::kMixed) OptionsFromK(kind.c_str(), x, 1, loss_options(kind), &positional, &named);
    return Pointer(loss(kind, positional, named));
  });
}

// f(yhat;y[;options..]) | f(x1;x2;y[;options..]): as many inputs as the kind takes, then options.
K LossFunction(const char* kind, K x) {
  return Guard([&] {
    const Args a(kind, x);
    const std::size_t n = loss_inputs(kind);
    if (a.size() < n) a.Unrecognized();
    std::vector<Operand> inputs;
    for (std::size_t i = 0; i < n; ++i) inputs.push_back(a.InputAt(i));
    std::vector<nn::OptionValue> positional;
    nn::NamedValues named;
    OptionsFromK(kind, x, static_cast<long long>(n), loss_options(kind), &positional, &named);
    return KFromResult(loss_function(kind, inputs, positional, named));
  });
}

#define KSCOPE_Q_LOSS(kind) \
  K kind##_(K x) { return LossFunction(#kind, x); }
KSCOPE_Q_LOSS(ce)
KSCOPE_Q_LOSS(nll)
KSCOPE_Q_LOSS(mse)
KSCOPE_Q_LOSS(l1)
KSCOPE_Q_LOSS(bce)
KSCOPE_Q_LOSS(kl)
KSCOPE_Q_LOSS(softmargin)
KSCOPE_Q_LOSS(smoothl1)
KSCOPE_Q_LOSS(huber)
KSCOPE_Q_LOSS(multilabel)
KSCOPE_Q_LOSS(multisoft)
KSCOPE_Q_LOSS(multimargin)
KSCOPE_Q_LOSS(poissonloss)
KSCOPE_Q_LOSS(hinge)
KSCOPE_Q_LOSS(cosineloss)
KSCOPE_Q_LOSS(margin)
KSCOPE_Q_LOSS(triplet)
#undef KSCOPE_Q_LOSS
K bcelogit1_(K x) { return LossFunction("bcelogits", x); }

}  // namespace

std::vector<Export> LossExports() {
  return {Unary("loss", Loss),           Unary("ce", ce_),            Unary("nll", nll_),
          Unary("mse", mse_),            Unary("l1", l1_),            Unary("bce", bce_),
          Unary("kl", kl_),              Unary("softmargin", softmargin_), Unary("smoothl1", smoothl1_),
          Unary("huber", huber_),        Unary("bcelogit1", bcelogit1_), Unary("multilabel", multilabel_),
          Unary("multisoft", multisoft_), Unary("multimargin", multimargin_), Unary("poissonloss", poissonloss_),
          Unary("hinge", hinge_),        Unary("cosineloss", cosineloss_), Unary("margin", margin_),
          Unary("triplet", triplet_)};
}

}  // namespace kscope::q
