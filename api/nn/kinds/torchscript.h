// The `torchscript` module kind's libtorch side, for api/nn/torchscript.cc: the TorchScript
// module behind a module of that kind.
//
// Internal to api/nn. Thread-compatible, like the module.
#ifndef KSCOPE_API_NN_KINDS_TORCHSCRIPT_H_
#define KSCOPE_API_NN_KINDS_TORCHSCRIPT_H_

#include <torch/csrc/jit/api/module.h>
#include <torch/nn/module.h>

namespace kscope::nn {

// The TorchScript module m was loaded from, sharing its parameters and buffers; nullptr unless
// m is a `torchscript` module.
torch::jit::Module* ScriptModuleOf(torch::nn::Module& m);

}  // namespace kscope::nn

#endif  // KSCOPE_API_NN_KINDS_TORCHSCRIPT_H_
