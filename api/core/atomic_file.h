// Writing a file whole or not at all: the content goes to `path`.tmp, which is then renamed to
// `path`, so a crash or an error while writing leaves an earlier file at `path` whole (rename
// replaces it atomically on POSIX file systems). Checkpoints, state dicts and TorchScript files
// are written this way.
//
// Errors: whatever `write` throws, after the temporary file is removed; kscope::Error
// "<fn>: cannot write <path>: <reason>" when the rename fails. Thread-safety: any thread; one
// path must not be written by two calls at once.
#ifndef KSCOPE_API_CORE_ATOMIC_FILE_H_
#define KSCOPE_API_CORE_ATOMIC_FILE_H_

#include <string>

#include "absl/functional/function_ref.h"

namespace kscope {

// Calls write(temporary) to write the content to `path`.tmp, then renames it to `path`.
void WriteFileAtomically(const char* fn, const std::string& path,
                         absl::FunctionRef<void(const std::string& temporary)> write);

}  // namespace kscope

#endif  // KSCOPE_API_CORE_ATOMIC_FILE_H_
