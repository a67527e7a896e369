// How the k-api layers print (k_layers.h): kind and options in libtorch's style.
#include "api/nn/ktorch_layers.h"

#include "absl/strings/str_format.h"

namespace kscope::nn {

std::string KLayerText(const OptionSet& o) {
  return absl::StrFormat("kscope::%s(%s)", o.kind(), OptionsText(o.Values(true)));
}

}  // namespace kscope::nn
