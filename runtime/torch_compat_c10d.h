// The libtorch 1.13/2.x bridge for c10d (the other half of runtime/torch_compat.h, apart so that
// only the distributed sources parse c10d's headers).
//
// - The collectives run on a c10d::ProcessGroup in libtorch 1.x and on a c10d::Backend from 2.0
//   on (ProcessGroupGloo and ProcessGroupNCCL derive from it); the methods kscope calls are the
//   same in both, so kscope spells the type C10dCollectives.
#ifndef KSCOPE_RUNTIME_TORCH_COMPAT_C10D_H_
#define KSCOPE_RUNTIME_TORCH_COMPAT_C10D_H_

#include <torch/version.h>
#if TORCH_VERSION_MAJOR >= 2
#include <torch/csrc/distributed/c10d/Backend.hpp>
#else
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#endif

namespace kscope {

#if TORCH_VERSION_MAJOR >= 2
using C10dCollectives = c10d::Backend;
#else
using C10dCollectives = c10d::ProcessGroup;
#endif

}  // namespace kscope

#endif  // KSCOPE_RUNTIME_TORCH_COMPAT_C10D_H_
