// The one place where kscope bridges libtorch 1.13 and 2.x API differences.
//
// - Optional arguments of ATen ops are c10::optional in 1.13 (its own class) and std::optional
//   from 2.x (c10::optional became a deprecated alias), so kscope spells them AtOptional.
#ifndef KSCOPE_RUNTIME_TORCH_COMPAT_H_
#define KSCOPE_RUNTIME_TORCH_COMPAT_H_

#include <optional>

#include <c10/util/Optional.h>
#include <torch/version.h>

namespace kscope {

#if TORCH_VERSION_MAJOR >= 2
template <typename T>
using AtOptional = std::optional<T>;
#else
template <typename T>
using AtOptional = c10::optional<T>;
#endif

// An AtOptional from a std::optional.
template <typename T>
AtOptional<T> ToAtOptional(const std::optional<T>& v) {
  return v ? AtOptional<T>(*v) : AtOptional<T>();
}

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_TORCH_COMPAT_H_
