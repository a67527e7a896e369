// api/tensor/image.h: png writes files that libpng reads back pixel for pixel (data and handles,
// 1-4 channels); makegrid lays images out as torchvision's make_grid does (checked cell by cell
// against the layout's formula, and on a small grid written out by hand); bad arguments give
// errors naming the function and register nothing.
#include <optional>
#include <string>
#include <vector>

#include <ATen/ops/arange.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/zeros.h>

#include "api/tensor/image.h"
#include "tests/error_text.h"
#include "tests/png_read.h"
#include "tests/temp_directory.h"
#include "tests/test_fixture.h"

namespace kscope {
namespace image_test {

using testing::ErrorOf;
using ::testing::HasSubstr;
using testing::LeakCheckTest;
using ::testing::StartsWith;

class ImageTest : public LeakCheckTest {
 protected:
  void SetUp() override {
    LeakCheckTest::SetUp();
    dir_.emplace("kscope_image_test_");
  }
  void TearDown() override {
    dir_.reset();
    LeakCheckTest::TearDown();
  }
  std::string File(const std::string& name) const { return dir_->Join(name); }

 private:
  std::optional<testing::TempDirectory> dir_;
};

// A PNG file read back with libpng: channels x height x width bytes as stored.
at::Tensor ReadPngTensor(const std::string& file) {
  testing::PngPixels p = testing::ReadPng(file);
  if (!p.error.empty()) {
    ADD_FAILURE() << "libpng cannot read " << file << ": " << p.error;
    return at::Tensor();
  }
  return at::tensor(at::ArrayRef<std::uint8_t>(p.hwc))
      .view({p.height, p.width, p.channels})
      .permute({2, 0, 1});
}

at::Tensor RandomImage(std::int64_t c, std::int64_t h, std::int64_t w) {
  return at::randint(0, 256, {c, h, w}, at::kByte);
}

TEST_F(ImageTest, PngWritesWhatLibpngReadsBack) {
  auto scope = Scope::Open();
  for (std::int64_t c = 1; c <= 4; ++c) {
    const at::Tensor img = RandomImage(c, 5, 7);
    const std::string data_file = File("data" + std::to_string(c) + ".png");
    png(data_file, img);
    EXPECT_TRUE(at::equal(ReadPngTensor(data_file), img)) << c << " channels";
    Handle h = tensor(img);
    const std::string handle_file = File("handle" + std::to_string(c) + ".png");
    png(handle_file, h);
    EXPECT_TRUE(at::equal(ReadPngTensor(handle_file), img)) << c << " channels";
  }
  // a non-contiguous image (a transposed view) is written as its values read
  const at::Tensor wide = RandomImage(3, 6, 4);
  const at::Tensor view = wide.transpose(1, 2);
  png(File("view.png"), view);
  EXPECT_TRUE(at::equal(ReadPngTensor(File("view.png")), view));
  EXPECT_EQ(live_handles(), 4u);
}

TEST_F(ImageTest, PngRejectsWhatIsNotAByteImage) {
  auto scope = Scope::Open();
  const std::string file = File("bad.png");
  const std::string expected =
      "png: expects a C x H x W byte image with 1-4 channels (gray, gray+alpha, rgb, rgba), given ";
  EXPECT_EQ(ErrorOf([&] {
              png(file, at::randn({3, 4, 4}));
            }),
            expected + "float tensor of size 3 4 4");
  EXPECT_EQ(ErrorOf([&] { png(file, RandomImage(5, 2, 2)); }),
            expected + "byte tensor of size 5 2 2");
  Handle flat = tensor(at::randint(0, 256, {4, 4}, at::kByte));
  EXPECT_EQ(ErrorOf([&] { png(file, flat); }), expected + "byte tensor of size 4 4");
  EXPECT_FALSE(testing::PathExists(file));
  EXPECT_THAT(ErrorOf([&] { png(File("no/such/dir/x.png"), RandomImage(1, 2, 2)); }),
              StartsWith("png: cannot write " + File("no/such/dir/x.png") + ": "));
  EXPECT_EQ(live_handles(), 1u);
}

// The grid torchvision's make_grid lays out, pixel by pixel: cell (y, x) starts at
// pad + y*(h+pad), pad + x*(w+pad) and holds image y*cols + x; the rest is pad_value.
at::Tensor GridByFormula(const at::Tensor& images, std::int64_t rows, std::int64_t cols,
                         std::int64_t pad, double pad_value) {
  const std::int64_t n = images.size(0), c = images.size(1), h = images.size(2), w = images.size(3);
  at::Tensor grid =
      at::zeros({c, rows * (h + pad) + pad, cols * (w + pad) + pad}, images.options());
  auto accessor = images.accessor<double, 4>();
  for (std::int64_t k = 0; k < c; ++k) {
    for (std::int64_t Y = 0; Y < grid.size(1); ++Y) {
      for (std::int64_t X = 0; X < grid.size(2); ++X) {
        const std::int64_t y = (Y - pad) / (h + pad), oy = (Y - pad) % (h + pad);
        const std::int64_t x = (X - pad) / (w + pad), ox = (X - pad) % (w + pad);
        const std::int64_t i = y * cols + x;
        const bool inside = Y >= pad && X >= pad && oy < h && ox < w && i < n;
        grid[k][Y][X] = inside ? accessor[i][k][oy][ox] : pad_value;
      }
    }
  }
  return grid;
}

TEST_F(ImageTest, MakegridFollowsTorchvisionsLayout) {
  auto scope = Scope::Open();
  const at::Tensor images = at::randn({7, 3, 4, 5}, at::kDouble);
  EXPECT_TRUE(at::equal(makegrid(images, 3).tensor(), GridByFormula(images, 3, 3, 2, 0)));
  EXPECT_TRUE(at::equal(makegrid(images, 2, std::nullopt, 1, -1.5).tensor(),
                        GridByFormula(images, 2, 4, 1, -1.5)));
  EXPECT_TRUE(
      at::equal(makegrid(images, std::nullopt, 2, 0).tensor(), GridByFormula(images, 4, 2, 0, 0)));
  EXPECT_TRUE(at::equal(makegrid(images, 3, 4, 3, 9).tensor(), GridByFormula(images, 3, 4, 3, 9)));
  // torchvision's default: 8 a row, padding 2
  EXPECT_EQ(makegrid(at::zeros({10, 3, 28, 28}), std::nullopt).tensor().sizes(),
            (at::IntArrayRef{3, 62, 242}));
  Handle h = tensor(images);
  Result grid = makegrid(h, 3);
  ASSERT_TRUE(grid.is_handle());
  EXPECT_TRUE(at::equal(TensorOf("test", grid.handle()), GridByFormula(images, 3, 3, 2, 0)));
  EXPECT_EQ(obj().back().origin, "makegrid");
}

TEST_F(ImageTest, MakegridOnAGridWrittenOutByHand) {
  auto scope = Scope::Open();
  // three 1x1 one-channel images 1 2 3, 2 rows (so 2 cols), pad 1 of 9: gray becomes rgb
  const at::Tensor images = at::arange(1, 4, at::kLong).view({3, 1, 1});  // N x H x W
  const at::Tensor channel = at::tensor({9, 9, 9, 9, 9,                   //
                                         9, 1, 9, 2, 9,                   //
                                         9, 9, 9, 9, 9,                   //
                                         9, 3, 9, 9, 9,                   //
                                         9, 9, 9, 9, 9},
                                        at::kLong)
                                 .view({1, 5, 5});
  EXPECT_TRUE(
      at::equal(makegrid(images, 2, std::nullopt, 1, 9).tensor(), channel.expand({3, 5, 5})));
  // one image: padded like any grid, as ktorch does
  const at::Tensor one = at::randn({1, 3, 4, 4}, at::kDouble);
  EXPECT_TRUE(at::equal(makegrid(one, 2, 1).tensor(), GridByFormula(one, 2, 1, 2, 0)));
}

TEST_F(ImageTest, MakegridRejectsBadArgumentsAndRegistersNothing) {
  auto scope = Scope::Open();
  Handle h = tensor(at::randn({5, 1, 2, 2}));
  EXPECT_EQ(ErrorOf([&] { makegrid(h, 2, 2); }),
            "makegrid: 2 rows x 2 cols hold 4 images, given 5");
  EXPECT_EQ(ErrorOf([&] { makegrid(h, 0); }), "makegrid: rows must be positive, given 0");
  EXPECT_EQ(ErrorOf([&] { makegrid(h, 2, -1); }), "makegrid: cols must be positive, given -1");
  EXPECT_EQ(ErrorOf([&] { makegrid(h, 2, 3, -1); }),
            "makegrid: padding must not be negative, given -1");
  EXPECT_EQ(ErrorOf([&] {
              makegrid(at::randn({4, 4}), 2);
            }),
            "makegrid: expecting 3 or 4-dimensional input, 2 dimension(s) given");
  EXPECT_THAT(ErrorOf([&] { makegrid(at::randn({0, 4, 4}), 2); }), HasSubstr("at least one image"));
  EXPECT_EQ(live_handles(), 1u);
}

}  // namespace image_test
}  // namespace kscope
