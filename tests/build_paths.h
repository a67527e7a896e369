// Where this build put the programs and plugins that tests and benchmarks load or start.
//
// Defined in build_paths.cc, which CMake writes into the build directory (tests/CMakeLists.txt)
// and compiles apart from the unity batches: the paths are absolute, so a clone in another
// folder changes that one small file and ccache still serves every batch that uses them.
// Plain constants: safe from any thread.
#ifndef KSCOPE_TESTS_BUILD_PATHS_H_
#define KSCOPE_TESTS_BUILD_PATHS_H_

namespace kscope::testing {

extern const char* const kPluginPath;             // q/ktorch.so, the q plugin
extern const char* const kEchoPluginPath;         // the k host's minimal test plugin
extern const char* const kDistributedWorkerPath;  // tests/distributed_worker, one rank
extern const char* const kDifferentialDir;        // tests/differential in the source tree
extern const char* const kPyTorchInteropScript;   // tests/pytorch_interop.py in the source tree

}  // namespace kscope::testing

#endif  // KSCOPE_TESTS_BUILD_PATHS_H_
