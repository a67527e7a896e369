#include "api/core/file_access.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "absl/cleanup/cleanup.h"
#include "runtime/errors.h"

namespace kscope {

void WriteFileAtomically(const char* fn, const std::string& path,
                         absl::FunctionRef<void(const std::string& temporary)> write) {
  const std::string temporary = path + ".tmp";
  absl::Cleanup remove = [&] { std::remove(temporary.c_str()); };
  write(temporary);
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
    Fail("%s: cannot write %s: %s", fn, path, std::strerror(errno));
  std::move(remove).Cancel();
}

void RequireReadable(const char* fn, const std::string& path) {
  if (!std::ifstream(path, std::ios::binary))
    Fail("%s: cannot read %s: %s", fn, path, std::strerror(errno));
}

}  // namespace kscope
