// The environment functions of ktorch's group I: random seeds per device, CUDA devices,
// synchronization, libtorch's build configuration and version.
//
// Devices are named as ktorch names them ("cpu", "cuda:0"). Without CUDA there are no CUDA
// devices: cuda_device_count() is 0 and every call that needs one fails with a clear error
// naming the function ("cudadevice: no CUDA devices available"). Errors are kscope::Error and
// change nothing. Thread-safety: seeds are set under each generator's own lock; the current
// CUDA device is per thread (as in libtorch).
#ifndef KSCOPE_API_ENV_ENVIRONMENT_H_
#define KSCOPE_API_ENV_ENVIRONMENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/handle.h"

namespace kscope {

// seed[]: the initial seed of each device's default generator, cpu first, then cuda:0 ...
std::vector<std::pair<std::string, std::uint64_t>> seeds();
// seed`device: that device's initial seed ("seed: unrecognized device `x", "seed: no CUDA
// device cuda:1, 0 available").
std::uint64_t initial_seed(const std::string& device);
// seed n: seeds every device's generator; nullopt (k's null) seeds each nondeterministically.
void seed_all(std::optional<std::uint64_t> s);
// seed(device;n): seeds one device's generator (nondeterministically for nullopt).
void seed_device(const std::string& device, std::optional<std::uint64_t> s);

// cudadevices[]: the number of CUDA devices; cudadevices(): their names cuda:0 cuda:1 ...
std::int64_t cuda_device_count();
std::vector<std::string> cuda_device_names();
// cudadevice(): this thread's current CUDA device; cudadevice`cuda:1 makes it current.
std::string cuda_device();
void set_cuda_device(const std::string& device);

// sync(): waits for all work on the current CUDA device (nothing to wait for without one, as
// in ktorch); sync(i) / sync(`cuda:i) on device i (`cpu: nothing to wait for); sync(h) on the
// device of a tensor, vector, dictionary, module or model. "sync: no CUDA devices available"
// for a CUDA device when there is none.
void sync();
void sync(std::int64_t device_index);
void sync(const std::string& device);
void sync(Handle h);

// libtorch's global settings as ktorch's `setting` reads and writes them. Setters check their
// argument first ("setting: threads must be from 1 to 1024, given 0") and change nothing on error.
struct BuildFeatures {
  bool mkl, openmp, mps, cuda, magma, cudnn;
  std::int64_t cudnn_version;  // 0 without cuDNN
};
BuildFeatures build_features();
std::int64_t threads();
void set_threads(std::int64_t n);
std::int64_t interop_threads();
// libtorch allows this once, before any inter-op work: later it fails with a setting error
// (setting it to the current count always succeeds).
void set_interop_threads(std::int64_t n);
bool cudnn_benchmark();
void set_cudnn_benchmark(bool on);
// 0: off, 1: deterministic algorithms only (a nondeterministic one is an error), 2: warn only.
std::int64_t deterministic();
void set_deterministic(std::int64_t mode);
bool cudnn_deterministic();
void set_cudnn_deterministic(bool on);

// config(): libtorch's build configuration, then its parallel settings (threads, backend), one
// line per string, as ktorch gives them.
std::vector<std::string> config();
// version(): "1.13.0"; version_number(): major + minor/100 + patch/10000 (1.1300).
std::string version();
double version_number();

}  // namespace kscope

#endif  // KSCOPE_API_ENV_ENVIRONMENT_H_
