// ReadPng — a PNG file read back with libpng's simplified API, for tests that check the pixels
// png wrote. Header-only; the test binary links libpng (PNG::PNG).
#ifndef KSCOPE_TESTS_PNG_READ_H_
#define KSCOPE_TESTS_PNG_READ_H_

#include <png.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kscope::testing {

struct PngPixels {
  std::string error;  // libpng's message when the file could not be read; else empty
  int channels = 0, height = 0, width = 0;
  std::vector<std::uint8_t> hwc;  // height x width x channels, as stored
};

inline PngPixels ReadPng(const std::string& file) {
  PngPixels p;
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_file(&image, file.c_str())) {
    p.channels = static_cast<int>(PNG_IMAGE_PIXEL_CHANNELS(image.format));
    p.height = static_cast<int>(image.height);
    p.width = static_cast<int>(image.width);
    p.hwc.resize(PNG_IMAGE_SIZE(image));
    if (png_image_finish_read(&image, nullptr, p.hwc.data(), 0, nullptr)) return p;
  }
  p.error = image.message;
  return p;
}

}  // namespace kscope::testing

#endif  // KSCOPE_TESTS_PNG_READ_H_
