#include "api/tensor/random_fill.h"

#include <vector>

#include <ATen/ops/empty_like.h>
#include <c10/core/GradMode.h>

#include "runtime/errors.h"
#include "runtime/names.h"

namespace kscope::random_fill {
namespace {

enum class Dtypes { kFloating, kAny };

// Checks the tensors t names, draws into a fresh tensor like each (draw(fresh)), then copies
// every draw into its tensor under no-grad.
template <typename Draw>
void Fill(const char* fn, const init::Target& t, Dtypes dtypes, Draw draw) {
  const std::vector<init::Located> tensors = init::Select(fn, t);
  if (dtypes == Dtypes::kFloating) {
    for (const init::Located& l : tensors) {
      if (!l.tensor.is_floating_point()) {
        Fail("%s: %s is %s, expected a floating-point tensor", fn, l.where,
             DtypeName(l.tensor.scalar_type()));
      }
    }
  }
  c10::NoGradGuard no_grad;
  std::vector<at::Tensor> draws;
  draws.reserve(tensors.size());
  for (const init::Located& l : tensors) {
    at::Tensor fresh = at::empty_like(l.tensor);
    draw(fresh);
    draws.push_back(std::move(fresh));
  }
  for (std::size_t i = 0; i < tensors.size(); ++i) tensors[i].tensor.copy_(draws[i]);
}

void Positive(const char* fn, const char* what, double v) {
  if (!(v > 0)) Fail("%s: %s %g is not positive", fn, what, v);
}

}  // namespace

void normal(const init::Target& t, double mean, double std) {
  if (!(std >= 0)) Fail("normal: std %g is negative", std);
  Fill("normal", t, Dtypes::kFloating, [&](at::Tensor& x) { x.normal_(mean, std); });
}

void uniform(const init::Target& t, double low, double high) {
  if (!(low <= high)) Fail("uniform: low %g is above high %g", low, high);
  Fill("uniform", t, Dtypes::kFloating, [&](at::Tensor& x) { x.uniform_(low, high); });
}

void cauchy(const init::Target& t, double median, double sigma) {
  Positive("cauchy", "sigma", sigma);
  Fill("cauchy", t, Dtypes::kFloating, [&](at::Tensor& x) { x.cauchy_(median, sigma); });
}

void exponential(const init::Target& t, double rate) {
  Positive("exponential", "rate", rate);
  Fill("exponential", t, Dtypes::kFloating, [&](at::Tensor& x) { x.exponential_(rate); });
}

void lognormal(const init::Target& t, double mean, double std) {
  Positive("lognormal", "std", std);
  Fill("lognormal", t, Dtypes::kFloating, [&](at::Tensor& x) { x.log_normal_(mean, std); });
}

void random(const init::Target& t) {
  Fill("random", t, Dtypes::kAny, [&](at::Tensor& x) { x.random_(); });
}

void random(const init::Target& t, std::int64_t high) {
  if (high <= 0) Fail("random: high %d is not positive", high);
  Fill("random", t, Dtypes::kAny, [&](at::Tensor& x) { x.random_(high); });
}

void random(const init::Target& t, std::int64_t low, std::int64_t high) {
  if (low >= high) Fail("random: low %d is not below high %d", low, high);
  Fill("random", t, Dtypes::kAny, [&](at::Tensor& x) { x.random_(low, high); });
}

void geometric(const init::Target& t, double probability) {
  if (!(probability > 0 && probability < 1))
    Fail("geometric: probability %g is outside (0, 1)", probability);
  Fill("geometric", t, Dtypes::kAny, [&](at::Tensor& x) { x.geometric_(probability); });
}

Result bernoulli(const Operand& x, Handle out) {
  return Compute("bernoulli", {&x}, out, [](const TensorList& t) { return t[0].bernoulli(); });
}

Result multinomial(const Operand& x, std::int64_t samples, bool replacement, Handle out) {
  return Compute("multinomial", {&x}, out, [&](const TensorList& t) {
    if (samples < 0) return t[0].multinomial(1, replacement).squeeze(-1);
    return t[0].multinomial(samples, replacement);
  });
}

}  // namespace kscope::random_fill
