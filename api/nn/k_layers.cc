// How the k-api layers print (k_layers.h): kind and options in libtorch's style.
#include "api/nn/k_layers.h"

#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace kscope::nn {
namespace {

struct ValueText {
  std::string operator()(std::monostate) const { return "None"; }
  std::string operator()(bool b) const { return b ? "true" : "false"; }
  std::string operator()(std::int64_t j) const { return absl::StrCat(j); }
  std::string operator()(double f) const { return absl::StrFormat("%g", f); }
  std::string operator()(const std::string& s) const { return s; }
  template <typename T>
  std::string operator()(const std::vector<T>& items) const {
    return absl::StrCat("[", absl::StrJoin(items, ", ", [this](std::string* out, const T& item) {
      out->append((*this)(item));
    }), "]");
  }
};

}  // namespace

std::string KLayerText(const OptionSet& o) {
  const std::string options =
      absl::StrJoin(o.Values(true), ", ", [](std::string* out, const std::pair<std::string, OptionValue>& option) {
        absl::StrAppend(out, option.first, "=", std::visit(ValueText{}, option.second));
      });
  return absl::StrFormat("kscope::%s(%s)", o.kind(), options);
}

}  // namespace kscope::nn
