#include "q/form_args.h"

#include "q/args.h"
#include "q/convert.h"
#include "q/definition.h"

namespace kscope::q {
namespace {

// A pointer or a k array (nested general lists included): what an optional input may be.
bool IsInput(kabi::K x) {
  return IsPointer(x) || (x->t >= kabi::kMixed && x->t < kabi::kTable && x->t != kabi::kSymbol);
}

}  // namespace

FormArgs FormArgsFromK(const char* fn, kabi::K x, const Signature& signature) {
  const Args a(fn, x);
  if (a.size() < signature.fewest_inputs) a.Unrecognized();
  FormArgs f;
  std::size_t n = 0;
  while (n < a.size() && (n < signature.fewest_inputs || (n < signature.most_inputs && IsInput(a[n])))) {
    f.inputs.push_back(a.InputAt(n++));
  }
  OwnDataBesideHandles(&f.inputs);
  if (n < a.size()) OptionsFromK(fn, x, static_cast<long long>(n), signature.options, &f.positional, &f.named);
  return f;
}

}  // namespace kscope::q
