// Memory you can see (issue 45): api/env/memory.h's device readings on the CPU (kscope's
// counting allocator: allocated, reserved, peaks, live allocations, totals), peaks that survive
// scope footprints' resets, scope footprints (scope/scope_footprint.h) read while open and after
// closing and reported when footprint reports are on, the leak kit's bytes per device, and
// out-of-memory inside forward, backward, step and run (a CPU memory limit makes allocations
// fail): kscope::OutOfMemory naming the call, the device and the bytes, nothing left behind,
// and the model training on once memory is there again.
#include <optional>
#include <string>
#include <vector>

#include <c10/util/Exception.h>

#include "absl/strings/str_format.h"
#include "api/model/model_object.h"
#include "tests/error_text.h"
#include "tests/optimizer_test_util.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace device_memory_test {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using DeviceMemoryTest = testing::LeakCheckTest;

constexpr std::int64_t kMiB = 1 << 20;
const c10::Device kCpu(c10::DeviceType::CPU);

DeviceMemory Cpu() { return device_memory(kCpu); }

// A tensor of `bytes` bytes (floats), allocated at once.
at::Tensor Bytes(std::int64_t bytes) { return at::empty({bytes / 4}, at::kFloat); }

const MemoryFootprint& CpuOf(const std::vector<MemoryFootprint>& devices) {
  return devices.at(0);  // the CPU is always first
}

// A limit of `extra` bytes beyond what the CPU holds now, lifted when it goes out of scope.
class CpuLimit {
 public:
  explicit CpuLimit(std::int64_t extra) { set_memory_limit(kCpu, Cpu().allocated + extra); }
  ~CpuLimit() { Lift(); }
  CpuLimit(const CpuLimit&) = delete;
  CpuLimit& operator=(const CpuLimit&) = delete;
  void Lift() { set_memory_limit(kCpu, std::nullopt); }
};

TEST_F(DeviceMemoryTest, CpuTensorsCountWhileTheyLive) {
  ASSERT_EQ(device_memory().at(0).device, kCpu);
  const DeviceMemory before = Cpu();
  at::Tensor t = Bytes(kMiB);
  const DeviceMemory during = Cpu();
  EXPECT_EQ(during.allocated - before.allocated, kMiB);
  EXPECT_EQ(during.reserved, during.allocated);  // the CPU keeps no cache
  EXPECT_EQ(during.allocations - before.allocations, 1);
  EXPECT_EQ(during.allocated_total - before.allocated_total, kMiB);
  EXPECT_GE(during.peak_allocated, during.allocated);
  t.reset();
  const DeviceMemory after = Cpu();
  EXPECT_EQ(after.allocated, before.allocated);
  EXPECT_EQ(after.allocations, before.allocations);
  EXPECT_EQ(after.freed_total - before.freed_total, kMiB);
  EXPECT_EQ(after.allocated_total - after.freed_total, after.allocated);
}

TEST_F(DeviceMemoryTest, PeaksResetByTheUserAndKeptAcrossFootprints) {
  reset_peak_memory();
  const std::int64_t base = Cpu().allocated;
  EXPECT_EQ(Cpu().peak_allocated, base);
  Bytes(4 * kMiB).reset();
  EXPECT_GE(Cpu().peak_allocated, base + 4 * kMiB);
  {
    auto scope = Scope::Open(GradPolicy::kInherit, Footprint::kTracked);  // resets raw peaks
    EXPECT_GE(Cpu().peak_allocated, base + 4 * kMiB) << "the user's peak survives the window";
    at::Tensor t = Bytes(kMiB);
    const MemoryFootprint f = CpuOf(ScopeFootprint(scope.id()));
    EXPECT_GE(f.peak - f.start, kMiB);
    EXPECT_LT(f.peak - f.start, 4 * kMiB) << "the scope's peak is its own span's";
    reset_peak_memory();
    t.reset();
    EXPECT_GE(CpuOf(ScopeFootprint(scope.id())).peak - f.start, kMiB)
        << "the scope's peak survives the user's reset";
  }
  EXPECT_LT(Cpu().peak_allocated, base + 2 * kMiB) << "reset while the 1 MiB tensor lived";
}

TEST_F(DeviceMemoryTest, AScopesFootprintWhileOpenAndAfterItCloses) {
  ScopeId id;
  {
    auto scope = Scope::Open(GradPolicy::kInherit, Footprint::kTracked);
    id = scope.id();
    zeros({kMiB / 4});  // a handle the scope releases as it closes
    const MemoryFootprint open = CpuOf(ScopeFootprint(id));
    EXPECT_GE(open.allocated, kMiB);
    EXPECT_EQ(open.now, open.start + open.allocated - open.freed);
    EXPECT_GE(open.now - open.start, kMiB);
    {
      auto inner = Scope::Open(GradPolicy::kInherit, Footprint::kTracked);
      Bytes(2 * kMiB).reset();
      EXPECT_GE(CpuOf(ScopeFootprint(inner.id())).freed, 2 * kMiB);
    }
    EXPECT_EQ(LastClosedFootprint()->depth, 2);
    EXPECT_GE(CpuOf(ScopeFootprint(id)).peak - open.start, 3 * kMiB) << "the inner's peak counts";
  }
  const std::optional<ClosedFootprint> closed = LastClosedFootprint();
  ASSERT_TRUE(closed.has_value());
  EXPECT_EQ(closed->scope, id);
  EXPECT_EQ(closed->depth, 1);
  const MemoryFootprint& f = CpuOf(closed->devices);
  EXPECT_GE(f.freed, 3 * kMiB) << "the handle released at the close counts as freed";
  EXPECT_LT(f.now - f.start, kMiB);
}

TEST_F(DeviceMemoryTest, FootprintOfAScopeThatDoesNotTrackItIsAnError) {
  auto scope = Scope::Open();
  EXPECT_EQ(ErrorOf([&] { ScopeFootprint(scope.id()); }),
            absl::StrFormat("footprint: scope %d does not track its footprint (open it with "
                            "footprint tracked)",
                            scope.id()));
  EXPECT_EQ(ErrorOf([&] { ScopeFootprint(scope.id() + 1000); }),
            absl::StrFormat("footprint: scope %d is not open on this thread", scope.id() + 1000));
}

TEST_F(DeviceMemoryTest, FootprintReportsAsEveryScopeCloses) {
  std::vector<ClosedFootprint> reports;
  SetFootprintReporter([&](const ClosedFootprint& f) { reports.push_back(f); });
  SetFootprintReports(true);
  ScopeId first, second;
  {
    auto a = Scope::Open();
    first = a.id();
    ones({kMiB / 4});
    auto b = Scope::Open();
    second = b.id();
  }
  SetFootprintReports(false);
  { auto c = Scope::Open(); }  // not reported: reports are off again
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].scope, second);  // the inner closes first
  EXPECT_EQ(reports[1].scope, first);
  EXPECT_GE(CpuOf(reports[1].devices).freed, kMiB);
  SetFootprintReporter(nullptr);  // the default: a line per scope on stderr
  SetFootprintReports(true);
  ::testing::internal::CaptureStderr();
  ScopeId id;
  {
    auto d = Scope::Open();
    id = d.id();
  }
  SetFootprintReports(false);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              StartsWith(absl::StrFormat("kscope: scope %d (depth 1) closed: cpu start ", id)));
}

TEST_F(DeviceMemoryTest, ALimitFailsAnAllocationAsOutOfMemoryAndIsLifted) {
  {
    CpuLimit limit(kMiB);
    EXPECT_EQ(memory_limit(kCpu), Cpu().allocated + kMiB);
    try {
      Bytes(2 * kMiB);
      ADD_FAILURE() << "2 MiB allocated beyond a 1 MiB limit";
    } catch (const c10::OutOfMemoryError& e) {
      EXPECT_THAT(e.what_without_backtrace(),
                  StartsWith("out of memory on cpu: tried to allocate 2097152 bytes ("));
    }
    const std::optional<OutOfMemoryRecord> record = LastOutOfMemory();
    ASSERT_TRUE(record.has_value());
    EXPECT_EQ(record->device, kCpu);
    EXPECT_EQ(record->bytes, 2 * kMiB);
    const std::size_t handles = live_handles();
    EXPECT_THAT(ErrorOf([] { zeros({kMiB}); }), HasSubstr("out of memory on cpu"));
    EXPECT_EQ(live_handles(), handles) << "the failed call made no handle";
  }
  EXPECT_EQ(memory_limit(kCpu), std::nullopt);
  EXPECT_EQ(Bytes(2 * kMiB).numel(), kMiB / 2);
  EXPECT_EQ(ErrorOf([] { set_memory_limit(kCpu, -1); }),
            "memory limit: expecting bytes >= 0, given -1");
  if (cuda_device_count() == 0) {
    EXPECT_EQ(ErrorOf([] { device_memory(c10::Device(c10::DeviceType::CUDA, 0)); }),
              "devicememory: no device cuda:0 here (the cpu and 0 CUDA device(s))");
  }
}

TEST_F(DeviceMemoryTest, TheLeakKitReportsTheBytesLeftPerDevice) {
  LeakCheck check;
  const Handle t = zeros({2, 3});
  Options doubles;
  doubles.dtype = at::kDouble;
  const Handle u = zeros({10}, doubles);
  EXPECT_THAT(check.Report(), HasSubstr("bytes left: cpu 104\n"));
  EXPECT_EQ(LeakCheck::BytesByDevice(check.Leaks()),
            (std::vector<std::pair<std::string, std::int64_t>>{{"cpu", 104}}));
  free(t);
  free(u);
}

// The parameters' values, copied.
std::vector<at::Tensor> Parameters(Handle m) {
  std::vector<at::Tensor> values;
  for (const at::Tensor& p : nn::ModelOf("test", m)->model().module->module().parameters()) {
    values.push_back(p.detach().clone());
  }
  return values;
}

bool Same(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!at::equal(a[i], b[i])) return false;
  }
  return a.size() == b.size();
}

// f() fails as out of memory inside `call` on the CPU, leaves no new handle and no parameter
// changed (`parameters_kept`).
template <typename F>
void ExpectOutOfMemory(const char* call, Handle m, bool parameters_kept, F f) {
  const std::size_t handles = live_handles();
  const std::vector<at::Tensor> before = Parameters(m);
  CpuLimit limit(1024);
  try {
    f();
    ADD_FAILURE() << call << " allocated beyond the limit";
  } catch (const OutOfMemory& e) {
    EXPECT_THAT(e.what(),
                StartsWith(absl::StrFormat("%s: out of memory on cpu: tried to allocate ", call)));
    EXPECT_EQ(e.call(), call);
    ASSERT_TRUE(e.record().has_value());
    EXPECT_EQ(e.record()->device, kCpu);
    EXPECT_GT(e.record()->bytes, 0);
  }
  limit.Lift();
  EXPECT_EQ(live_handles(), handles) << call << " left a handle behind";
  if (parameters_kept) {
    EXPECT_TRUE(Same(Parameters(m), before)) << call;
  }
}

TEST_F(DeviceMemoryTest, OutOfMemoryInForwardBackwardStepAndRunLeavesTrainingUsable) {
  auto scope = Scope::Open();
  const Handle q = testing::Mlp(16, 256, 4);
  const Handle m = model({q, loss("ce"), opt("adam", q)});
  train(m, {{"batchsize", std::int64_t{64}}, {"shuffle", true}});
  const at::Tensor x = at::randn({256, 16});
  model_data(m, nn::DataMode::kTrain, x, at::randint(4, {256}));
  ExpectOutOfMemory("forward", m, true, [&] { model_forward(m, ForwardMode::kForward); });
  ExpectOutOfMemory("backward", m, true, [&] { model_backward(m); });
  ExpectOutOfMemory("run", m, true, [&] { run(m); });
  EXPECT_EQ(model_datasize(m, nn::DataMode::kTrain), 256) << "the epoch's data restored";
  model_backward(m);
  // The first step makes adam's state: it may fail part way (partly applied: see README).
  ExpectOutOfMemory("step", m, false, [&] { model_step(m); });
  model_step(m);
  const auto loss_of = [&] { return run(m).values.at(0).second.item<double>(); };
  const double first = loss_of();
  for (int epoch = 0; epoch < 20; ++epoch) loss_of();
  EXPECT_LT(loss_of(), first) << "the model trains on after running out of memory";
}

}  // namespace device_memory_test
}  // namespace kscope
