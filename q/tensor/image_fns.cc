// Adapters for images, with ktorch's argument forms:
//   png(`:file.png;img)                        -> writes img (k bytes or a pointer, C x H x W) as
//                                                 a PNG file, returns the file symbol as given
//   makegrid(imgs;rows[;cols[;pad[;padvalue]]]) -> one C x H x W grid: a pointer for a pointer,
//                                                 else k data; a null rows or cols (0N) is derived
// k data is read in place (InputAt) and results are new tensors.
#include <optional>

#include "api/tensor/image.h"
#include "q/convert/args.h"
#include "q/convert/convert.h"
#include "q/exports.h"
#include "q/guard.h"
#include "runtime/errors.h"

namespace kscope::q {
namespace {

using kabi::K;

K Png(K x) {
  return Guard([&] {
    const Args a("png", x);
    if (a.size() != 2) a.Unrecognized();
    const std::string file = a.SymbolAt(0);
    png(file.rfind(':', 0) == 0 ? file.substr(1) : file,
        a.InputAt(1));  // `:file is q's file handle
    return Symbol(file);
  });
}

// The integer at i, nullopt for 0N or when the call has no argument i.
std::optional<std::int64_t> OptionalLongAt(const Args& a, std::size_t i) {
  if (i >= a.size()) return std::nullopt;
  const std::int64_t v = a.LongAt(i);
  return v == kabi::kNullLong ? std::nullopt : std::optional<std::int64_t>(v);
}

K Makegrid(K x) {
  return Guard([&] {
    const Args a("makegrid", x);
    if (a.size() < 2 || a.size() > 5) a.Unrecognized();
    return KFromResult(makegrid(a.InputAt(0), OptionalLongAt(a, 1), OptionalLongAt(a, 2),
                                OptionalLongAt(a, 3).value_or(2),
                                a.size() > 4 ? a.ScalarAt(4) : c10::Scalar(0)));
  });
}

}  // namespace

std::vector<Export> ImageExports() { return {Unary("png", Png), Unary("makegrid", Makegrid)}; }

}  // namespace kscope::q
