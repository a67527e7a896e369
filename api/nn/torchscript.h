// TorchScript modules — a module saved by Python's torch.jit.save (torch.jit.script or
// torch.jit.trace output) as a kscope module, and saved back.
//
// torchscript(path) is module({"torchscript", "", {path}}): the `torchscript` kind, whose one
// option `file` names the file (q: module(`torchscript;`:path)). The module is loaded on the CPU
// (`to` moves it, its parameters and buffers) and behaves as any kscope module: forward,
// evaluate, parms and parmnames under PyTorch's names, training, state and clone (which load the
// file again and copy the values in), in a model with a loss and an optimizer, trained by run.
// Its forward takes one to three tensors and gives a tensor, or a vector of tensors for a tuple
// or list of them. Tensors the TorchScript code holds as plain attributes (not parameters or
// buffers) do not move with `to`. TorchScript is deprecated in PyTorch 2.x but loads on both
// libtorch lines.
//
// save_torchscript(q, path) writes q's TorchScript module, with the values q holds now, as
// torch.jit.save does (to `path`.tmp, then renamed): Python's torch.jit.load reads it.
//
// Ownership: torchscript registers one new handle in the calling thread's innermost scope;
// save_torchscript makes none. Errors: kscope::Error "torchscript: cannot read /x: No such file
// or directory", "torchscript: /x is not a TorchScript module (...)", "savescript: expected a
// torchscript module, given linear", "savescript: cannot write /x: ..."; on an error no handle
// is made. Thread-safety: any thread; a module must not be run from two threads at once.
#ifndef KSCOPE_API_NN_TORCHSCRIPT_H_
#define KSCOPE_API_NN_TORCHSCRIPT_H_

#include <string>

#include "runtime/handle.h"

namespace kscope {

Handle torchscript(const std::string& path);
void save_torchscript(Handle q, const std::string& path);

}  // namespace kscope

#endif  // KSCOPE_API_NN_TORCHSCRIPT_H_
