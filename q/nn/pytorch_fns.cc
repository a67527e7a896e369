// kscope's own q functions for models that move between PyTorch and kscope: state dicts
// (api/nn/state_dict.h) and TorchScript modules (api/nn/torchscript.h; loaded as a module kind,
// module(`torchscript;`:file)):
//
//   savestatedict(q;file)        q's (a module's or a model's module's) parameters and buffers
//                                as a file Python's torch.load and load_state_dict read; ::
//   loadstatedict(q;file)        a state dict saved by Python (torch.save(model.state_dict(),f))
//                                or by savestatedict loaded into q by name, strictly; returns
//                                `missing`unexpected!(`$();`$())
//   loadstatedict(q;file;0b)     not strict: the names in both are loaded; returns the names
//                                of q the file lacks (missing) and of the file q lacks
//   savescript(q;file)           q, a torchscript module (or a model of one), with its values
//                                now, as a file Python's torch.jit.load reads; ::
// file is a symbol, `:path or `path.
#include <string>
#include <vector>

#include "api/nn/state_dict.h"
#include "api/nn/torchscript.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/exports.h"
#include "q/guard.h"

namespace kscope::q {
namespace {

using kabi::K;

K SaveStateDict(K x) {
  return Guard([&] {
    const Args a("savestatedict", x);
    if (a.size() != 2) a.Unrecognized();
    save_state_dict(a.PointerAt(0), a.FileAt(1));
    return K{nullptr};
  });
}

K LoadStateDict(K x) {
  return Guard([&] {
    const Args a("loadstatedict", x);
    if (a.size() != 2 && a.size() != 3) a.Unrecognized();
    const bool strict = a.size() == 2 || a.BoolAt(2);
    const StateDictKeys left = load_state_dict(a.PointerAt(0), a.FileAt(1), strict);
    return kabi::xD(Symbols({"missing", "unexpected"}),
                    kabi::knk(2, Symbols(left.missing), Symbols(left.unexpected)));
  });
}

K SaveScript(K x) {
  return Guard([&] {
    const Args a("savescript", x);
    if (a.size() != 2) a.Unrecognized();
    save_torchscript(a.PointerAt(0), a.FileAt(1));
    return K{nullptr};
  });
}

}  // namespace

std::vector<Export> PyTorchExports() {
  return {Unary("savestatedict", SaveStateDict), Unary("loadstatedict", LoadStateDict),
          Unary("savescript", SaveScript)};
}

}  // namespace kscope::q
