#include "api/tensor/image.h"

#include <png.h>

#include <algorithm>
#include <utility>

#include <ATen/ops/full.h>

#include "absl/strings/str_join.h"
#include "runtime/errors.h"
#include "runtime/names.h"

namespace kscope {
namespace {

std::string Describe(const at::Tensor& t) {
  return absl::StrFormat("%s tensor of size %s", DtypeName(t.scalar_type()),
                         absl::StrJoin(t.sizes(), " "));
}

// libpng's simplified-API format for c channels.
png_uint_32 PngFormat(std::int64_t c) {
  switch (c) {
    case 1: return PNG_FORMAT_GRAY;
    case 2: return PNG_FORMAT_GA;
    case 3: return PNG_FORMAT_RGB;
    default: return PNG_FORMAT_RGBA;
  }
}

std::int64_t CeilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

struct GridShape {
  std::int64_t rows, cols;
};

GridShape GridFor(std::int64_t n, std::optional<std::int64_t> rows,
                  std::optional<std::int64_t> cols) {
  for (const auto& [name, v] : {std::pair{"rows", rows}, std::pair{"cols", cols}}) {
    if (v && *v < 1) Fail("makegrid: %s must be positive, given %d", name, *v);
  }
  GridShape g;
  if (rows && cols) {
    g = {*rows, *cols};
  } else if (rows) {
    g = {*rows, CeilDiv(n, *rows)};
  } else {
    g.cols = cols ? *cols : std::min<std::int64_t>(8, n);  // torchvision's nrow=8
    g.rows = CeilDiv(n, g.cols);
  }
  if (g.rows * g.cols < n) {
    Fail("makegrid: %d rows x %d cols hold %d images, given %d", g.rows, g.cols, g.rows * g.cols,
         n);
  }
  return g;
}

at::Tensor Grid(const at::Tensor& given, std::optional<std::int64_t> rows,
                std::optional<std::int64_t> cols, std::int64_t pad, const c10::Scalar& pad_value) {
  if (given.dim() != 3 && given.dim() != 4) {
    Fail("makegrid: expecting 3 or 4-dimensional input, %d dimension(s) given",
         given.dim());  // ktorch's text
  }
  if (given.size(0) < 1) Fail("makegrid: expects at least one image, given %s", Describe(given));
  if (pad < 0) Fail("makegrid: padding must not be negative, given %d", pad);
  at::Tensor images = given.dim() == 3 ? given.unsqueeze(1) : given;
  const std::int64_t n = images.size(0), h = images.size(2), w = images.size(3);
  if (images.size(1) == 1)
    images = images.expand({n, 3, h, w});  // gray to rgb, as ktorch and torchvision
  const GridShape g = GridFor(n, rows, cols);
  at::Tensor grid = at::full({images.size(1), g.rows * (h + pad) + pad, g.cols * (w + pad) + pad},
                             pad_value, images.options());
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t y = k / g.cols, x = k % g.cols;
    grid.narrow(1, y * (h + pad) + pad, h).narrow(2, x * (w + pad) + pad, w).copy_(images[k]);
  }
  return grid;
}

}  // namespace

void png(const std::string& file, const Operand& image) {
  const at::Tensor t = Resolve("png", {&image}).tensors[0];
  if (t.scalar_type() != at::kByte || t.dim() != 3 || t.size(0) < 1 || t.size(0) > 4 ||
      t.numel() == 0) {
    Fail(
        "png: expects a C x H x W byte image with 1-4 channels (gray, gray+alpha, rgb, rgba), "
        "given %s",
        Describe(t));
  }
  const at::Tensor pixels =
      t.permute({1, 2, 0}).to(at::kCPU).contiguous();  // H x W x C, as libpng reads
  png_image out{};
  out.version = PNG_IMAGE_VERSION;
  out.width = static_cast<png_uint_32>(t.size(2));
  out.height = static_cast<png_uint_32>(t.size(1));
  out.format = PngFormat(t.size(0));
  if (!png_image_write_to_file(&out, file.c_str(), 0, pixels.data_ptr<std::uint8_t>(), 0,
                               nullptr)) {
    Fail("png: cannot write %s: %s", file, out.message);
  }
}

Result makegrid(const Operand& images, std::optional<std::int64_t> rows,
                std::optional<std::int64_t> cols, std::int64_t pad, const c10::Scalar& pad_value) {
  return Compute("makegrid", {&images}, Handle(),
                 [&](const TensorList& t) { return Grid(t[0], rows, cols, pad, pad_value); });
}

}  // namespace kscope
