// Images: writing a PNG file and laying a batch of images out in one grid.
//
// png writes a C x H x W byte tensor (C = 1 gray, 2 gray+alpha, 3 rgb, 4 rgba; data or a
// handle) with libpng. makegrid follows torchvision's make_grid layout: rows x cols cells filled
// row by row, `pad` pixels of `pad_value` around and between the cells, empty cells left at
// pad_value. As ktorch (and make_grid) does, one-channel images are copied to three (gray ->
// rgb) and a batch of one image is laid out like any other; a 3-d batch is read as N x H x W
// one-channel images. Data in -> data out, a handle in -> a new handle out (owned by the current
// scope).
//
// Errors: kscope::Error naming the function and what it expects (shape, dtype, grid size) or
// libpng's message for a file it cannot write; kscope::Error for stale or non-tensor handles.
// Nothing is registered when a call throws. Thread-safety: any thread.
#ifndef KSCOPE_API_TENSOR_IMAGE_H_
#define KSCOPE_API_TENSOR_IMAGE_H_

#include <cstdint>
#include <optional>
#include <string>

#include <c10/core/Scalar.h>

#include "api/core/operand.h"

namespace kscope {

void png(const std::string& file, const Operand& image);

// images: N x C x H x W or N x H x W. With rows only, cols = ceil(N / rows); with cols only,
// rows = ceil(N / cols); with neither, torchvision's default of 8 images a row; rows x cols
// must hold N.
Result makegrid(const Operand& images, std::optional<std::int64_t> rows,
                std::optional<std::int64_t> cols = std::nullopt, std::int64_t pad = 2,
                const c10::Scalar& pad_value = 0);

}  // namespace kscope

#endif  // KSCOPE_API_TENSOR_IMAGE_H_
