// Faults injected at every point of a training epoch (issue 20): libtorch's CPU allocations
// failing one at a time, and a callback module throwing at each of its calls. Every epoch
// either completes or fails with the fault's own message; no handle is lost, the model's data is
// restored, and the model trains normally afterwards.
#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>

#include "api/nn/callback_registry.h"
#include "runtime/torch_compat.h"
#include "runtime/torch_compat_allocator.h"
#include "tests/error_text.h"
#include "tests/optimizer_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace fault_injection_test {

using testing::ErrorOf;
using ::testing::HasSubstr;

// libtorch's CPU allocator, failing on request: FailAt(n) makes the n-th allocation from now
// throw c10::Error, as libtorch's own allocator does when memory runs out. Installed for the
// guard's lifetime (c10::SetCPUAllocator), then the previous allocator is put back; memory it
// handed out is the real allocator's and is freed by it.
class FailingCpuAllocator final : public CpuAllocatorBase {
 public:
  FailingCpuAllocator() : real_(c10::GetCPUAllocator()) { c10::SetCPUAllocator(this, kPriority); }
  ~FailingCpuAllocator() override { c10::SetCPUAllocator(real_, kPriority); }
  FailingCpuAllocator(const FailingCpuAllocator&) = delete;
  FailingCpuAllocator& operator=(const FailingCpuAllocator&) = delete;

  // The n-th allocation from now fails (0: none does).
  void FailAt(int n) { countdown_.store(n); }
  // Allocations asked of it so far.
  int allocations() const { return allocations_.load(); }

  c10::DeleterFnPtr raw_deleter() const override { return real_->raw_deleter(); }

 private:
  static constexpr std::uint8_t kPriority = 200;  // above libtorch's own registrations

  c10::DataPtr Allocate(std::size_t n) const override {
    ++allocations_;
    if (countdown_.load() > 0 && countdown_.fetch_sub(1) == 1) {
      TORCH_CHECK(false, "fault injection: allocation of ", n, " bytes failed");
    }
    return real_->allocate(n);
  }

  c10::Allocator* const real_;
  mutable std::atomic<int> countdown_{0};
  mutable std::atomic<int> allocations_{0};
};

constexpr std::int64_t kRows = 16;

// A 4-16-3 classifier (with `middle` between its first linear layer and its relu, if given),
// cross entropy, adam, and kRows rows of training data in batches of 8.
Handle Classifier(const std::optional<ModuleDefinition>& middle = std::nullopt) {
  std::vector<ModuleDefinition> layers = {ModuleDefinition{"linear", "", {4, 16}, {}, {}}};
  if (middle) layers.push_back(*middle);
  layers.push_back(ModuleDefinition{"relu", "", {}, {}, {}});
  layers.push_back(ModuleDefinition{"linear", "", {16, 3}, {}, {}});
  at::manual_seed(0);
  const Handle q = module(ModuleDefinition{"sequential", "", {}, {}, layers});
  const Handle m = model({q, loss("ce"), opt("adam", q, {0.01})});
  train(m, {{"batchsize", std::int64_t{8}}, {"metrics", std::vector<std::string>{"loss"}}});
  const at::Tensor x = at::randn({kRows, 4});
  model_data(m, nn::DataMode::kTrain, x, x.argmax(1) % 3);
  return m;
}

double EpochLoss(Handle m) {
  const RunMetrics r = run(m);
  for (const auto& [name, value] : r.values) {
    if (name == "loss") return value.mean().item<double>();
  }
  ADD_FAILURE() << "run gave no loss";
  return NAN;
}

// After the faults: ten clean epochs lower the loss, and every value stays finite.
void ExpectItTrains(Handle m) {
  const double first = EpochLoss(m);
  double last = first;
  for (int epoch = 0; epoch < 10; ++epoch) last = EpochLoss(m);
  EXPECT_TRUE(std::isfinite(last));
  EXPECT_LT(last, first);
}

using FaultInjectionTest = testing::LeakCheckTest;

TEST_F(FaultInjectionTest, AllocationFailingAtEveryPointOfAnEpoch) {
  const Scope scope = Scope::Open();
  const Handle m = Classifier();
  int points = 0;
  {
    FailingCpuAllocator allocator;
    run(m);  // adam's state is made in the first epoch: count from the second
    const int before = allocator.allocations();
    run(m);
    points = allocator.allocations() - before;
    ASSERT_GT(points, 10);
    int failed = 0;
    for (int n = 1; n <= points; ++n) {
      SCOPED_TRACE(n);
      const std::size_t handles = live_handles();
      allocator.FailAt(n);
      const std::string error = ErrorOf([&] { run(m); });
      allocator.FailAt(0);
      if (error != "no error") {
        ++failed;
        EXPECT_THAT(error, HasSubstr("fault injection: allocation of"));
      }
      EXPECT_EQ(live_handles(), handles);
      EXPECT_EQ(model_datasize(m, nn::DataMode::kTrain), kRows);
    }
    EXPECT_EQ(failed, points) << "every allocation point of an epoch stops it";
    std::printf("an epoch of 2 steps allocates %d times; a failure at each stopped it cleanly\n",
                points);
  }
  ExpectItTrains(m);
}

TEST_F(FaultInjectionTest, CallbackModuleThrowingAtEachOfItsCalls) {
  const Scope scope = Scope::Open();
  int calls = 0, throw_at = 0;
  register_callback("faulty", [&](Handle, absl::Span<const Handle> x) {
    if (++calls == throw_at) throw std::runtime_error("faulty: thrown on purpose");
    return Handle(kscope::mul(x[0], 1.0));
  });
  const Handle m = Classifier(ModuleDefinition{"callback", "", {std::string("faulty")}, {}, {}});
  run(m);
  const int per_epoch = calls;  // one forward per batch
  ASSERT_EQ(per_epoch, 2);
  for (int n = 1; n <= per_epoch; ++n) {
    calls = 0;
    throw_at = n;
    const std::size_t handles = live_handles();
    EXPECT_EQ(ErrorOf([&] { run(m); }), "faulty: thrown on purpose");
    EXPECT_EQ(live_handles(), handles);
    EXPECT_EQ(model_datasize(m, nn::DataMode::kTrain), kRows);
  }
  throw_at = 0;
  ExpectItTrains(m);
  unregister_callback("faulty");
}

}  // namespace fault_injection_test
}  // namespace kscope
