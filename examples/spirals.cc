// spirals — classification of three interleaved spirals (3 classes x 1000 points) with a
// 2-100-3 MLP, cross-entropy loss and sgd (lr .2, momentum .99), 1000 full-batch steps, all
// through kscope handles, with a progress line every 100 steps (loss, steps per second, time);
// then the accuracy on the training points and on a fresh sample.
//
// Each step runs in its own kscope::Scope, so the step's output, loss and gradients' handles
// are released as the scope closes; the model's handles live in main's scope, and the obj
// table printed at the end shows that nothing is left.
//
// Run:  ./build/examples/spirals_example [--device=cuda]   (exit status 1 below 95% training
//       accuracy or with a live handle left; ctest runs it as the test `spirals_example`)
#include <ATen/Parallel.h>
#include <ATen/TensorOperators.h>
#include <ATen/ops/argmax.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/cos.h>
#include <ATen/ops/full.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/sin.h>
#include <ATen/ops/stack.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "kscope/kscope.h"

ABSL_FLAG(std::string, device, "cpu", "where the model and data live: cpu, cuda or cuda:N");

namespace {

constexpr std::int64_t kPoints = 1000;  // per class
constexpr std::int64_t kClasses = 3;

struct Sample {
  at::Tensor x;  // kPoints*kClasses x 2
  at::Tensor y;  // class of each point
};

// Points along each class's spiral arm, with noise in the angle.
Sample Spirals() {
  std::vector<at::Tensor> xs, ys;
  const at::Tensor radius = at::linspace(0, 1, kPoints);
  for (std::int64_t c = 0; c < kClasses; ++c) {
    const at::Tensor angle =
        at::linspace(c * 4.0, (c + 1) * 4.0, kPoints) + at::randn({kPoints}) * 0.2;
    xs.push_back(at::stack({radius * at::sin(angle), radius * at::cos(angle)}, 1));
    ys.push_back(at::full({kPoints}, c, at::kLong));
  }
  return {at::cat(xs), at::cat(ys)};
}

kscope::ModuleDefinition Mlp() {
  using kscope::ModuleDefinition;
  return ModuleDefinition{"sequential",
                          "",
                          {},
                          {},
                          {{"linear", "", {std::int64_t{2}, std::int64_t{100}}, {}, {}},
                           {"relu", "", {}, {}, {}},
                           {"linear", "", {std::int64_t{100}, kClasses}, {}, {}}}};
}

// Percentage of points whose most likely class is their own (evaluation mode, no gradients).
double Accuracy(kscope::Handle q, const Sample& s, const std::string& device) {
  const at::Tensor predicted =
      at::argmax(kscope::evaluate(q, s.x.to(c10::Device(device))).tensor(), 1).cpu();
  return 100.0 * predicted.eq(s.y).to(at::kDouble).mean().item<double>();
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const std::string device = absl::GetFlag(FLAGS_device);
  kscope::Options on_device;
  try {
    on_device =
        kscope::Options::Parse("spirals", {device});  // "spirals: `cuda device not available"
  } catch (const kscope::Error& e) {
    absl::FPrintF(stderr, "%s\n", e.what());
    return 2;
  }
  at::set_num_threads(1);
  at::manual_seed(123);
  double training_accuracy = 0;
  {
    auto scope = kscope::Scope::Open();
    const Sample train = Spirals();
    const kscope::Handle x = kscope::tensor(train.x, on_device),
                         y = kscope::tensor(train.y, on_device);
    const kscope::Handle q = kscope::module(Mlp());
    kscope::to(q, on_device);
    const kscope::Handle l = kscope::loss("ce");
    const kscope::Handle o = kscope::opt("sgd", q, {0.2, 0.99});
    const absl::Time start = absl::Now();
    for (int step = 1; step <= 1000; ++step) {
      auto step_scope = kscope::Scope::Open();
      kscope::zerograd(o);
      const kscope::Handle loss = kscope::loss(l, kscope::forward(q, x), y);
      kscope::backward(loss);
      kscope::step(o);
      if (step % 100 == 0) {
        const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
        absl::PrintF("step %4d  loss %.4f  %6.0f steps/s  %5.2fs elapsed\n", step,
                     kscope::tensor(loss).item<double>(), step / seconds, seconds);
      }
    }
    training_accuracy = Accuracy(q, train, device);
    absl::PrintF("training accuracy %.1f%% on %s, accuracy on a fresh sample %.1f%%\n",
                 training_accuracy, device, Accuracy(q, Spirals(), device));
  }
  absl::PrintF("\nobj[] after the scope closed (%d live handles):\n%s", kscope::live_handles(),
               kscope::FormatObjects(kscope::obj()));
  // Exit status for the test suite: the fit must reach 95% and leave no handle behind.
  return training_accuracy > 95 && kscope::live_handles() == 0 ? 0 : 1;
}
