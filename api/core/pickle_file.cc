#include "api/core/pickle_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

#include <c10/util/Exception.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include "runtime/errors.h"

namespace kscope {

void ReadPickleFile(const char* fn, const std::string& path, const char* what,
                    absl::FunctionRef<void(const c10::IValue&)> decode) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail("%s: cannot read %s: %s", fn, path, std::strerror(errno));
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  try {
    decode(torch::jit::pickle_load(bytes));
  } catch (const Error&) {
    throw;
  } catch (const c10::Error& e) {
    Fail("%s: %s is not %s (%s)", fn, path, what, e.what_without_backtrace());
  } catch (const std::exception& e) {
    Fail("%s: %s is not %s (%s)", fn, path, what, e.what());
  }
}

void WritePickleFile(const char* fn, const std::string& path, const c10::IValue& value) {
  std::vector<char> bytes;
  try {
    bytes = torch::jit::pickle_save(value);
  } catch (const c10::Error& e) {
    Fail("%s: %s", fn, e.what_without_backtrace());
  }
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (out) out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) Fail("%s: cannot write %s: %s", fn, temporary, std::strerror(errno));
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(temporary.c_str());
    Fail("%s: cannot write %s: %s", fn, path, std::strerror(error));
  }
}

}  // namespace kscope
