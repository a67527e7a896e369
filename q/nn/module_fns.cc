// Adapters for modules: module seq forward kforward nforward eforward evaluate parmnames parm parms
// childnames child children training.
#include "api/core/pointer.h"
#include "api/model/model.h"
#include "api/model/model_run.h"
#include "api/nn/module.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/convert/k_definition.h"
#include "q/convert/k_model_data.h"
#include "q/convert/k_module_state.h"
#include "q/env/settings.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// module(q;[depth;]defn) | module(q;[depth;]child): extends q; the child pointer is consumed.
K Extend(const Args& a) {
  const bool at_depth = a.size() == 3;
  const std::size_t last = at_depth ? 2 : 1;
  const int depth = at_depth ? static_cast<int>(a.LongAt(1)) : 1;
  if (a.IsPointerAt(last)) {
    module(a.PointerAt(0), a.PointerAt(last), depth);
  } else {
    module(a.PointerAt(0), depth, DefinitionFromK(a[last]));
  }
  return K{nullptr};
}

// module defn | module q | module m (the model's module) | module(q;flag) |
// module(q;[depth;]defn|child)
K Module(K x) {
  return Guard([&] {
    if (IsPointer(x) && class_(HandleOf(x)) == ObjectClass::kModel)
      return Pointer(model_module(HandleOf(x)));
    if (IsPointer(x)) return KFromModuleRows(describe(HandleOf(x), AllOptions()));
    if (IsModuleTable(x))
      return Pointer(ModuleFromK(x));  // a description or state (q/convert/k_module_state.h)
    const Args a("module", x);
    if (a.size() == 2 && a.IsPointerAt(0) && a[1]->t == -kabi::kBoolean)
      return KFromModuleRows(describe(a.PointerAt(0), a.BoolAt(1)));
    if ((a.size() == 2 || a.size() == 3) && a.IsPointerAt(0)) return Extend(a);
    return Pointer(module(DefinitionFromK(x)));
  });
}

// seq(head;l1;l2;..) -> (head; enlist l1; enlist l2; ..), the 2-level tree module expects.
K Seq(K x) {
  return Guard([&] {
    const Args a("seq", x);
    if (a.size() < 2) a.Unrecognized();
    K tree = kabi::ktn(kabi::kMixed, static_cast<long long>(a.size()));
    kabi::Items(tree)[0] = kabi::r1(a[0]);
    for (std::size_t i = 1; i < a.size(); ++i) kabi::Items(tree)[i] = kabi::knk(1, kabi::r1(a[i]));
    return tree;
  });
}

// A general list (not itself a pointer) with a pointer among its items.
bool HoldsPointer(K x) {
  if (x->t != kabi::kMixed || IsPointer(x)) return false;
  for (long long i = 0; i < x->n; ++i) {
    if (IsPointer(kabi::Items(x)[i])) return true;
  }
  return false;
}

// ktorch's forward, kforward, nforward and eforward give a pointer whatever the inputs were;
// evaluate gives k data.
K ForwardResult(const char* fn, ForwardMode mode, const Result& r) {
  return mode == ForwardMode::kEvaluate ? KFromResult(r) : PointerFromResult(fn, r);
}

// forward(q;x..) | forward(q;`child;x..) | forward m, and the same for kforward nforward eforward
// evaluate; q may be a model. As in ktorch, a vector's tensors are the inputs, so are the
// tensors a selection names ((vector;index), (dictionary;key), api/core/selection.h), and so are
// the items of a list holding a pointer: forward(m;(x;mask)). k data given to a form that returns a
// pointer is copied, so the result (a layer may return its input: identity, flatten) never
// shares q's memory.
K RunForward(const char* fn, ForwardMode mode, K x) {
  return Guard([&] {
    if (IsPointer(x) && class_(HandleOf(x)) == ObjectClass::kModel) {
      return ForwardResult(fn, mode, model_forward(HandleOf(x), mode));
    }
    const Args a(fn, x);
    if (a.size() < 2) a.Unrecognized();
    const bool named_child = a.IsSymbolAt(1);
    std::vector<Operand> inputs;
    const auto add = [&](const Args& from, std::size_t i) {
      inputs.push_back(mode == ForwardMode::kEvaluate ? from.InputAt(i) : from.OperandAt(i));
    };
    for (std::size_t i = named_child ? 2 : 1; i < a.size(); ++i) {
      if (AddContainerInputs(fn, a[i], &inputs)) continue;  // a vector's or selection's tensors
      if (HoldsPointer(a[i])) {  // (x;mask): several inputs in one list, as ktorch takes them
        const Args items(fn, a[i]);
        for (std::size_t j = 0; j < items.size(); ++j) add(items, j);
      } else {
        add(a, i);
      }
    }
    OwnDataBesideHandles(&inputs);
    return ForwardResult(fn, mode,
                         forward(a.PointerAt(0), inputs, mode, named_child ? a.SymbolAt(1) : ""));
  });
}

K Forward(K x) { return RunForward("forward", ForwardMode::kForward, x); }
// kforward(q;`child;x) inside a callback: the same as forward (the module's training flag, the
// thread's grad mode).
K Kforward(K x) { return RunForward("kforward", ForwardMode::kForward, x); }
K Nforward(K x) { return RunForward("nforward", ForwardMode::kNoGrad, x); }
K Eforward(K x) { return RunForward("eforward", ForwardMode::kEval, x); }
K Evaluate(K x) { return RunForward("evaluate", ForwardMode::kEvaluate, x); }

K Parmnames(K x) {
  return Guard([&] {
    const auto [q, child] = PointerAndNameOf(Args("parmnames", x));
    return Symbols(parmnames(q, child));
  });
}

// parm(q;name) -> a tensor pointer sharing the parameter; parm(q;name;value) copies value in.
K Parm(K x) {
  return Guard([&] {
    const Args a("parm", x);
    if (a.size() == 3) {
      parm(a.PointerAt(0), a.SymbolAt(1), a.InputAt(2));
      return K{nullptr};
    }
    if (a.size() != 2) a.Unrecognized();
    return Pointer(parm(a.PointerAt(0), a.SymbolAt(1)));
  });
}

K Parms(K x) {
  return Guard([&] {
    const auto [q, child] = PointerAndNameOf(Args("parms", x));
    return Pointer(parms(q, child));
  });
}

K Childnames(K x) {
  return Guard([&] {
    const auto [q, child] = PointerAndNameOf(Args("childnames", x));
    return Symbols(childnames(q, child));
  });
}

// child(q;name) or child(q;index)
K Child(K x) {
  return Guard([&] {
    const Args a("child", x);
    if (a.size() != 2) a.Unrecognized();
    if (a.IsSymbolAt(1)) return Pointer(child(a.PointerAt(0), a.SymbolAt(1)));
    return Pointer(child(a.PointerAt(0), a.LongAt(1)));
  });
}

// children q | children(q;`child) -> a dictionary name -> new module pointers
K Children(K x) {
  return Guard([&] {
    const auto [q, child] = PointerAndNameOf(Args("children", x));
    return KDictionary(children(q, child), [](Handle h) { return Pointer(h); });
  });
}

K Training(K x) {
  return Guard([&] {
    const Args a("training", x);
    if (IsPointer(x)) return kabi::kb(training(HandleOf(x)));
    if (a.size() != 2) a.Unrecognized();
    training(a.PointerAt(0), a.BoolAt(1));
    return K{nullptr};
  });
}

}  // namespace

std::vector<Export> ModuleExports() {
  return {Unary("module", Module),
          Unary("seq", Seq),
          Unary("forward", Forward),
          Unary("nforward", Nforward),
          Unary("kforward", Kforward),
          Unary("eforward", Eforward),
          Unary("evaluate", Evaluate),
          Unary("parmnames", Parmnames),
          Unary("parm", Parm),
          Unary("parms", Parms),
          Unary("childnames", Childnames),
          Unary("child", Child),
          Unary("children", Children),
          Unary("training", Training)};
}

}  // namespace kscope::q
