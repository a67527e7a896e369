// Pickle rewriting — makes the pickles Python's torch.save writes readable by libtorch's C++
// unpickler (torch::jit::Unpickler), which knows only the subset of pickle libtorch itself writes.
//
// Two differences matter for state dicts and checkpoints saved from Python:
//   - collections.OrderedDict: libtorch's unpickler turns OrderedDict() into None (it expects
//     one only as a tensor's backward hooks, whose value it drops), so a state dict — an
//     OrderedDict — loads as None. Each OrderedDict() (`GLOBAL collections OrderedDict`, or a
//     memo reference to it, followed by `EMPTY_TUPLE REDUCE`) becomes a plain dict, and the
//     state set on it afterwards (`BUILD`: a state dict's `_metadata` attribute) is dropped.
//   - SETITEM: libtorch 1.13's unpickler lacks it; `key value SETITEM` becomes
//     `MARK key value SETITEMS`.
// Everything else is copied byte for byte. The rewrite walks every opcode of pickle protocols
// 0 to 2 (torch.save's default is 2) and tracks the stack's depth to find where each value
// begins; opcodes of protocol 3 and later, and malformed input, are refused.
//
// Errors: std::runtime_error saying what is wrong and at which byte ("pickle opcode 0x95 at
// byte 2 (protocol 3 and later) is not supported"); callers name their function and file.
// Thread-safety: a pure function.
#ifndef KSCOPE_API_CORE_PICKLE_REWRITE_H_
#define KSCOPE_API_CORE_PICKLE_REWRITE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace kscope {

// `pickle` (a whole pickle, up to and including its STOP) rewritten as above.
std::string LibtorchReadablePickle(absl::string_view pickle);

}  // namespace kscope

#endif  // KSCOPE_API_CORE_PICKLE_REWRITE_H_
