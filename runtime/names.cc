#include "runtime/names.h"

#include <array>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/object_class.h"

namespace kscope {
namespace {

constexpr std::array<std::pair<c10::ScalarType, absl::string_view>, 12> kDtypeNames = {{
    {c10::ScalarType::Bool, "bool"},
    {c10::ScalarType::Byte, "byte"},
    {c10::ScalarType::Char, "char"},
    {c10::ScalarType::Short, "short"},
    {c10::ScalarType::Int, "int"},
    {c10::ScalarType::Long, "long"},
    {c10::ScalarType::Half, "half"},
    {c10::ScalarType::Float, "float"},
    {c10::ScalarType::Double, "double"},
    {c10::ScalarType::ComplexHalf, "chalf"},
    {c10::ScalarType::ComplexFloat, "cfloat"},
    {c10::ScalarType::ComplexDouble, "cdouble"},
}};

}  // namespace

absl::string_view ClassName(ObjectClass c) {
  switch (c) {
    case ObjectClass::kTensor: return "tensor";
    case ObjectClass::kVector: return "vector";
    case ObjectClass::kDictionary: return "dictionary";
    case ObjectClass::kModule: return "module";
    case ObjectClass::kLoss: return "loss";
    case ObjectClass::kOptimizer: return "optimizer";
    case ObjectClass::kModel: return "model";
    case ObjectClass::kGroup: return "group";
  }
  return "unknown";
}

std::string DtypeName(c10::ScalarType t) {
  for (const auto& [type, name] : kDtypeNames) {
    if (type == t) return std::string(name);
  }
  return c10::toString(t);
}

std::optional<c10::ScalarType> DtypeFromName(absl::string_view name) {
  for (const auto& [type, known] : kDtypeNames) {
    if (known == name) return type;
  }
  return std::nullopt;
}

std::string DeviceName(c10::Device d) { return d.str(); }

std::optional<c10::Device> DeviceFromName(absl::string_view name) {
  auto typed = [&](absl::string_view prefix, c10::DeviceType type) -> std::optional<c10::Device> {
    if (name == prefix) return c10::Device(type);
    if (name.size() > prefix.size() + 1 && name.substr(0, prefix.size()) == prefix &&
        name[prefix.size()] == ':') {
      int index = 0;
      if (absl::SimpleAtoi(name.substr(prefix.size() + 1), &index) && index >= 0 && index < 128) {
        return c10::Device(type, static_cast<c10::DeviceIndex>(index));
      }
    }
    return std::nullopt;
  };
  if (name == "cpu") return c10::Device(c10::DeviceType::CPU);
  if (auto d = typed("cuda", c10::DeviceType::CUDA)) return d;
  return typed("mps", c10::DeviceType::MPS);
}

std::string SizeText(c10::IntArrayRef sizes) {
  return sizes.empty() ? "scalar" : absl::StrJoin(sizes, " ");
}

}  // namespace kscope
