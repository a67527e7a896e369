#include "api/env/environment.h"

#include <mutex>

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <ATen/core/Generator.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "runtime/accounting.h"
#include "runtime/errors.h"
#include "runtime/handle_table.h"
#include "runtime/names.h"

namespace kscope {
namespace {

void RequireCuda(const char* fn) {
  if (cuda_device_count() == 0) Fail("%s: no CUDA devices available", fn);
}

// A device by name, checked: cpu, or an existing CUDA device (cuda means the current one).
c10::Device CheckedDevice(const char* fn, const std::string& name) {
  const std::optional<c10::Device> d = DeviceFromName(name);
  if (!d || (!d->is_cpu() && !d->is_cuda()))
    Fail("%s: unrecognized device `%s, expecting cpu or cuda:N", fn, name);
  if (d->is_cpu()) return *d;
  RequireCuda(fn);
  const std::int64_t index =
      d->has_index() ? d->index() : at::detail::getCUDAHooks().current_device();
  if (index >= cuda_device_count()) {
    Fail("%s: no CUDA device %s, %d available", fn, name, cuda_device_count());
  }
  return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(index));
}

at::Generator Generator(c10::Device d) {
  return d.is_cpu() ? at::detail::getDefaultCPUGenerator()
                    : at::globalContext().defaultGenerator(d);
}

void Seed(c10::Device d, std::optional<std::uint64_t> s) {
  at::Generator g = Generator(d);
  std::lock_guard<std::mutex> lock(g.mutex());
  if (s) {
    g.set_current_seed(*s);
  } else {
    g.seed();
  }
}

std::vector<c10::Device> AllDevices() {
  std::vector<c10::Device> devices{c10::Device(c10::kCPU)};
  for (std::int64_t i = 0; i < cuda_device_count(); ++i) {
    devices.emplace_back(c10::kCUDA, static_cast<c10::DeviceIndex>(i));
  }
  return devices;
}

}  // namespace

std::vector<std::pair<std::string, std::uint64_t>> seeds() {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  for (const c10::Device& d : AllDevices())
    out.emplace_back(DeviceName(d), Generator(d).current_seed());
  return out;
}

std::uint64_t initial_seed(const std::string& device) {
  return Generator(CheckedDevice("seed", device)).current_seed();
}

void seed_all(std::optional<std::uint64_t> s) {
  for (const c10::Device& d : AllDevices()) Seed(d, s);
}

void seed_device(const std::string& device, std::optional<std::uint64_t> s) {
  Seed(CheckedDevice("seed", device), s);
}

std::int64_t cuda_device_count() { return static_cast<std::int64_t>(at::getNumGPUs()); }

std::vector<std::string> cuda_device_names() {
  std::vector<std::string> names;
  for (std::int64_t i = 0; i < cuda_device_count(); ++i)
    names.push_back(absl::StrFormat("cuda:%d", i));
  return names;
}

std::string cuda_device() {
  RequireCuda("cudadevice");
  return absl::StrFormat("cuda:%d", at::detail::getCUDAHooks().current_device());
}

void set_cuda_device(const std::string& device) {
  const c10::Device d = CheckedDevice("cudadevice", device);
  if (!d.is_cuda()) Fail("cudadevice: expecting a CUDA device, given `%s", device);
  c10::impl::getDeviceGuardImpl(c10::kCUDA)->setDevice(d);
}

void sync() {
  if (cuda_device_count() > 0) torch::cuda::synchronize();
}

void sync(std::int64_t device_index) {
  RequireCuda("sync");
  if (device_index < 0 || device_index >= cuda_device_count()) {
    Fail("sync: no CUDA device %d, %d available", device_index, cuda_device_count());
  }
  torch::cuda::synchronize(device_index);
}

void sync(const std::string& device) {
  const c10::Device d = CheckedDevice("sync", device);
  if (d.is_cuda()) torch::cuda::synchronize(d.index());
}

void sync(Handle h) {
  const std::optional<c10::Device> d = DeviceFromName(DeviceOf(HandleTable::Global().Get(h)));
  if (d && d->is_cuda()) torch::cuda::synchronize(d->has_index() ? d->index() : -1);
}

BuildFeatures build_features() {
  const at::Context& c = at::globalContext();
  return BuildFeatures{c.hasMKL(),
                       c.hasOpenMP(),
                       c.hasMPS(),
                       c.hasCUDA(),
                       c.hasMAGMA(),
                       c.hasCuDNN(),
                       c.hasCuDNN() ? static_cast<std::int64_t>(c.versionCuDNN()) : 0};
}

std::int64_t threads() { return at::get_num_threads(); }

// More threads than this is a mistake (libtorch would try to start them all).
constexpr std::int64_t kMaxThreads = 1024;

void set_threads(std::int64_t n) {
  if (n < 1 || n > kMaxThreads)
    Fail("setting: threads must be from 1 to %d, given %d", kMaxThreads, n);
  at::set_num_threads(static_cast<int>(n));
}

std::int64_t interop_threads() { return at::get_num_interop_threads(); }

void set_interop_threads(std::int64_t n) {
  if (n < 1 || n > kMaxThreads)
    Fail("setting: interopthreads must be from 1 to %d, given %d", kMaxThreads, n);
  if (n == interop_threads()) return;
  try {
    at::set_num_interop_threads(static_cast<int>(n));
  } catch (const c10::Error& e) {
    Fail("setting: interopthreads cannot be changed now: %s", e.what_without_backtrace());
  }
}

bool cudnn_benchmark() { return at::globalContext().benchmarkCuDNN(); }
void set_cudnn_benchmark(bool on) { at::globalContext().setBenchmarkCuDNN(on); }

std::int64_t deterministic() {
  const at::Context& c = at::globalContext();
  if (!c.deterministicAlgorithms()) return 0;
  return c.deterministicAlgorithmsWarnOnly() ? 2 : 1;
}

void set_deterministic(std::int64_t mode) {
  if (mode < 0 || mode > 2)
    Fail("setting: deterministic expects 0 (off), 1 (on) or 2 (warn only), given %d", mode);
  at::globalContext().setDeterministicAlgorithms(mode != 0, mode == 2);
}

bool cudnn_deterministic() { return at::globalContext().deterministicCuDNN(); }
void set_cudnn_deterministic(bool on) { at::globalContext().setDeterministicCuDNN(on); }

std::vector<std::string> config() {
  return absl::StrSplit(at::show_config() + at::get_parallel_info(), '\n', absl::SkipEmpty());
}

std::string version() {
  return absl::StrFormat("%d.%d.%d", TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR, TORCH_VERSION_PATCH);
}

double version_number() {
  return TORCH_VERSION_MAJOR + TORCH_VERSION_MINOR / 100.0 + TORCH_VERSION_PATCH / 10000.0;
}

}  // namespace kscope
