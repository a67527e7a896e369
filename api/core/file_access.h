// Files that kscope reads and writes for the user (checkpoints, state dicts, TorchScript files,
// torch.export packages):
// - WriteFileAtomically writes a file whole or not at all: the content goes to `path`.tmp,
//   which is then renamed to `path`, so a crash or an error while writing leaves an earlier file
//   at `path` whole (rename replaces it atomically on POSIX file systems).
// - RequireReadable checks a file can be opened before a reader that would say less about why
//   it cannot (libtorch's archive and package readers) is given it.
//
// Errors: kscope::Error "<fn>: cannot write <path>: <reason>" when the rename fails (whatever
// `write` throws passes through, after the temporary file is removed); "<fn>: cannot read
// <path>: <reason>" from RequireReadable. Thread-safety: any thread; one path must not be
// written by two calls at once.
#ifndef KSCOPE_API_CORE_FILE_ACCESS_H_
#define KSCOPE_API_CORE_FILE_ACCESS_H_

#include <string>

#include "absl/functional/function_ref.h"

namespace kscope {

// Calls write(temporary) to write the content to `path`.tmp, then renames it to `path`.
void WriteFileAtomically(const char* fn, const std::string& path,
                         absl::FunctionRef<void(const std::string& temporary)> write);

// Throws kscope::Error "<fn>: cannot read <path>: <reason>" unless `path` opens for reading.
void RequireReadable(const char* fn, const std::string& path);

}  // namespace kscope

#endif  // KSCOPE_API_CORE_FILE_ACCESS_H_
