// The option checks module_families.h declares for the module kind tables.
#include "api/nn/module_families.h"

#include "absl/container/flat_hash_set.h"

namespace kscope::nn {

void AtLeast(const OptionSet& o, const char* name, double least) {
  const OptionValue& v = o.At(name);
  std::vector<double> numbers;
  if (const auto* j = std::get_if<std::int64_t>(&v)) numbers.push_back(static_cast<double>(*j));
  if (const auto* f = std::get_if<double>(&v)) numbers.push_back(*f);
  if (const auto* longs = std::get_if<std::vector<std::int64_t>>(&v))
    numbers.assign(longs->begin(), longs->end());
  for (double n : numbers)
    Check(n >= least, o, "option `%s must be at least %g, given %g", name, least, n);
}

const std::vector<std::int64_t>& Sized(const OptionSet& o, const char* name, std::size_t size) {
  const std::vector<std::int64_t>& v = o.Longs(name);
  if (v.size() != 1 && v.size() != size) {
    if (size == 1) Fail("%s: option `%s expects 1 long, given %d", o.kind(), name, v.size());
    Fail("%s: option `%s expects 1 or %d longs, given %d", o.kind(), name, size, v.size());
  }
  return v;
}

std::vector<OptionSpec> NamedTensorOptions() {
  return {{"parms", OptionType::kNamedTensors, NamedTensors{}},
          {"buffers", OptionType::kNamedTensors, NamedTensors{}}};
}

void RegisterNamedTensors(torch::nn::Module& m, const OptionSet& o) {
  const NamedTensors& parms = o.Tensors("parms");
  const NamedTensors& buffers = o.Tensors("buffers");
  absl::flat_hash_set<std::string> seen;
  for (const auto* named : {&parms, &buffers}) {
    for (const std::string& name : named->names) {
      Check(!name.empty() && name.find('.') == std::string::npos, o,
            "invalid parameter or buffer name `%s", name);
      Check(seen.insert(name).second, o, "parameter or buffer `%s given twice", name);
    }
  }
  for (std::size_t i = 0; i < parms.names.size(); ++i) {
    m.register_parameter(parms.names[i], parms.tensors[i].detach().clone().set_requires_grad(true));
  }
  for (std::size_t i = 0; i < buffers.names.size(); ++i)
    m.register_buffer(buffers.names[i], buffers.tensors[i].clone());
}

}  // namespace kscope::nn
