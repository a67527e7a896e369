// TempDirectory — a private directory for a test's files (made with mkdtemp under $TMPDIR, else
// /tmp), removed with everything in it when the object is destroyed.
//
// POSIX calls only (mkdtemp, mkdir, nftw), no std::filesystem: PyPI's libtorch 2.11 exports its
// own copy of std::filesystem from libtorch.so, a test executable's calls bind to that copy
// before libstdc++'s, and its remove_all jumps to address 0 (seen on the GPU machine,
// 2026-11-26; libtorch 1.13 and 2.15 are unaffected).
//
// Errors: the constructor aborts when no directory can be made (no test can go on without
// it); MakeParentDirectories reports failure by its result; removal errors are ignored.
// Thread-compatible: one object per test, or one per process behind a function-local static.
#ifndef KSCOPE_TESTS_TEMP_DIRECTORY_H_
#define KSCOPE_TESTS_TEMP_DIRECTORY_H_

#include <string>

#include "absl/strings/string_view.h"

namespace kscope::testing {

class TempDirectory {
 public:
  // A new directory named `prefix` followed by six random characters.
  explicit TempDirectory(absl::string_view prefix);
  ~TempDirectory();
  TempDirectory(const TempDirectory&) = delete;
  TempDirectory& operator=(const TempDirectory&) = delete;

  const std::string& path() const { return path_; }
  // path()/relative (nothing is created).
  std::string Join(absl::string_view relative) const;

 private:
  std::string path_;
};

// Makes every missing directory above `file` (mkdir -p of its parent); true when they all exist.
bool MakeParentDirectories(const std::string& file);

// Whether `path` names an existing file or directory.
bool PathExists(const std::string& path);

}  // namespace kscope::testing

#endif  // KSCOPE_TESTS_TEMP_DIRECTORY_H_
