#include "q/convert/form_args.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/string_view.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/convert/k_definition.h"

namespace kscope::q {
namespace {

// A pointer or a k array (nested general lists included): what an optional input may be.
bool IsInput(kabi::K x) {
  return IsPointer(x) || (x->t >= kabi::kMixed && x->t < kabi::kTable && x->t != kabi::kSymbol);
}

// The forms that read a general list as their one input when its leading items make one array
// (ktorch's activations, flatten, onehot and pdist): relu (1 2.0;3 4.0) is relu of a matrix, not
// relu of 1 2.0 with option 3 4.0.
constexpr absl::string_view kArrayIsTheInput[] = {
    "celu",     "elu",        "flatten",    "gelu",       "glu",       "hardshrink",
    "hardtanh", "leakyrelu",  "logsigmoid", "mish",       "onehot",    "pdist",
    "relu",     "relu6",      "rrelu",      "selu",       "silu",      "softmin",
    "softplus", "softshrink", "softsign",   "tanhshrink", "threshold",
};

// A k array's element type and sizes, or nothing if x is not a (rectangular) array of numbers.
std::optional<std::pair<signed char, std::vector<long long>>> ArrayShape(kabi::K x) {
  if (IsPointer(x)) return std::nullopt;
  if (x->t > 0 && x->t < kabi::kSymbol) return std::make_pair(x->t, std::vector<long long>{x->n});
  if (x->t != kabi::kMixed || x->n == 0) return std::nullopt;
  auto first = ArrayShape(kabi::Items(x)[0]);
  for (long long i = 1; first && i < x->n; ++i) {
    if (ArrayShape(kabi::Items(x)[i]) != first) return std::nullopt;
  }
  if (first) first->second.insert(first->second.begin(), x->n);
  return first;
}

}  // namespace

bool LeadingItemsMakeOneArray(kabi::K x) {
  if (x->t != kabi::kMixed || x->n == 0 || IsPointer(x)) return false;
  const auto first = ArrayShape(kabi::Items(x)[0]);
  if (!first) return false;
  for (long long i = 1; i < std::min<long long>(x->n, 3); ++i) {
    if (ArrayShape(kabi::Items(x)[i]) != first) return false;
  }
  return true;
}

FormArgs FormArgsFromK(const char* fn, kabi::K x, const Signature& signature) {
  FormArgs f;
  if (absl::c_linear_search(kArrayIsTheInput, fn) && LeadingItemsMakeOneArray(x)) {
    f.inputs.push_back(InputFromK(fn, x));
    return f;
  }
  const Args a(fn, x);
  if (a.size() < signature.fewest_inputs) a.Unrecognized();
  std::size_t n = 0;
  while (n < a.size() &&
         (n < signature.fewest_inputs || (n < signature.most_inputs && IsInput(a[n])))) {
    f.inputs.push_back(a.InputAt(n++));
  }
  OwnDataBesideHandles(&f.inputs);
  if (n < a.size())
    OptionsFromK(fn, x, static_cast<long long>(n), signature.options, &f.positional, &f.named);
  return f;
}

}  // namespace kscope::q
