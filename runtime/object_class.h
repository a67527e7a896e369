// ObjectClass — the classes of object a handle can hold, with ktorch's names.
#ifndef KSCOPE_RUNTIME_OBJECT_CLASS_H_
#define KSCOPE_RUNTIME_OBJECT_CLASS_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace kscope {

enum class ObjectClass : std::uint8_t {
  kTensor,
  kVector,      // std::vector of tensors
  kDictionary,  // ordered name -> tensor
  kModule,
  kLoss,
  kOptimizer,
  kModel,
  kGroup,  // a c10d process group (api/distributed)
};

// ktorch's name for the class: "tensor", "vector", "dictionary", "module", ...
absl::string_view ClassName(ObjectClass c);

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_OBJECT_CLASS_H_
