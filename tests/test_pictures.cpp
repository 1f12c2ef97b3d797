// Picture files: PNG of every colour type and bit depth expanded to RGBA8, JPEG in and out, the
// format of an output by its extension, and corrupt or truncated files refused with the reason.
#include <gtest/gtest.h>
#include <turbojpeg.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "image_io.hpp"
#include "picture_codecs.hpp"
#include "png_bytes.hpp"

using namespace convlive;
using convlive::testing::pngFile;
namespace fs = std::filesystem;

namespace {

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

std::array<int, 4> pixel(const HostImage& img, int x, int y) {
  const std::uint8_t* p = img.view().row(y) + 4 * x;
  return {p[0], p[1], p[2], p[3]};
}

HostImage noise(int w, int h, unsigned seed) {
  std::mt19937 rng(seed);
  HostImage img(w, h);
  for (auto& p : img.pixels()) p = static_cast<std::uint8_t>(rng() >> 24);
  return img;
}

// A smooth picture (JPEG's loss on it is small).
HostImage gradient(int w, int h) {
  HostImage img(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      std::uint8_t* p = img.view().row(y) + 4 * x;
      p[0] = std::uint8_t(255 * x / (w - 1));
      p[1] = std::uint8_t(255 * y / (h - 1));
      p[2] = std::uint8_t(128 + 100 * std::sin(x * 0.05));
      p[3] = 255;
    }
  return img;
}

}  // namespace

TEST(PngDecode, GreyGreyAlphaRgbAndRgbaAt8Bits) {
  DecodedPicture d = decodePng(pngFile(2, 1, 8, 0, {std::string("\x10\xF0", 2)}), "g.png");
  EXPECT_EQ(pixel(d.image, 0, 0), (std::array<int, 4>{16, 16, 16, 255}));
  EXPECT_EQ(pixel(d.image, 1, 0), (std::array<int, 4>{240, 240, 240, 255}));
  EXPECT_TRUE(d.warnings.empty());
  d = decodePng(pngFile(1, 1, 8, 4, {std::string("\x40\x80", 2)}), "ga.png");
  EXPECT_EQ(pixel(d.image, 0, 0), (std::array<int, 4>{64, 64, 64, 128}));
  d = decodePng(pngFile(1, 2, 8, 2, {"\x01\x02\x03", "\x04\x05\x06"}), "rgb.png");
  EXPECT_EQ(pixel(d.image, 0, 1), (std::array<int, 4>{4, 5, 6, 255}));
  d = decodePng(pngFile(1, 1, 8, 6, {"\x01\x02\x03\x04"}), "rgba.png");
  EXPECT_EQ(pixel(d.image, 0, 0), (std::array<int, 4>{1, 2, 3, 4}));
}

TEST(PngDecode, LowBitGreyPaletteAndTransparencyChunks) {
  // 1-bit grey: 0 and 1 become 0 and 255; 4-bit: v * 17.
  DecodedPicture d = decodePng(pngFile(3, 1, 1, 0, {std::string("\xA0", 1)}), "bits.png");  // 1 0 1
  EXPECT_EQ(pixel(d.image, 0, 0)[0], 255);
  EXPECT_EQ(pixel(d.image, 1, 0)[0], 0);
  EXPECT_EQ(pixel(d.image, 2, 0)[0], 255);
  EXPECT_EQ(d.bitsPerChannel, 1);
  d = decodePng(pngFile(2, 1, 4, 0, {std::string("\x3F", 1)}), "nibbles.png");
  EXPECT_EQ(pixel(d.image, 0, 0)[0], 3 * 17);
  EXPECT_EQ(pixel(d.image, 1, 0)[0], 15 * 17);
  // A palette of three colours, the second half transparent (tRNS), 2 bits an index.
  const std::string plte("\xFF\x00\x00\x00\xFF\x00\x00\x00\xFF", 9);
  d = decodePng(pngFile(3, 1, 2, 3, {std::string("\x18", 1)}, plte, std::string("\xFF\x80", 2)), "pal.png");  // 0 1 2
  EXPECT_EQ(pixel(d.image, 0, 0), (std::array<int, 4>{255, 0, 0, 255}));
  EXPECT_EQ(pixel(d.image, 1, 0), (std::array<int, 4>{0, 255, 0, 128}));
  EXPECT_EQ(pixel(d.image, 2, 0), (std::array<int, 4>{0, 0, 255, 255}));  // past tRNS: opaque
  // RGB with a colour key: that colour becomes transparent.
  d = decodePng(
      pngFile(2, 1, 8, 2, {std::string("\x01\x02\x03\x09\x09\x09", 6)}, "", std::string("\0\x01\0\x02\0\x03", 6)),
      "key.png");
  EXPECT_EQ(pixel(d.image, 0, 0)[3], 0);
  EXPECT_EQ(pixel(d.image, 1, 0)[3], 255);
}

TEST(PngDecode, SixteenBitsRoundToEightWithAWarning) {
  // Every 16-bit grey value in a 256x256 picture: each rounds to the nearest 8-bit value.
  std::vector<std::string> rows;
  for (int y = 0; y < 256; ++y) {
    std::string r;
    for (int x = 0; x < 256; ++x) {
      const int v = y * 256 + x;
      r += char(v >> 8);
      r += char(v & 0xff);
    }
    rows.push_back(r);
  }
  const DecodedPicture d = decodePng(pngFile(256, 256, 16, 0, rows), "deep.png");
  EXPECT_EQ(d.bitsPerChannel, 16);
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_NE(d.warnings[0].find("'deep.png' has 16 bits per channel"), std::string::npos) << d.warnings[0];
  EXPECT_NE(d.warnings[0].find("rounded to 8 bits"), std::string::npos) << d.warnings[0];
  int worst = 0;
  for (int v = 0; v < 65536; ++v) {
    const int want = int(std::lround(v * 255.0 / 65535.0));
    worst = std::max(worst, std::abs(pixel(d.image, v % 256, v / 256)[0] - want));
  }
  EXPECT_EQ(worst, 0);
  // 16-bit RGBA keeps its alpha, rounded the same way.
  const DecodedPicture a =
      decodePng(pngFile(1, 1, 16, 6, {std::string("\xFF\xFF\x00\x00\x80\x00\x80\x80", 8)}), "rgba16.png");
  EXPECT_EQ(pixel(a.image, 0, 0), (std::array<int, 4>{255, 0, 128, 128}));
}

TEST(PngDecode, CorruptAndTruncatedFilesAreRefused) {
  const std::string good = pngFile(4, 4, 8, 2, std::vector<std::string>(4, std::string(12, '\x7f')));
  ASSERT_NO_THROW(decodePng(good, "good.png"));
  std::string badCrc = good;
  badCrc[good.find("IHDR") + 6] ^= 0x55;  // a byte of the header's data: its CRC no longer matches
  const std::pair<std::string, std::string> cases[] = {
      {good.substr(0, good.size() / 2), "'t.png' is not a readable PNG (corrupt or truncated"},
      {good.substr(0, 20), "not a readable PNG"},
      {badCrc, "not a readable PNG"},
      {"not a png", "'t.png' is not a PNG file"},
  };
  for (const auto& [bytes, message] : cases) {
    const std::string got = errorOf([&] { decodePng(bytes, "t.png"); });
    EXPECT_NE(got.find(message), std::string::npos) << got;
  }
}

TEST(Png, EncodeDecodeRoundTripIsExact) {
  const HostImage img = noise(37, 21, 7);
  const DecodedPicture d = decodePng(encodePng(img), "mem.png");
  EXPECT_EQ(d.image.pixels(), img.pixels());
  EXPECT_EQ(d.image.width(), 37);
}

TEST(Jpeg, RoundTripWithinTheLossOfItsQuality) {
  const HostImage img = gradient(96, 64);
  const std::string hi = encodeJpeg(img, 95), lo = encodeJpeg(img, 30);
  ASSERT_TRUE(looksLikeJpeg(hi));
  EXPECT_LT(lo.size(), hi.size());
  const DecodedPicture d = decodeJpeg(hi, "mem.jpg");
  ASSERT_EQ(d.image.width(), 96);
  ASSERT_EQ(d.image.height(), 64);
  double sum = 0;
  int worst = 0;
  for (std::size_t i = 0; i < img.pixels().size(); ++i) {
    if (i % 4 == 3) {
      EXPECT_EQ(d.image.pixels()[i], 255);
      continue;
    }
    const int diff = std::abs(int(d.image.pixels()[i]) - int(img.pixels()[i]));
    sum += diff;
    worst = std::max(worst, diff);
  }
  EXPECT_LT(sum / (96 * 64 * 3), 1.5);
  EXPECT_LE(worst, 12);
  EXPECT_TRUE(d.warnings.empty());
  EXPECT_THROW(encodeJpeg(img, 0), std::invalid_argument);
}

// Grey and progressive JPEGs (made here with libjpeg-turbo itself) come in as RGBA.
TEST(Jpeg, GreyAndProgressiveFilesDecode) {
  const HostImage img = gradient(32, 16);
  for (const auto& [subsampling, flags] :
       {std::pair{int(TJSAMP_GRAY), 0}, std::pair{int(TJSAMP_420), TJFLAG_PROGRESSIVE}}) {
    tjhandle h = tjInitCompress();
    unsigned char* raw = nullptr;
    unsigned long size = 0;
    ASSERT_EQ(tjCompress2(h, img.pixels().data(), 32, 32 * 4, 16, TJPF_RGBA, &raw, &size, subsampling, 90, flags), 0);
    const std::string bytes(reinterpret_cast<const char*>(raw), size);
    tjFree(raw);
    tjDestroy(h);
    const DecodedPicture d = decodeJpeg(bytes, "made.jpg");
    ASSERT_EQ(d.image.width(), 32);
    const auto p = pixel(d.image, 31, 15);
    EXPECT_EQ(p[3], 255);
    if (subsampling == TJSAMP_GRAY)
      EXPECT_TRUE(p[0] == p[1] && p[1] == p[2]) << p[0] << " " << p[1] << " " << p[2];
    else
      EXPECT_NEAR(p[0], 255, 12);
  }
}

TEST(Jpeg, TruncatedAndCorruptFilesAreRefused) {
  const std::string good = encodeJpeg(gradient(64, 64), 90);
  const std::pair<std::string, std::string> cases[] = {
      {good.substr(0, good.size() / 2), "'t.jpg' is not a readable JPEG (corrupt or truncated"},
      {good.substr(0, 40), "not a readable JPEG"},
      {"\xFF\xD8\xFF garbage", "not a readable JPEG"},
      {"GIF89a", "'t.jpg' is not a JPEG file"},
  };
  for (const auto& [bytes, message] : cases) {
    const std::string got = errorOf([&] { decodeJpeg(bytes, "t.jpg"); });
    EXPECT_NE(got.find(message), std::string::npos) << got;
  }
}

class PictureFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("convlive-pictures-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(PictureFiles, FormatByExtensionContentByBytes) {
  EXPECT_EQ(pictureFormatFor("a/b.PNG"), PictureFormat::Png);
  EXPECT_EQ(pictureFormatFor("b.jpg"), PictureFormat::Jpeg);
  EXPECT_EQ(pictureFormatFor("b.JPEG"), PictureFormat::Jpeg);
  EXPECT_FALSE(pictureFormatFor("b.gif"));
  EXPECT_FALSE(pictureFormatFor("png"));
  const HostImage img = gradient(20, 10);
  // A JPEG named .png is read as the JPEG it is.
  writePicture(path("really-a-jpeg.png"), img, PictureFormat::Jpeg);
  EXPECT_EQ(readPicture(path("really-a-jpeg.png")).image.width(), 20);
  writePicture(path("p.png"), img, PictureFormat::Png);
  EXPECT_EQ(readPicture(path("p.png")).image.pixels(), img.pixels());
  // Only the picture is left: no temporary beside it.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 2u);
}

TEST_F(PictureFiles, ReadingSaysWhatIsWrong) {
  fs::create_directories(path("folder.png"));
  std::ofstream(path("empty.png")).flush();
  std::ofstream(path("text.jpg")) << "hello";
  const std::pair<std::string, std::string> cases[] = {
      {path("missing.png"), "no such file"},
      {path("folder.png"), "it is a directory"},
      {path("empty.png"), "empty.png' is empty"},
      {path("text.jpg"), "text.jpg' is neither a PNG nor a JPEG file"},
  };
  for (const auto& [file, message] : cases) {
    const std::string got = errorOf([&] { readPicture(file); });
    EXPECT_NE(got.find(message), std::string::npos) << got;
  }
}

TEST_F(PictureFiles, AFailedWriteLeavesNoFileAndNoTemporary) {
  fs::create_directories(path("taken.png"));  // a folder where the picture should go: rename fails
  EXPECT_THROW(writePng(path("taken.png"), gradient(8, 8)), std::runtime_error);
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 1u);
}
