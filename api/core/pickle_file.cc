#include "api/core/pickle_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <vector>

#include <c10/util/Exception.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/export.h>
#include <torch/csrc/jit/serialization/pickler.h>
#include <torch/csrc/jit/serialization/unpickler.h>

#include "api/core/file_access.h"
#include "api/core/pickle_rewrite.h"
#include "runtime/errors.h"
#include "runtime/failure_text.h"

namespace kscope {
namespace {

// The value in a PyTorch archive (a zip of data.pkl and its tensors' records under data/), its
// pickle made readable by libtorch's unpickler first and every tensor put on the CPU (as
// torch.load's map_location="cpu" does: a file saved from a GPU loads anywhere).
c10::IValue ReadArchive(const std::string& path) {
  caffe2::serialize::PyTorchStreamReader archive(path);
  const auto [data, size] = archive.getRecord("data.pkl");
  const std::string pickle = LibtorchReadablePickle({static_cast<const char*>(data.get()), size});
  std::size_t read = 0;
  torch::jit::Unpickler unpickler(
      [&](char* buffer, std::size_t n) {
        n = std::min(n, pickle.size() - read);
        std::memcpy(buffer, pickle.data() + read, n);
        read += n;
        return n;
      },
      /*type_resolver=*/nullptr, /*obj_loader=*/nullptr,
      [&](const std::string& name) { return std::get<0>(archive.getRecord("data/" + name)); },
      at::Device(at::kCPU));
  unpickler.set_version(archive.version());
  return unpickler.parse_ivalue();
}

}  // namespace

void ReadPickleFile(const char* fn, const std::string& path, const char* what,
                    absl::FunctionRef<void(const c10::IValue&)> decode) {
  RequireReadable(fn, path);
  try {
    decode(ReadArchive(path));
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    Fail("%s: %s is not %s (%s)", fn, path, what, FailureText(e));
  }
}

void WritePickleFile(const char* fn, const std::string& path, const c10::IValue& value) {
  // libtorch's pickler, but with its containers untagged: a tag is a call of
  // torch.jit._pickle.restore_type_tag, which torch.load refuses by default since PyTorch 2.6
  // (weights_only=True); a plain dict of tensors loads there.
  std::string pickle;
  torch::jit::Pickler pickler([&](const char* bytes, std::size_t n) { pickle.append(bytes, n); },
                              /*tensor_table=*/nullptr, /*type_renamer=*/nullptr,
                              /*memoized_class_types=*/nullptr, /*get_tensor_id=*/nullptr,
                              /*tag_aggregates=*/false);
  try {
    pickler.protocol();
    pickler.pushIValue(value);
    pickler.stop();
  } catch (const c10::Error& e) {
    Fail("%s: %s", fn, e.what_without_backtrace());
  }
  WriteFileAtomically(fn, path, [&](const std::string& temporary) {
    // The system's reason when the file cannot be made (libtorch's words differ by version).
    if (!std::ofstream(temporary, std::ios::binary))
      Fail("%s: cannot write %s: %s", fn, temporary, std::strerror(errno));
    try {
      caffe2::serialize::PyTorchStreamWriter archive(temporary);
      torch::jit::writeArchiveAndTensors("data", pickle.data(), pickle.size(), pickler.tensorData(),
                                         archive);
      archive.writeEndOfFile();
    } catch (const c10::Error& e) {
      Fail("%s: cannot write %s: %s", fn, temporary, e.what_without_backtrace());
    }
  });
}

}  // namespace kscope
