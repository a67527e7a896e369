#include "tests/temp_directory.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace kscope::testing {
namespace {

int RemoveEntry(const char* path, const struct stat*, int, struct FTW*) {
  std::remove(path);  // files and (emptied, since FTW_DEPTH visits them last) directories
  return 0;
}

}  // namespace

TempDirectory::TempDirectory(absl::string_view prefix) {
  const char* base = std::getenv("TMPDIR");
  path_ = absl::StrCat(base != nullptr && *base != '\0' ? base : "/tmp", "/", prefix, "XXXXXX");
  if (mkdtemp(path_.data()) == nullptr) {
    std::perror(absl::StrCat("TempDirectory: mkdtemp ", path_).c_str());
    std::abort();
  }
}

TempDirectory::~TempDirectory() { nftw(path_.c_str(), RemoveEntry, 16, FTW_DEPTH | FTW_PHYS); }

std::string TempDirectory::Join(absl::string_view relative) const {
  return absl::StrCat(path_, "/", relative);
}

bool MakeParentDirectories(const std::string& file) {
  for (std::size_t slash = file.find('/', 1); slash != std::string::npos;
       slash = file.find('/', slash + 1)) {
    const std::string directory = file.substr(0, slash);
    if (mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  return true;
}

bool PathExists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

}  // namespace kscope::testing
