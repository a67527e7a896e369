// Adapters for losses: loss, and the functional losses (ce nll mse l1 bce kl softmargin
// smoothl1 huber bcelogit1 bcelogit2 multilabel multisoft multimargin poissonloss hinge
// cosineloss margin triplet ctc). bcelogit1 and bcelogit2 are ktorch's functional forms of
// bcelogits: (yhat;y;classwt;reduce) without, and (yhat;y;w;classwt;reduce) with batch weights.
// pairwise and similar are exported with the functional forms of layers (functional_fns.cc).
#include <iterator>
#include <utility>

#include "api/core/pointer.h"
#include "api/model/model.h"
#include "api/model/model_run.h"
#include "api/nn/loss.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/convert/form_args.h"
#include "q/convert/k_definition.h"
#include "q/convert/k_model_data.h"
#include "q/env/settings.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// The inputs after the loss or model in loss(l;..): each argument one input, except that a
// vector pointer gives its tensors and a selection ((vector;indices), (dictionary;key), ..) the
// tensors it names, as in ktorch. k data is copied: the result, a pointer, may keep it.
std::vector<Operand> LossInputs(const Args& a) {
  std::vector<Operand> inputs;
  for (std::size_t i = 1; i < a.size(); ++i) {
    if (AddContainerInputs("loss", a[i], &inputs)) continue;
    if (a.IsPointerAt(i) && class_(a.PointerAt(i)) == ObjectClass::kDictionary)
      Fail("loss: arg[%d] is a dictionary: give its inputs by key, (dictionary;keys)", i);
    inputs.push_back(a.OperandAt(i));
  }
  return inputs;
}

// loss`kind | loss(`kind;opts..) | loss kdict | loss m (the model's loss) | loss(m;yhat;y) | loss l
// | loss(l;flag) | loss(l;inputs..). A loss object or a model applied to inputs answers with a
// pointer whatever the inputs' form, as ktorch's.
K Loss(K x) {
  return Guard([&] {
    const Args a("loss", x);
    if (IsPointer(x) && class_(HandleOf(x)) == ObjectClass::kModel)
      return Pointer(model_loss(HandleOf(x)));
    if (IsPointer(x) || (a.size() == 2 && a.IsPointerAt(0) && a[1]->t == -kabi::kBoolean)) {
      const LossDescription d =
          describe_loss(a.PointerAt(0), a.size() == 2 ? a.BoolAt(1) : AllOptions());
      return KFromLossDescription(d);
    }
    if (x->t == kabi::kDictionary) return Pointer(loss(LossDescriptionFromK(x)));
    if (a.size() >= 2 && a.IsPointerAt(0)) {
      const std::vector<Operand> inputs = LossInputs(a);
      if (class_(a.PointerAt(0)) != ObjectClass::kModel)
        return PointerFromResult("loss", loss(a.PointerAt(0), inputs));
      if (inputs.size() != 2)
        Fail("loss: a model's loss takes an output and a target, given %d input(s)", inputs.size());
      return PointerFromResult("loss", model_loss(a.PointerAt(0), inputs[0], inputs[1]));
    }
    std::vector<nn::OptionValue> positional;
    nn::NamedValues named;
    if (x->t == kabi::kSymbol && x->n > 0) {  // (`mse;`sum) is the symbol list `mse`sum in q
      for (long long i = 1; i < x->n; ++i)
        positional.emplace_back(std::string(kabi::Symbols(x)[i]));
      return Pointer(loss(kabi::Symbols(x)[0], positional, named));
    }
    const std::string kind = a.SymbolAt(0);
    if (x->t == kabi::kMixed)
      OptionsFromK(kind.c_str(), x, 1, loss_signature(kind).options, &positional, &named);
    return Pointer(loss(kind, positional, named));
  });
}

// A functional loss: its q name, its loss kind, and how many inputs it takes (0: as many as
// the kind takes, an optional one included).
struct LossForm {
  const char* name;
  const char* kind;
  std::size_t inputs;
};

constexpr LossForm kLossForms[] = {
    {"ce", "ce", 0},
    {"nll", "nll", 0},
    {"mse", "mse", 0},
    {"l1", "l1", 0},
    {"bce", "bce", 0},
    {"kl", "kl", 0},
    {"softmargin", "softmargin", 0},
    {"smoothl1", "smoothl1", 0},
    {"huber", "huber", 0},
    {"bcelogit1", "bcelogits", 2},
    {"bcelogit2", "bcelogits", 3},
    {"multilabel", "multilabel", 0},
    {"multisoft", "multisoft", 0},
    {"multimargin", "multimargin", 0},
    {"poissonloss", "poissonloss", 0},
    {"hinge", "hinge", 0},
    {"cosineloss", "cosineloss", 0},
    {"margin", "margin", 0},
    {"triplet", "triplet", 0},
    {"ctc", "ctc", 0},
};

// f(inputs..;options..)
K LossFunction(const LossForm& form, K x) {
  return Guard([&] {
    Signature s = loss_signature(form.kind);
    if (form.inputs != 0) s.fewest_inputs = s.most_inputs = form.inputs;
    const FormArgs f = FormArgsFromK(form.name, x, s);
    return KFromResult(loss_function(form.kind, f.inputs, f.positional, f.named));
  });
}

template <std::size_t I>
K LossFormCall(K x) {
  return LossFunction(kLossForms[I], x);
}

template <std::size_t... I>
std::vector<Export> LossFormExports(std::index_sequence<I...>) {
  return {Unary(kLossForms[I].name, LossFormCall<I>)...};
}

}  // namespace

std::vector<Export> LossExports() {
  std::vector<Export> exports = LossFormExports(std::make_index_sequence<std::size(kLossForms)>());
  exports.insert(exports.begin(), Unary("loss", Loss));
  return exports;
}

}  // namespace kscope::q
