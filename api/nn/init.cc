#include "api/nn/init.h"

#include <algorithm>
#include <limits>
#include <utility>

#include <c10/core/GradMode.h>
#include <torch/types.h>  // init.h needs torch::Tensor declared first

#include <torch/nn/init.h>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "api/model/model_object.h"
#include "api/nn/module_object.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "runtime/names.h"

namespace kscope::init {
namespace {

namespace tinit = torch::nn::init;

// What an init requires of every tensor it changes.
struct Needs {
  std::int64_t min_dim = 0;
  std::int64_t max_dim = std::numeric_limits<std::int64_t>::max();
  bool floating = false;
};
constexpr Needs kAny{};
constexpr Needs kMatrix{2, 2, false};
constexpr Needs kFloatingMatrices{2, std::numeric_limits<std::int64_t>::max(), true};

std::vector<Located> FromModule(const char* fn, Handle h, const std::vector<std::string>& names) {
  const auto q = nn::ModuleOrModelsModule(fn, h);
  const TensorDict parameters = q->module().named_parameters();
  std::vector<Located> out;
  if (names.empty()) {
    for (const auto& item : parameters)
      out.push_back({item.value(), absl::StrFormat("parameter `%s", item.key())});
    return out;
  }
  const TensorDict buffers = q->module().named_buffers();
  for (const std::string& name : names) {
    if (const at::Tensor* p = parameters.find(name)) {
      out.push_back({*p, absl::StrFormat("parameter `%s", name)});
    } else if (const at::Tensor* b = buffers.find(name)) {
      out.push_back({*b, absl::StrFormat("buffer `%s", name)});
    } else {
      Fail("%s: no parameter or buffer `%s in %s module", fn, name, q->spec().kind->name);
    }
  }
  return out;
}

// The tensors target t names; validates the selection against the object's class.
std::vector<Located> Resolve(const char* fn, const Target& t) {
  if (t.is_data()) return {{t.data(), "tensor"}};
  const Handle h = t.handle();
  const ObjectClass c = HandleTable::Global().Info(h).object_class;
  const bool indexed = !t.indices().empty();
  const bool named = !t.names().empty();
  switch (c) {
    case ObjectClass::kTensor:
      if (indexed || named) Fail("%s: a tensor takes no indices or names", fn);
      return {{*HandleTable::Global().Get(h).tensor(), "tensor"}};
    case ObjectClass::kVector:
      if (named) Fail("%s: a vector is selected by indices, given names", fn);
      return SelectElements(fn, *HandleTable::Global().Get(h).vector(), t.indices());
    case ObjectClass::kDictionary:
      if (indexed) Fail("%s: a dictionary is selected by keys, given indices", fn);
      return SelectElements(fn, *HandleTable::Global().Get(h).dict(), t.names());
    case ObjectClass::kModule:
    case ObjectClass::kModel:
      if (indexed) Fail("%s: a module's parameters are selected by name, given indices", fn);
      return FromModule(fn, h, t.names());
    default:
      Fail("%s: expected tensor, vector, dictionary, module or model, given %s", fn, ClassName(c));
  }
}

std::string Dimensions(const Needs& n) {
  if (n.min_dim == n.max_dim) return absl::StrFormat("%d", n.min_dim);
  if (n.max_dim == std::numeric_limits<std::int64_t>::max())
    return absl::StrFormat("%d or more", n.min_dim);
  return absl::StrFormat("%d to %d", n.min_dim, n.max_dim);
}

// Every tensor of t, checked against `needs` before any is changed.
std::vector<Located> Checked(const char* fn, const Target& t, const Needs& needs) {
  std::vector<Located> tensors = Select(fn, t);
  for (const Located& l : tensors) {
    const std::int64_t d = l.tensor.dim();
    if (d < needs.min_dim || d > needs.max_dim) {
      Fail("%s: %s has %d dimension%s, expected %s", fn, l.where, d, d == 1 ? "" : "s",
           Dimensions(needs));
    }
    if (needs.floating && !l.tensor.is_floating_point()) {
      Fail("%s: %s is %s, expected a floating-point tensor", fn, l.where,
           DtypeName(l.tensor.scalar_type()));
    }
  }
  return tensors;
}

// Checks every tensor, then applies f to each under no-grad.
template <typename F>
void Apply(const char* fn, const Target& t, const Needs& needs, F&& f) {
  const std::vector<Located> tensors = Checked(fn, t, needs);
  c10::NoGradGuard no_grad;
  for (const Located& l : tensors) f(l.tensor);
}

const std::vector<std::pair<const char*, tinit::NonlinearityType>>& Nonlinearities() {
  static const auto* table = new std::vector<std::pair<const char*, tinit::NonlinearityType>>{
      {"linear", torch::kLinear},
      {"conv1d", torch::kConv1D},
      {"conv2d", torch::kConv2D},
      {"conv3d", torch::kConv3D},
      {"convtranspose1d", torch::kConvTranspose1D},
      {"convtranspose2d", torch::kConvTranspose2D},
      {"convtranspose3d", torch::kConvTranspose3D},
      {"sigmoid", torch::kSigmoid},
      {"tanh", torch::kTanh},
      {"relu", torch::kReLU},
      {"leakyrelu", torch::kLeakyReLU}};
  return *table;
}

tinit::NonlinearityType NonlinearityOf(const char* fn, const std::string& name) {
  for (const auto& [n, type] : Nonlinearities()) {
    if (name == n) return type;
  }
  std::vector<const char*> names;
  for (const auto& entry : Nonlinearities()) names.push_back(entry.first);
  Fail("%s: unknown nonlinearity `%s, expected one of %s", fn, name, absl::StrJoin(names, " "));
}

template <typename KaimingInit>
void KaimingWith(const char* fn, KaimingInit init, const Target& t, const Kaiming& o) {
  const tinit::NonlinearityType nonlinearity = NonlinearityOf(fn, o.nonlinearity);
  Apply(fn, t, kFloatingMatrices, [&](const at::Tensor& x) {
    if (o.fan_out) {
      init(x, o.a, torch::kFanOut, nonlinearity);
    } else {
      init(x, o.a, torch::kFanIn, nonlinearity);
    }
  });
}

}  // namespace

std::vector<Located> Select(const char* fn, const Target& t) {
  std::vector<Located> tensors = Resolve(fn, t);
  for (const Located& l : tensors) {
    if (!l.tensor.defined()) Fail("%s: %s is undefined", fn, l.where);
  }
  return tensors;
}

void zeros(const Target& t) {
  Apply("zeros", t, kAny, [](const at::Tensor& x) { tinit::zeros_(x); });
}

void ones(const Target& t) {
  Apply("ones", t, kAny, [](const at::Tensor& x) { tinit::ones_(x); });
}

void fill(const Target& t, const c10::Scalar& value) {
  Apply("fill", t, kAny, [&](const at::Tensor& x) { tinit::constant_(x, value); });
}

void eye(const Target& t) {
  Apply("eye", t, kMatrix, [](const at::Tensor& x) { tinit::eye_(x); });
}

void dirac(const Target& t, std::int64_t groups) {
  if (groups < 1) Fail("dirac: groups must be positive, given %d", groups);
  const std::vector<Located> tensors = Checked("dirac", t, Needs{3, 5, false});
  for (const Located& l : tensors) {
    if (l.tensor.size(0) % groups != 0) {
      Fail("dirac: %s has %d output channels, not divisible by %d groups", l.where,
           l.tensor.size(0), groups);
    }
  }
  c10::NoGradGuard no_grad;
  for (const Located& l : tensors) {
    if (groups == 1) {
      tinit::dirac_(l.tensor);
      continue;
    }
    // python's dirac_(tensor, groups): one identity per group of output channels
    at::Tensor x = l.tensor;
    x.zero_();
    const std::int64_t per_group = x.size(0) / groups;
    const std::int64_t channels = std::min(per_group, x.size(1));
    for (std::int64_t g = 0; g < groups; ++g) {
      for (std::int64_t d = 0; d < channels; ++d) {
        at::Tensor centre = x.select(0, g * per_group + d).select(0, d);
        while (centre.dim() > 0) centre = centre.select(0, centre.size(0) / 2);
        centre.fill_(1);
      }
    }
  }
}

void orthogonal(const Target& t, double gain) {
  Apply("orthogonal", t, kFloatingMatrices,
        [&](const at::Tensor& x) { tinit::orthogonal_(x, gain); });
}

void kaiming_normal(const Target& t, const Kaiming& options) {
  KaimingWith("knormal", tinit::kaiming_normal_, t, options);
}

void kaiming_uniform(const Target& t, const Kaiming& options) {
  KaimingWith("kuniform", tinit::kaiming_uniform_, t, options);
}

void sparse(const Target& t, double sparsity, double std) {
  if (!(sparsity >= 0 && sparsity <= 1)) Fail("snormal: sparsity %g is outside 0-1", sparsity);
  if (!(std >= 0)) Fail("snormal: standard deviation %g is negative", std);
  Apply("snormal", t, Needs{2, 2, true},
        [&](const at::Tensor& x) { tinit::sparse_(x, sparsity, std); });
}

void xavier_normal(const Target& t, double gain) {
  Apply("xnormal", t, kFloatingMatrices,
        [&](const at::Tensor& x) { tinit::xavier_normal_(x, gain); });
}

void xavier_uniform(const Target& t, double gain) {
  Apply("xuniform", t, kFloatingMatrices,
        [&](const at::Tensor& x) { tinit::xavier_uniform_(x, gain); });
}

double gain(const std::string& nonlinearity, std::optional<double> param) {
  return tinit::calculate_gain(NonlinearityOf("gain", nonlinearity), param.value_or(0.01));
}

bool is_nonlinearity(const std::string& name) {
  return std::any_of(Nonlinearities().begin(), Nonlinearities().end(),
                     [&](const auto& entry) { return name == entry.first; });
}

}  // namespace kscope::init
