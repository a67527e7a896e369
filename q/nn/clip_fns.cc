// Adapters for clipping gradients: clip clipv.
#include <algorithm>
#include <cmath>

#include "api/core/pointer.h"
#include "api/model/model.h"
#include "api/nn/clip.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// Norms as k: a float list.
K Floats(const std::vector<double>& norms) {
  K v = kabi::ktn(kabi::kFloat, static_cast<long long>(norms.size()));
  std::copy(norms.begin(), norms.end(), kabi::Floats(v));
  return v;
}

// clip m -> by the model's training options: the previous norm, one per group under
// `clipgroup, or 0n when clipping by value or not at all.
K ClipByOptions(Handle m) {
  const std::vector<double> norms = clip_by_options(m);
  if (norms.empty()) return kabi::kf(kabi::kNullFloat);
  return run_options(m, nn::DataMode::kTrain).clipgroup ? Floats(norms) : kabi::kf(norms.front());
}

// clip m | clip(p;maxnorm) | (p;maxnorm;normtype) | (p;maxnorm;groupflag) |
// (p;maxnorm;normtype;groupflag)
// -> the previous norm; one per group with the group flag on an optimizer or a model.
K Clip(K x) {
  return Guard([&] {
    const Args a("clip", x);
    if (IsPointer(x)) return ClipByOptions(HandleOf(x));
    if (a.size() < 2 || a.size() > 4) a.Unrecognized();
    const bool flagged = a[a.size() - 1]->t == -kabi::kBoolean;
    const std::size_t numbers = a.size() - (flagged ? 1 : 0);
    if (numbers < 2 || numbers > 3 || (a.size() == 4 && !flagged)) a.Unrecognized();
    const Handle h = a.PointerAt(0);
    const double max_norm = a.DoubleAt(1);
    const double norm_type = numbers == 3 ? a.DoubleAt(2) : 2.0;
    const ObjectClass c = class_(h);
    if (flagged && a.BoolAt(a.size() - 1) &&
        (c == ObjectClass::kOptimizer || c == ObjectClass::kModel)) {
      return Floats(clip_groups(h, max_norm, norm_type));
    }
    return kabi::kf(clip(h, max_norm, norm_type));
  });
}

// clipv(p;value) -> 0n
K Clipv(K x) {
  return Guard([&] {
    const Args a("clipv", x);
    if (a.size() != 2) a.Unrecognized();
    clipv(a.PointerAt(0), a.DoubleAt(1));
    return kabi::kf(kabi::kNullFloat);
  });
}

}  // namespace

std::vector<Export> ClipExports() { return {Unary("clip", Clip), Unary("clipv", Clipv)}; }

}  // namespace kscope::q
