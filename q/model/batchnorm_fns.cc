// Adapter for batch normalization statistics: batchnorm.
#include <cmath>

#include "api/model/batchnorm.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

// Momenta as k: a dictionary of layer names -> momentum (0n for null).
K KFromMomenta(const Momenta& momenta) {
  std::vector<std::string> names;
  K values = kabi::ktn(kabi::kFloat, static_cast<long long>(momenta.size()));
  for (std::size_t i = 0; i < momenta.size(); ++i) {
    names.push_back(momenta[i].first);
    kabi::Floats(values)[i] = momenta[i].second.value_or(kabi::kNullFloat);
  }
  return kabi::xD(Symbols(names), values);
}

// A dictionary of symbols -> floats (0n for null) as momenta; an empty dictionary is none.
Momenta MomentaFromK(const Args& a, std::size_t i) {
  K d = a[i];
  if (d->t != kabi::kDictionary) a.Unrecognized();
  K keys = kabi::DictKeys(d), values = kabi::DictValues(d);
  if (keys->n == 0 && values->n == 0) return {};
  if (keys->t != kabi::kSymbol || values->t != kabi::kFloat) {
    Fail("batchnorm: expected dictionary of layer names -> momentum (floats), given %s -> %s",
         KName(keys), KName(values));
  }
  Momenta momenta;
  for (long long j = 0; j < keys->n; ++j) {
    const double m = kabi::Floats(values)[j];
    momenta.emplace_back(kabi::Symbols(keys)[j],
                         std::isnan(m) ? std::nullopt : std::optional<double>(m));
  }
  return momenta;
}

// batchnorm q -> layer names -> original momenta (the statistics recomputed for a model with
// training data) | batchnorm(q;d) -> the momenta set from d, ::
K Batchnorm(K x) {
  return Guard([&] {
    const Args a("batchnorm", x);
    if (IsPointer(x)) return KFromMomenta(batchnorm(HandleOf(x)));
    if (a.size() != 2) a.Unrecognized();
    batchnorm(a.PointerAt(0), MomentaFromK(a, 1));
    return K{nullptr};
  });
}

}  // namespace

std::vector<Export> BatchnormExports() { return {Unary("batchnorm", Batchnorm)}; }

}  // namespace kscope::q
