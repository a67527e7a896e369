// The project's own PyTorch, for tests that check kscope against PyTorch itself (files PyTorch
// writes and reads, torchrun). The Python is $KSCOPE_PYTHON (CI sets the 2.x line's pip torch),
// else `python3` on PATH, else Debian's /usr/bin/python3 (python3-torch, the 1.13 line's
// PyTorch). tests/pytorch_interop.py is PyTorch's side of the interop tests.
//
// Thread-compatible: calls start processes and wait for them; PyTorchFiles() is made once per
// process (a function-local static, its directory removed at exit) and never changes after.
#ifndef KSCOPE_TESTS_PYTHON_TORCH_H_
#define KSCOPE_TESTS_PYTHON_TORCH_H_

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/temp_directory.h"

// Skips the running test saying `why`, or fails it when environment variable `required` is set
// (CI sets KSCOPE_REQUIRE_PYTORCH and KSCOPE_REQUIRE_TORCHRUN, where the Python must be there). A
// macro because GTEST_SKIP and FAIL return from the test's own function.
#define KSCOPE_SKIP_UNLESS_REQUIRED(required, why)         \
  do {                                                     \
    if (std::getenv(required) != nullptr) FAIL() << (why); \
    GTEST_SKIP() << (why);                                 \
  } while (false)

namespace kscope::testing {

// The first of the Pythons above in which `import <module>` succeeds; "" when none does.
std::string PythonWithModule(const std::string& module);

// What a command printed (stdout and stderr together) and its exit status (-1 if it did not
// exit normally).
struct CommandResult {
  int status;
  std::string output;
};

// Runs `program args...` through /bin/sh, each word single-quoted, and waits for it.
CommandResult RunCommand(const std::vector<std::string>& words);

// PyTorch's files (pytorch_interop.py make), made in a directory of their own the first time
// this is called: the Python with torch ("" if none: nothing is made), the directory, and how
// making them went.
struct MadeFiles {
  MadeFiles();  // finds the Python and makes the files
  std::string File(const std::string& name) const { return dir.Join(name); }

  std::string python;
  TempDirectory dir{"pytorch_interop"};  // removed at the process's exit
  CommandResult made{-1, ""};
};
const MadeFiles& PyTorchFiles();

// Why the interop tests cannot run here ("" when they can): no Python with torch.
std::string PyTorchMissing();

// A tensor pytorch_interop.py wrote as text (NAME.x.txt, NAME.y.txt): its sizes and its values,
// flattened.
struct TextTensor {
  std::vector<std::int64_t> sizes;
  std::vector<float> values;
};
TextTensor PyTorchText(const std::string& file);

// The mlp exported by torch.export and compiled by AOTInductor for `device` (cpu or cuda), made
// the first time a device is asked for (pytorch_interop.py makept2): how making it went; the
// package is PyTorchFiles().File("mlp.<device>.pt2").
const CommandResult& Pt2Package(const std::string& device);

// What PyTorch computes on architecture `name`'s input from kscope's file for it
// (pytorch_interop.py output: `form` statedict reads NAME.kscope.pt, script
// NAME.kscope.script.pt), flattened; what PyTorch printed if it failed, as the error.
struct PyTorchOutput {
  std::vector<double> values;
  std::string error;  // "" on success
};
PyTorchOutput PyTorchOutputOf(const std::string& name, const std::string& form);

// Whether kscope's values equal PyTorch's within `tolerance` element by element; the failure
// names the sizes or the first element that differs.
::testing::AssertionResult ValuesWithin(const std::vector<double>& ours,
                                        const std::vector<double>& pytorch, double tolerance);

// Whether PyTorchOutputOf(name, form) equals `ours` as ValuesWithin does; the failure names
// PyTorch's error, or ValuesWithin's difference.
::testing::AssertionResult PyTorchComputes(const std::string& name, const std::string& form,
                                           const std::vector<double>& ours, double tolerance);

}  // namespace kscope::testing

#endif  // KSCOPE_TESTS_PYTHON_TORCH_H_
