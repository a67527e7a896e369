#include "api/nn/forward_io.h"

#include "absl/strings/str_format.h"
#include "runtime/errors.h"

namespace kscope::nn {

void CheckInputCount(const char* fn, const std::string& kind, std::size_t fewest, std::size_t most,
                     std::size_t given) {
  if (given >= fewest && given <= most) return;
  const std::string expected = fewest == most
                                   ? absl::StrFormat("%d input%s", fewest, fewest == 1 ? "" : "s")
                                   : absl::StrFormat("%d to %d inputs", fewest, most);
  Fail("%s: `%s expects %s, given %d", fn, kind, expected, given);
}

Result EmitOutput(const char* fn, ModuleOutput out, bool as_handle) {
  if (auto* t = std::get_if<at::Tensor>(&out)) return Emit(fn, std::move(*t), as_handle);
  return EmitVector(fn, std::move(std::get<std::vector<at::Tensor>>(out)), as_handle);
}

}  // namespace kscope::nn
