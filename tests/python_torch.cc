#include "tests/python_torch.h"

#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "tests/build_paths.h"

namespace kscope::testing {

CommandResult RunCommand(const std::vector<std::string>& words) {
  std::string command;
  for (const std::string& w : words)
    absl::StrAppend(&command, "'", absl::StrReplaceAll(w, {{"'", "'\\''"}}), "' ");
  command += "2>&1";
  CommandResult result{-1, ""};
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    result.output.append(buffer, n);
  const int status = pclose(pipe);
  if (status != -1 && WIFEXITED(status)) result.status = WEXITSTATUS(status);
  return result;
}

std::string PythonWithModule(const std::string& module) {
  std::vector<std::string> candidates = {"python3", "/usr/bin/python3"};
  if (const char* chosen = std::getenv("KSCOPE_PYTHON"))
    candidates.insert(candidates.begin(), chosen);
  for (const std::string& python : candidates) {
    if (RunCommand({python, "-c", "import " + module}).status == 0) return python;
  }
  return "";
}

MadeFiles::MadeFiles() : python(PythonWithModule("torch")) {
  if (!python.empty()) made = RunCommand({python, kPyTorchInteropScript, "make", dir.path()});
}

const MadeFiles& PyTorchFiles() {
  static const MadeFiles files;
  return files;
}

std::string PyTorchMissing() {
  return PyTorchFiles().python.empty()
             ? "no python3 with torch (Debian's python3-torch, or KSCOPE_PYTHON)"
             : "";
}

TextTensor PyTorchText(const std::string& file) {
  std::ifstream text(PyTorchFiles().File(file));
  std::string sizes_line, values_line;
  std::getline(text, sizes_line);
  std::getline(text, values_line);
  TextTensor t;
  std::istringstream sizes(sizes_line), values(values_line);
  for (std::int64_t n; sizes >> n;) t.sizes.push_back(n);
  for (float v; values >> v;) t.values.push_back(v);
  return t;
}

const CommandResult& Pt2Package(const std::string& device) {
  static auto* const made = new std::map<std::string, CommandResult>();
  auto [it, fresh] = made->try_emplace(device, CommandResult{-1, ""});
  if (fresh) {
    const MadeFiles& files = PyTorchFiles();
    it->second =
        RunCommand({files.python, kPyTorchInteropScript, "makept2", files.dir.path(), device});
  }
  return it->second;
}

PyTorchOutput PyTorchOutputOf(const std::string& name, const std::string& form) {
  const MadeFiles& files = PyTorchFiles();
  const CommandResult run =
      RunCommand({files.python, kPyTorchInteropScript, "output", files.dir.path(), name, form});
  const std::string heading = name + ": PyTorch ";
  const std::size_t at = run.output.find(heading);
  if (run.status != 0 || at == std::string::npos) return {{}, run.output};
  std::istringstream numbers(run.output.substr(run.output.find('\n', at) + 1));
  PyTorchOutput out;
  for (double v; numbers >> v;) out.values.push_back(v);
  if (out.values.empty()) out.error = run.output;
  return out;
}

::testing::AssertionResult ValuesWithin(const std::vector<double>& ours,
                                        const std::vector<double>& pytorch, double tolerance) {
  if (pytorch.size() != ours.size())
    return ::testing::AssertionFailure()
           << "PyTorch has " << pytorch.size() << " values, kscope " << ours.size();
  for (std::size_t i = 0; i < ours.size(); ++i) {
    if (!(std::abs(ours[i] - pytorch[i]) <= tolerance))
      return ::testing::AssertionFailure()
             << "value " << i << ": PyTorch " << pytorch[i] << ", kscope " << ours[i]
             << " (tolerance " << tolerance << ")";
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult PyTorchComputes(const std::string& name, const std::string& form,
                                           const std::vector<double>& ours, double tolerance) {
  const PyTorchOutput pytorch = PyTorchOutputOf(name, form);
  if (!pytorch.error.empty())
    return ::testing::AssertionFailure() << "PyTorch failed: " << pytorch.error;
  return ValuesWithin(ours, pytorch.values, tolerance);
}

}  // namespace kscope::testing
