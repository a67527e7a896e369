// png and makegrid through the plugin, as q calls them: png(`:file;img) with k bytes or a pointer
// writes a file libpng reads back pixel for pixel and returns the file symbol; makegrid of k data
// gives k data, of a pointer a pointer, laid out as torchvision's make_grid (a small grid written
// out by hand; api/tensor/image.h's tests check the layout's formula cell by cell). Bad arguments
// give errors naming the function and create nothing.
#include <cstdio>
#include <string>

#include "tests/plugin_fixture.h"
#include "tests/png_read.h"

namespace kscope::testing {
namespace plugin_image_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class PluginImageTest : public PluginTest {
 protected:
  std::string File(const char* name) {
    const std::string file = ::testing::TempDir() + "kscope_plugin_image_test_" + name;
    files_.push_back(file);
    return file;
  }
  void TearDown() override {
    for (const std::string& f : files_) std::remove(f.c_str());
    PluginTest::TearDown();
  }

 private:
  std::vector<std::string> files_;
};

TEST_F(PluginImageTest, PngWritesKBytesAndPointers) {
  // 2 channels (gray+alpha) x 2 rows x 3 columns
  const char* img = "((0x000102;0x030405);(0xff1020;0x304050))";
  const std::string file = File("k.png");
  KRef written = Call("png", List({kq::Sym(":" + file), Q(img).share()}));
  EXPECT_EQ(S1(written), "`:" + file);
  PngPixels p = ReadPng(file);
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.channels, 2);
  EXPECT_EQ(p.height, 2);
  EXPECT_EQ(p.width, 3);
  EXPECT_THAT(p.hwc,
              ElementsAre(0x00, 0xff, 0x01, 0x10, 0x02, 0x20, 0x03, 0x30, 0x04, 0x40, 0x05, 0x50));

  KRef t = Call("tensor", img);
  const std::string pointer_file = File("pointer.png");
  EXPECT_EQ(S1(Call("png", List({kq::Sym(pointer_file), t.share()}))), "`" + pointer_file);
  PngPixels q = ReadPng(pointer_file);
  ASSERT_EQ(q.error, "");
  EXPECT_EQ(q.hwc, p.hwc);
  Call("free", t);
}

TEST_F(PluginImageTest, PngErrorsNameTheFunction) {
  const std::string file = File("bad.png");
  EXPECT_EQ(Error("png", List({kq::Sym(file), Q("enlist(1 2e;3 4e)").share()})),
            "png: expects a C x H x W byte image with 1-4 channels (gray, gray+alpha, rgb, rgba), "
            "given float "
            "tensor of size 1 2 2");
  EXPECT_THAT(Error("png", List({Q("\"file.png\"").share(), Q("enlist enlist 0x01").share()})),
              HasSubstr("png: arg[0] expected symbol"));
  EXPECT_THAT(Error("png", KRef(kq::Sym(file))), HasSubstr("png: unrecognized arg(s)"));
  EXPECT_EQ(ReadPng(file).channels, 0);  // nothing written
}

TEST_F(PluginImageTest, MakegridOfKDataAndPointers) {
  // three 1x1 images 1 2 3 (N x H x W), 2 rows, pad 1 of 9: torchvision's layout, the gray
  // channel copied to three as ktorch does
  const std::string channel = "(9 9 9 9 9;9 1 9 2 9;9 9 9 9 9;9 3 9 9 9;9 9 9 9 9)";
  const std::string expected = "(" + channel + ";" + channel + ";" + channel + ")";
  EXPECT_EQ(S1(Call("makegrid", "((enlist ,1;enlist ,2;enlist ,3);2;0N;1;9)")), S1(Q(expected)));
  EXPECT_EQ(S1(Call("makegrid", "((enlist ,1;enlist ,2;enlist ,3);0N;2;1;9)")), S1(Q(expected)));
  KRef t = Call("tensor", "(enlist ,1;enlist ,2;enlist ,3)");
  KRef grid =
      Call("makegrid", List({t.share(), kq::Long(2), kq::Long(2), kq::Long(1), kq::Long(9)}));
  EXPECT_EQ(S1(Call("tensor", grid)), S1(Q(expected)));
  // defaults: pad 2 of 0
  const std::string padded =
      "(0 0 0 0 0 0 0 0;0 0 0 0 0 0 0 0;0 0 1 0 0 2 0 0;0 0 0 0 0 0 0 0;0 0 0 0 0 0 0 0)";
  EXPECT_EQ(S1(Call("makegrid", List({Q("(enlist ,1;enlist ,2)").share(), kq::Long(1)}))),
            S1(Q("(" + padded + ";" + padded + ";" + padded + ")")));
  Call("free", List({t.share(), grid.share()}));
}

TEST_F(PluginImageTest, MakegridErrorsNameTheFunction) {
  KRef t = Call("tensor", "(enlist ,1;enlist ,2;enlist ,3)");
  EXPECT_EQ(Error("makegrid", List({t.share(), kq::Long(1), kq::Long(2)})),
            "makegrid: 1 rows x 2 cols hold 2 images, given 3");
  EXPECT_THAT(Error("makegrid", List({t.share(), kq::Sym("a")})),
              HasSubstr("makegrid: arg[1] expected long"));
  EXPECT_THAT(
      Error("makegrid", List({t.share(), kq::Long(2), kq::Long(2), kq::Long(1), kq::Sym("a")})),
      HasSubstr("makegrid: arg[4] expected number"));
  EXPECT_THAT(Error("makegrid", t), HasSubstr("makegrid: unrecognized arg(s)"));
  EXPECT_EQ(S1(Call("tensor", t)), S1(Q("(enlist ,1;enlist ,2;enlist ,3)")));
  Call("free", t);
}

}  // namespace plugin_image_test
}  // namespace kscope::testing
