// Adapters for object state: state (modules, losses, optimizers, models) and clone.
#include "api/core/pointer.h"
#include "api/nn/loss.h"
#include "api/nn/module_state.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/convert/k_definition.h"
#include "q/convert/k_model_state.h"
#include "q/convert/k_module_state.h"
#include "q/convert/k_optimizer_state.h"
#include "q/env/settings.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// state p | state(p;flag): what module, loss or opt recreate the object from.
K State(K x) {
  return Guard([&] {
    const Args a("state", x);
    if (a.size() != 1 && a.size() != 2) a.Unrecognized();
    const Handle p = a.PointerAt(0);
    const bool all = a.size() == 2 ? a.BoolAt(1) : AllOptions();
    switch (const ObjectClass c = class_(p)) {
      case ObjectClass::kModule: return KFromModuleState(state(p, all));
      case ObjectClass::kLoss: {
        const LossDescription d = describe_loss(p, all);
        return KFromLossDescription(d);
      }
      case ObjectClass::kOptimizer: return KFromOptimizerState(p, all);
      case ObjectClass::kModel: return KFromModelState(model_state(p, all));
      default: Fail("state: expected module, loss, optimizer or model, given %s", ClassName(c));
    }
  });
}

K Clone(K x) {
  return Guard([&] { return Pointer(clone(Args("clone", x).PointerAt(0))); });
}

}  // namespace

std::vector<Export> StateExports() { return {Unary("state", State), Unary("clone", Clone)}; }

}  // namespace kscope::q
