// lbfgs_fit — fits y = 1 - 2x + 0.5x² on 101 points of [-1, 1] with a linear layer over the
// features (x, x²), mean squared error and the LBFGS optimizer (lr 1, strong Wolfe line
// search), through the model's `backstep`: LBFGS re-evaluates the model several times per step,
// so it needs the training step as a closure, which backstep gives it.
//
// The data has no noise, so the exact solution is known: weights -2 and 0.5, bias 1. Prints the
// loss each backstep starts from, the fitted parameters, and the obj table after the model's
// scope closed.
//
// Run:  ./build/examples/lbfgs_fit_example   (exit status 1 if a fitted parameter is more
//       than 1e-4 from the solution or a handle is left live; ctest runs it as the test
//       `lbfgs_fit_example`)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include <ATen/Parallel.h>
#include <ATen/TensorOperators.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/stack.h>

#include "absl/strings/str_format.h"
#include "kscope/kscope.h"

namespace {

constexpr std::int64_t kPoints = 101;
constexpr double kBias = 1, kLinear = -2, kSquare = 0.5;  // the polynomial fitted
constexpr int kBacksteps = 5;
constexpr double kTolerance = 1e-4;

}  // namespace

int main() {
  at::set_num_threads(1);
  at::manual_seed(123);
  double weight_error = INFINITY;
  {
    auto scope = kscope::Scope::Open();
    const at::Tensor t = at::linspace(-1, 1, kPoints);
    const at::Tensor x = at::stack({t, t * t}, 1);
    const at::Tensor y = (kBias + kLinear * t + kSquare * t * t).unsqueeze(1);
    const kscope::Handle q =
        kscope::module({"linear", "", {std::int64_t{2}, std::int64_t{1}}, {}, {}});
    const kscope::Handle m =
        kscope::model({q, kscope::loss("mse"),
                       kscope::opt("lbfgs", q, {1.0}, {{"search", std::string("strong_wolfe")}})});
    kscope::model_data(m, kscope::nn::DataMode::kTrain, x, y);
    for (int i = 1; i <= kBacksteps; ++i) {
      absl::PrintF("backstep %d  loss %.3e\n", i, kscope::model_backstep(m).item<double>());
    }
    const at::Tensor weight = kscope::tensor(kscope::parm(m, "weight")).flatten();
    const at::Tensor bias = kscope::tensor(kscope::parm(m, "bias"));
    const double w1 = weight[0].item<double>(), w2 = weight[1].item<double>(),
                 b = bias[0].item<double>();
    absl::PrintF("fitted  y = %.6f %+.6f x %+.6f x²   (exact: 1 - 2 x + 0.5 x²)\n", b, w1, w2);
    weight_error = std::max({std::abs(b - kBias), std::abs(w1 - kLinear), std::abs(w2 - kSquare)});
  }
  absl::PrintF("\nobj[] after the scope closed (%d live handles):\n%s", kscope::live_handles(),
               kscope::FormatObjects(kscope::obj()));
  // Exit status for the test suite: the known solution, and no handle left behind.
  return weight_error < kTolerance && kscope::live_handles() == 0 ? 0 : 1;
}
