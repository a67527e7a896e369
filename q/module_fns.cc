// Adapters for modules: module seq forward nforward eforward evaluate parmnames parm parms
// childnames child children training.
#include "api/module.h"
#include "q/args.h"
#include "q/convert.h"
#include "q/definition.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// module q: a dictionary `module`name`options for a single module, a table
// `depth`module`name`options for a container.
K Describe(Handle q, bool all) {
  const std::vector<ModuleRow> rows = describe(q, all);
  if (rows.size() == 1) {
    return kabi::xD(Symbols({"module", "name", "options"}),
                    kabi::knk(3, Symbol(rows[0].kind), Symbol(rows[0].name), KFromOptions(rows[0].options)));
  }
  std::vector<std::int64_t> depth;
  std::vector<std::string> kind, name;
  K options = kabi::ktn(kabi::kMixed, static_cast<long long>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    depth.push_back(rows[i].depth);
    kind.push_back(rows[i].kind);
    name.push_back(rows[i].name);
    kabi::Items(options)[i] = KFromOptions(rows[i].options);
  }
  return kabi::xT(kabi::xD(Symbols({"depth", "module", "name", "options"}),
                           kabi::knk(4, KFromLongs(depth), Symbols(kind), Symbols(name), options)));
}

// module defn | module q | module(q;flag) | module(q;defn)
K Module(K x) {
  return Guard([&] {
    if (IsPointer(x)) return Describe(HandleOf(x), true);
    const Args a("module", x);
    if (a.size() == 2 && a.IsPointerAt(0)) {
      if (a[1]->t == -kabi::kBoolean) return Describe(a.PointerAt(0), a.BoolAt(1));
      module(a.PointerAt(0), DefinitionFromK(a[1]));
      return K{nullptr};
    }
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

// forward(q;x..) | forward(q;`child;x..), and the same for nforward eforward evaluate.
K RunForward(const char* fn, ForwardMode mode, K x) {
  return Guard([&] {
    const Args a(fn, x);
    if (a.size() < 2) a.Unrecognized();
    const bool named_child = a.IsSymbolAt(1);
    std::vector<Operand> inputs;
    for (std::size_t i = named_child ? 2 : 1; i < a.size(); ++i) inputs.push_back(a.InputAt(i));
    return KFromResult(forward(a.PointerAt(0), inputs, mode, named_child ? a.SymbolAt(1) : ""));
  });
}

K Forward(K x) { return RunForward("forward", ForwardMode::kForward, x); }
K Nforward(K x) { return RunForward("nforward", ForwardMode::kNoGrad, x); }
K Eforward(K x) { return RunForward("eforward", ForwardMode::kEval, x); }
K Evaluate(K x) { return RunForward("evaluate", ForwardMode::kEvaluate, x); }

K Parmnames(K x) { return Guard([&] { return Symbols(parmnames(Args("parmnames", x).PointerAt(0))); }); }

K Parm(K x) {
  return Guard([&] {
    const Args a("parm", x);
    if (a.size() != 2) a.Unrecognized();
    return Pointer(parm(a.PointerAt(0), a.SymbolAt(1)));
  });
}

K Parms(K x) { return Guard([&] { return Pointer(parms(Args("parms", x).PointerAt(0))); }); }

K Childnames(K x) { return Guard([&] { return Symbols(childnames(Args("childnames", x).PointerAt(0))); }); }

K Child(K x) {
  return Guard([&] {
    const Args a("child", x);
    if (a.size() != 2) a.Unrecognized();
    return Pointer(child(a.PointerAt(0), a.SymbolAt(1)));
  });
}

// children q -> a dictionary name -> new module pointers
K Children(K x) {
  return Guard([&] {
    const std::vector<std::pair<std::string, Handle>> found = children(Args("children", x).PointerAt(0));
    std::vector<std::string> names;
    K pointers = kabi::ktn(kabi::kMixed, static_cast<long long>(found.size()));
    for (std::size_t i = 0; i < found.size(); ++i) {
      names.push_back(found[i].first);
      kabi::Items(pointers)[i] = Pointer(found[i].second);
    }
    return kabi::xD(Symbols(names), pointers);
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
  return {Unary("module", Module),       Unary("seq", Seq),           Unary("forward", Forward),
          Unary("nforward", Nforward),   Unary("eforward", Eforward), Unary("evaluate", Evaluate),
          Unary("parmnames", Parmnames), Unary("parm", Parm),         Unary("parms", Parms),
          Unary("childnames", Childnames), Unary("child", Child),     Unary("children", Children),
          Unary("training", Training)};
}

}  // namespace kscope::q
