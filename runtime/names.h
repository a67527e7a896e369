// Names of devices and dtypes as ktorch spells them (`cpu`, `cuda:0`, `float`, `long`, ...),
// and sizes as messages write them.
//
// The one place that maps between libtorch's enums and the user-facing names; the q plugin and
// the C++ API both go through it. Stateless and thread-safe.
#ifndef KSCOPE_RUNTIME_NAMES_H_
#define KSCOPE_RUNTIME_NAMES_H_

#include <optional>
#include <string>

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>
#include <c10/util/ArrayRef.h>

#include "absl/strings/string_view.h"

namespace kscope {

// ktorch's dtype names: bool byte char short int long half float double chalf cfloat cdouble;
// other types fall back to libtorch's own name.
std::string DtypeName(c10::ScalarType t);
std::optional<c10::ScalarType> DtypeFromName(absl::string_view name);

// "cpu", "cuda:0", ... (libtorch's Device::str()).
std::string DeviceName(c10::Device d);
// Accepts "cpu", "cuda", "cuda:N", "mps", "mps:0"; nullopt for anything else.
std::optional<c10::Device> DeviceFromName(absl::string_view name);

// A tensor size in messages: "scalar" for no dimensions, else the dimensions ("2 3").
std::string SizeText(c10::IntArrayRef sizes);

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_NAMES_H_
