// Pickle files — PyTorch's pickle archives (a zip of data.pkl and its tensors' records: what
// Python's torch.save writes and torch.load reads) as files, for checkpoints and state dicts.
//
// WritePickleFile writes the value with torch::jit::pickle_save to `path`.tmp and renames it to
// `path`, so a crash while writing leaves an earlier file at `path` whole. ReadPickleFile reads
// what WritePickleFile or Python's torch.save wrote (its pickle rewritten by
// api/core/pickle_rewrite.h, so an OrderedDict reads as a dict), every tensor on the CPU as
// torch.load(map_location="cpu") puts them, and hands the value to `decode`; a file that does not
// unpickle, and a libtorch error or std::exception thrown by decode (a value of the wrong type),
// are "<fn>: <path> is not <what> (<reason>)"; a kscope::Error from decode passes unchanged.
//
// Errors: kscope::Error "<fn>: cannot read <path>: <reason>" / "<fn>: cannot write <path>:
// <reason>", and the above. Thread-safety: any thread; one file must not be written by two calls
// at once.
#ifndef KSCOPE_API_CORE_PICKLE_FILE_H_
#define KSCOPE_API_CORE_PICKLE_FILE_H_

#include <string>

#include <ATen/core/ivalue.h>

#include "absl/functional/function_ref.h"

namespace kscope {

void ReadPickleFile(const char* fn, const std::string& path, const char* what,
                    absl::FunctionRef<void(const c10::IValue&)> decode);
void WritePickleFile(const char* fn, const std::string& path, const c10::IValue& value);

}  // namespace kscope

#endif  // KSCOPE_API_CORE_PICKLE_FILE_H_
