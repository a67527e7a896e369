// Adapters for the functional forms of layers (ktorch-api.md §1.6): one table of ktorch's 51
// names drives one export each, all read the same way (q/convert/form_args.h): the inputs, then the
// options of the layer positionally or by name. Tensor handles in -> a handle out, k arrays in
// -> k arrays out. softmax and logsoftmax are in the table but exported by math_fns.cc, as
// softmax(x;dim[;out]) and logsoftmax(x;dim[;out]); the functional forms would clash.
#include <algorithm>
#include <iterator>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/string_view.h"
#include "api/nn/functional.h"
#include "q/convert/convert.h"
#include "q/convert/form_args.h"
#include "q/exports.h"
#include "q/guard.h"

namespace kscope::q {
namespace {

using kabi::K;

constexpr const char* kFunctionalForms[] = {
    "adaptavg1d", "adaptavg2d",  "adaptavg3d", "adaptmax1d", "adaptmax2d", "adaptmax3d",
    "avgpool1d",  "avgpool2d",   "avgpool3d",  "bilinear",   "celu",       "elu",
    "flatten",    "fmaxpool2d",  "fmaxpool3d", "fold",       "glu",        "hardshrink",
    "hardtanh",   "interpolate", "leakyrelu",  "linear",     "logsigmoid", "logsoftmax",
    "lppool1d",   "lppool2d",    "maxpool1d",  "maxpool2d",  "maxpool3d",  "normalize",
    "onehot",     "pad",         "pairwise",   "pdist",      "prelu",      "randomcrop",
    "randomflip", "relu6",       "relu",       "rrelu",      "selu",       "similar",
    "softmax",    "softmin",     "softplus",   "softshrink", "softsign",   "tanhshrink",
    "threshold",  "unfold",      "zscore",
};
static_assert(std::size(kFunctionalForms) == 51, "ktorch has 51 functional forms of layers");

// Forms whose names math_fns.cc exports.
constexpr absl::string_view kExportedElsewhere[] = {"softmax", "logsoftmax"};

// f(inputs..;options..)
K Functional(const char* kind, K x) {
  return Guard([&] {
    const FormArgs f = FormArgsFromK(kind, x, functional_signature(kind));
    return KFromResult(functional(kind, f.inputs, f.positional, f.named));
  });
}

template <std::size_t I>
K FunctionalFormCall(K x) {
  return Functional(kFunctionalForms[I], x);
}

template <std::size_t... I>
std::vector<Export> FunctionalFormExports(std::index_sequence<I...>) {
  return {Unary(kFunctionalForms[I], FunctionalFormCall<I>)...};
}

}  // namespace

std::vector<Export> FunctionalExports() {
  std::vector<Export> exports =
      FunctionalFormExports(std::make_index_sequence<std::size(kFunctionalForms)>());
  exports.erase(std::remove_if(exports.begin(), exports.end(),
                               [](const Export& e) {
                                 return absl::c_linear_search(kExportedElsewhere, e.name);
                               }),
                exports.end());
  return exports;
}

}  // namespace kscope::q
