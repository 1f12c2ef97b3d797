// Picture files: PNG of every colour type and bit depth expanded to RGBA8, JPEG in and out, the
// format of an output by its extension, and corrupt or truncated files refused with the reason.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <tiffio.h>
#include <turbojpeg.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "convlive/atomic_file.hpp"
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

// Value i of a u16 picture.
int u16At(const Picture& p, std::size_t i) {
  std::uint16_t v;
  std::memcpy(&v, &p.bytes.at(2 * i), 2);
  return v;
}

Picture noisePicture(int w, int h, PixelType type, int channels, unsigned seed) {
  std::mt19937 rng(seed);
  Picture p = Picture::make(w, h, type, channels);
  for (auto& b : p.bytes) b = static_cast<std::uint8_t>(rng() >> 24);
  return p;
}

}  // namespace

TEST(PngDecode, GreyRgbAndRgbaKeepTheirChannelsGreyAlphaBecomesRgba) {
  DecodedPicture d = decodePng(pngFile(3, 1, 8, 0, {std::string("\x10\xF0\x00", 3)}), "g.png");
  EXPECT_EQ(d.picture.desc.str(), "3x1 u8x1");
  EXPECT_EQ(d.picture.bytes, (std::vector<std::uint8_t>{16, 240, 0}));
  EXPECT_TRUE(d.warnings.empty());
  EXPECT_EQ(pixel(d.picture.toRgba8(), 1, 0), (std::array<int, 4>{240, 240, 240, 255}));
  // Grey+alpha: 2 channels, which the library does not take: grey goes to red, green and blue.
  d = decodePng(pngFile(1, 1, 8, 4, {std::string("\x40\x80", 2)}), "ga.png");
  EXPECT_EQ(d.picture.desc.str(), "1x1 u8x4");
  EXPECT_TRUE(d.picture.desc.alpha);
  EXPECT_EQ(d.picture.bytes, (std::vector<std::uint8_t>{64, 64, 64, 128}));
  d = decodePng(pngFile(1, 2, 8, 2, {"\x01\x02\x03", "\x04\x05\x06"}), "rgb.png");
  EXPECT_EQ(d.picture.desc.str(), "1x2 u8x3");
  EXPECT_EQ(d.picture.bytes, (std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(pixel(d.picture.toRgba8(), 0, 1), (std::array<int, 4>{4, 5, 6, 255}));
  d = decodePng(pngFile(1, 1, 8, 6, {"\x01\x02\x03\x04"}), "rgba.png");
  EXPECT_EQ(d.picture.desc.str(), "1x1 u8x4");
  EXPECT_EQ(d.picture.bytes, (std::vector<std::uint8_t>{1, 2, 3, 4}));
}

TEST(PngDecode, LowBitGreyPaletteAndTransparencyChunks) {
  // 1-bit grey: 0 and 1 become 0 and 255; 4-bit: v * 17. Grey stays one channel.
  DecodedPicture d = decodePng(pngFile(3, 1, 1, 0, {std::string("\xA0", 1)}), "bits.png");  // 1 0 1
  EXPECT_EQ(d.picture.desc.str(), "3x1 u8x1");
  EXPECT_EQ(d.picture.bytes, (std::vector<std::uint8_t>{255, 0, 255}));
  EXPECT_EQ(d.bitsPerChannel, 1);
  d = decodePng(pngFile(2, 1, 4, 0, {std::string("\x3F", 1)}), "nibbles.png");
  EXPECT_EQ(d.picture.bytes, (std::vector<std::uint8_t>{3 * 17, 15 * 17}));
  // A palette of three colours, 2 bits an index: RGB; with the second half transparent (tRNS): RGBA.
  const std::string plte("\xFF\x00\x00\x00\xFF\x00\x00\x00\xFF", 9);
  d = decodePng(pngFile(3, 1, 2, 3, {std::string("\x18", 1)}, plte), "pal.png");  // 0 1 2
  EXPECT_EQ(d.picture.desc.str(), "3x1 u8x3");
  EXPECT_EQ(d.picture.bytes, (std::vector<std::uint8_t>{255, 0, 0, 0, 255, 0, 0, 0, 255}));
  d = decodePng(pngFile(3, 1, 2, 3, {std::string("\x18", 1)}, plte, std::string("\xFF\x80", 2)), "pal.png");
  EXPECT_EQ(d.picture.desc.str(), "3x1 u8x4");
  EXPECT_EQ(pixel(d.picture.toRgba8(), 0, 0), (std::array<int, 4>{255, 0, 0, 255}));
  EXPECT_EQ(pixel(d.picture.toRgba8(), 1, 0), (std::array<int, 4>{0, 255, 0, 128}));
  EXPECT_EQ(pixel(d.picture.toRgba8(), 2, 0), (std::array<int, 4>{0, 0, 255, 255}));  // past tRNS: opaque
  // RGB with a colour key: that colour becomes transparent (RGBA).
  d = decodePng(
      pngFile(2, 1, 8, 2, {std::string("\x01\x02\x03\x09\x09\x09", 6)}, "", std::string("\0\x01\0\x02\0\x03", 6)),
      "key.png");
  EXPECT_EQ(d.picture.desc.str(), "2x1 u8x4");
  EXPECT_EQ(pixel(d.picture.toRgba8(), 0, 0)[3], 0);
  EXPECT_EQ(pixel(d.picture.toRgba8(), 1, 0)[3], 255);
}

TEST(PngDecode, SixteenBitsStaySixteenBits) {
  // Every 16-bit grey value in a 256x256 picture comes in as it is (PNG stores it big-endian), and
  // its RGBA8 form rounds each to the nearest 8-bit value.
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
  EXPECT_TRUE(d.warnings.empty());
  ASSERT_EQ(d.picture.desc.str(), "256x256 u16x1");
  const HostImage rgba = d.picture.toRgba8();
  int wrong = 0, worst = 0;
  for (int v = 0; v < 65536; ++v) {
    wrong += u16At(d.picture, std::size_t(v)) != v;
    const int want = int(std::lround(v * 255.0 / 65535.0));
    worst = std::max(worst, std::abs(pixel(rgba, v % 256, v / 256)[0] - want));
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(worst, 0);
  // 16-bit RGB and RGBA keep their channels.
  DecodedPicture a = decodePng(pngFile(1, 1, 16, 6, {std::string("\xFF\xFF\x00\x00\x80\x00\x12\x34", 8)}), "a.png");
  ASSERT_EQ(a.picture.desc.str(), "1x1 u16x4");
  EXPECT_EQ(u16At(a.picture, 0), 0xFFFF);
  EXPECT_EQ(u16At(a.picture, 2), 0x8000);
  EXPECT_EQ(u16At(a.picture, 3), 0x1234);
  a = decodePng(pngFile(1, 1, 16, 2, {std::string("\x01\x02\x03\x04\x05\x06", 6)}), "rgb16.png");
  ASSERT_EQ(a.picture.desc.str(), "1x1 u16x3");
  EXPECT_EQ(u16At(a.picture, 1), 0x0304);
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

// A header that promises more than the file holds is refused from the header, before anything is
// allocated for the pixels: a 30000x30000 PNG of a hundred bytes fails at once.
TEST(PngDecode, AHeaderThatPromisesMoreThanTheDataIsRefusedAtOnce) {
  const std::string tiny = pngFile(30000, 30000, 8, 2, {std::string(12, '\x7f')});
  ASSERT_LT(tiny.size(), 120u);
  const auto t0 = std::chrono::steady_clock::now();
  const std::string got = errorOf([&] { decodePng(tiny, "huge.png"); });
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0.5);
  // 24 bytes of image data: a zlib header, one stored block's header, 13 bytes, the checksum.
  EXPECT_EQ(got,
            "'huge.png' is corrupt or truncated: its header says 30000x30000, 2700030000 bytes of pixel rows, and its "
            "24 bytes of image data cannot hold them (deflate packs at most 1032 bytes into one)");
  // The bound is on the image data (IDAT), not the file: other chunks do not make room for pixels.
  std::string padded = pngFile(1000, 1000, 8, 2, {std::string(30, '\x7f')});
  padded.insert(8 + 25,
                convlive::testing::pngChunk("tEXt", "Comment" + std::string(1, '\0') + std::string(100000, 'x')));
  EXPECT_NE(errorOf([&] {
              decodePng(padded, "padded.png");
            }).find("its header says 1000x1000, 3001000 bytes of pixel rows, and its 42 bytes of image data"),
            std::string::npos);
}

TEST(PngDecode, MorePixelsThanTheLimitAreRefusedNamingTheOption) {
  const std::string png = pngFile(300, 200, 8, 0, std::vector<std::string>(200, std::string(300, '\x10')));
  EXPECT_NO_THROW(decodePng(png, "p.png"));
  EXPECT_NO_THROW(decodePng(png, "p.png", {.maxPixels = 60000}));
  const std::string got = errorOf([&] { decodePng(png, "p.png", {.maxPixels = 59999}); });
  EXPECT_EQ(got, "'p.png' is 300x200 = 60000 pixels, more than the limit of 59999 (--max-pixels raises it)");
  EXPECT_EQ(kDefaultMaxPixels, 268435456u);
}

// Extreme aspect ratios are pictures: the limit is the pixel count, not a side.
TEST(PngDecode, OnePixelWideAndOnePixelHighStripsDecode) {
  std::vector<std::string> tall(40000);
  for (std::size_t y = 0; y < tall.size(); ++y) tall[y] = std::string(1, char(y & 0xff));
  const DecodedPicture t = decodePng(pngFile(1, 40000, 8, 0, tall), "tall.png");
  ASSERT_EQ(t.picture.desc.str(), "1x40000 u8x1");
  EXPECT_EQ(t.picture.bytes[39999], 39999 & 0xff);
  std::string row(40000 * 3, '\0');
  for (std::size_t x = 0; x < 40000; ++x) row[3 * x + 1] = char(x % 251);
  const DecodedPicture w = decodePng(pngFile(40000, 1, 8, 2, {row}), "wide.png");
  ASSERT_EQ(w.picture.desc.str(), "40000x1 u8x3");
  EXPECT_EQ(w.picture.bytes[3 * 39999 + 1], 39999 % 251);
  // Beyond libpng's default of a million pixels on a side.
  const DecodedPicture longer =
      decodePng(pngFile(1, 1500000, 1, 0, std::vector<std::string>(1500000, "\x80")), "l.png");
  EXPECT_EQ(longer.picture.desc.str(), "1x1500000 u8x1");
}

// Image data that ends before the last row is an error, never a picture with flat rows: a zlib
// stream that ends early (with every chunk whole and its CRC right), and an IDAT cut short.
TEST(PngDecode, ImageDataThatEndsEarlyIsAnError) {
  const std::string rows(4 * 12, '\x7f');
  const std::string half = pngFile(4, 4, 8, 2, std::vector<std::string>(2, std::string(12, '\x7f')));
  const std::string noIdat =
      std::string("\x89PNG\r\n\x1a\n", 8) +
      convlive::testing::pngChunk("IHDR", convlive::testing::bigEndian32(4) + convlive::testing::bigEndian32(4) +
                                              std::string("\x08\x02\0\0\0", 5)) +
      convlive::testing::pngChunk("IEND", "");
  const std::string good = pngFile(4, 4, 8, 2, std::vector<std::string>(4, std::string(12, '\x7f')));
  const std::size_t idat = good.find("IDAT");
  const std::string cutIdat = good.substr(0, idat + 4 + 20);
  for (const auto& [bytes, what] : {std::pair{half, "half the rows"}, std::pair{noIdat, "no image data"},
                                    std::pair{cutIdat, "an IDAT cut short"}}) {
    const std::string got = errorOf([&] { decodePng(bytes, "t.png"); });
    EXPECT_NE(got.find("'t.png' is"), std::string::npos) << what << ": " << got;
    EXPECT_NE(got.find("corrupt or truncated"), std::string::npos) << what << ": " << got;
  }
}

TEST(Png, EncodeDecodeRoundTripIsExactInEveryTypeAndChannelCount) {
  const HostImage img = noise(37, 21, 7);
  const DecodedPicture d = decodePng(encodePng(img), "mem.png");
  EXPECT_EQ(d.picture.toRgba8().pixels(), img.pixels());
  EXPECT_EQ(d.picture.desc.width, 37);
  for (const PixelType type : {PixelType::U8, PixelType::U16})
    for (const int channels : {1, 3, 4}) {
      const Picture p = noisePicture(37, 21, type, channels, 11);
      const std::string png = encodePng(p);
      const DecodedPicture back = decodePng(png, "mem.png");
      EXPECT_EQ(back.picture.desc, p.desc) << back.picture.desc.str();
      EXPECT_EQ(back.picture.bytes, p.bytes) << p.desc.str();
      EXPECT_EQ(back.bitsPerChannel, type == PixelType::U16 ? 16 : 8);
      // The file's header: bit depth and colour type (grey 0, RGB 2, RGBA 6) as the picture's.
      EXPECT_EQ(int(png[24]), type == PixelType::U16 ? 16 : 8);
      EXPECT_EQ(int(png[25]), channels == 1 ? 0 : channels == 3 ? 2 : 6);
    }
  // 16-bit samples go into the file big-endian: the first value of a 1x1 grey picture of 0x1234.
  Picture one = Picture::make(1, 1, PixelType::U16, 1);
  const std::uint16_t v = 0x1234;
  std::memcpy(one.bytes.data(), &v, 2);
  EXPECT_EQ(decodePng(encodePng(one), "one.png").picture.bytes, one.bytes);
  const std::string again =
      encodePng(decodePng(pngFile(1, 1, 16, 0, {std::string("\x12\x34", 2)}), "made.png").picture);
  EXPECT_EQ(u16At(decodePng(again, "again.png").picture, 0), 0x1234);
  // Floats have no PNG form.
  const std::string why = errorOf([] { encodePng(Picture::make(3, 3, PixelType::F32, 1)); });
  EXPECT_NE(why.find("a PNG holds 8- or 16-bit integer samples, and the picture is f32x1: write a .npy"),
            std::string::npos)
      << why;
}

// A TIFF made by hand, not by libtiff: one strip, uncompressed, either byte order. Each field is
// {tag, type (3 SHORT, 4 LONG), value}; the image data follows the directory.
std::string handMadeTiff(bool bigEndian, std::vector<std::array<std::uint32_t, 3>> fields, std::string data) {
  std::string out;
  const auto put = [&](std::uint32_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) {
      const int shift = bigEndian ? 8 * (bytes - 1 - i) : 8 * i;
      out.push_back(char((v >> shift) & 0xFF));
    }
  };
  out += bigEndian ? "MM" : "II";
  put(42, 2);
  put(8, 4);
  const std::uint32_t dataAt = 8 + 2 + std::uint32_t(fields.size() + 2) * 12 + 4;
  fields.push_back({273, 4, dataAt});                      // StripOffsets
  fields.push_back({279, 4, std::uint32_t(data.size())});  // StripByteCounts
  std::sort(fields.begin(), fields.end());
  put(std::uint32_t(fields.size()), 2);
  for (const auto& [tag, type, value] : fields) {
    put(tag, 2);
    put(type, 2);
    put(1, 4);
    if (type == 3) {
      put(value, 2);
      put(0, 2);
    } else {
      put(value, 4);
    }
  }
  put(0, 4);  // no next directory
  return out + data;
}

TEST(Tiff, EncodeDecodeRoundTripIsExactInEveryTypeAndChannelCount) {
  for (const PixelType type : {PixelType::U8, PixelType::U16, PixelType::F16, PixelType::F32})
    for (const int channels : {1, 3, 4})
      for (const auto& [w, h] : {std::pair{37, 21}, std::pair{1, 1}, std::pair{1, 40}, std::pair{40, 1}}) {
        const Picture p = noisePicture(w, h, type, channels, 5);
        const std::string tif = encodeTiff(p);
        ASSERT_TRUE(looksLikeTiff(tif));
        const DecodedPicture back = decodeTiff(tif, "mem.tif");
        EXPECT_EQ(back.picture.desc, p.desc) << back.picture.desc.str() << " from " << p.desc.str();
        EXPECT_EQ(back.picture.bytes, p.bytes) << p.desc.str();
        EXPECT_EQ(back.bitsPerChannel, int(pixelTypeBytes(type) * 8));
        EXPECT_TRUE(back.warnings.empty());
      }
}

TEST(Tiff, HandMadeFilesOfEitherByteOrderDecode) {
  for (const bool big : {false, true}) {
    SCOPED_TRACE(big ? "big-endian" : "little-endian");
    // 3x2 grey, 16 bits: 0x0102, 0x0304, ... stored in the file's byte order.
    std::string data;
    for (std::uint16_t v : {0x0102, 0x0304, 0x0506, 0x0708, 0x090A, 0xFFFE})
      data += big ? std::string{char(v >> 8), char(v & 0xFF)} : std::string{char(v & 0xFF), char(v >> 8)};
    const std::string tif =
        handMadeTiff(big, {{256, 3, 3}, {257, 3, 2}, {258, 3, 16}, {259, 3, 1}, {262, 3, 1}, {278, 3, 2}}, data);
    const DecodedPicture d = decodeTiff(tif, "hand.tif");
    ASSERT_EQ(d.picture.desc.str(), "3x2 u16x1") << d.picture.desc.str();
    EXPECT_EQ(u16At(d.picture, 0), 0x0102);
    EXPECT_EQ(u16At(d.picture, 4), 0x090A);
    EXPECT_EQ(u16At(d.picture, 5), 0xFFFE);
  }
  // 1-bit black-is-zero (through libtiff's RGBA reader): 8x1, alternating.
  const std::string bilevel = handMadeTiff(
      false, {{256, 3, 8}, {257, 3, 1}, {258, 3, 1}, {259, 3, 1}, {262, 3, 1}, {278, 3, 1}}, std::string(1, '\xAA'));
  const DecodedPicture b = decodeTiff(bilevel, "bilevel.tif");
  ASSERT_EQ(b.picture.desc.str(), "8x1 u8x4") << b.picture.desc.str();
  for (int x = 0; x < 8; ++x) EXPECT_EQ(int(b.picture.bytes[std::size_t(4 * x)]), x % 2 == 0 ? 255 : 0) << x;
}

// What libtiff writes that convlive's encoder does not: samples as planes, tiles, BigTIFF, LZW.
TEST(Tiff, PlanesTilesBigTiffAndLzwDecode) {
  const fs::path dir = fs::temp_directory_path() / ("convlive-tiff-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  struct Case {
    const char* name;
    const char* mode;  // "w", or "w8" for BigTIFF
    PixelType type;
    int channels;
    bool planes, tiles;
    int compression;
  };
  for (const Case c : {Case{"planes.tif", "w", PixelType::U16, 3, true, false, COMPRESSION_NONE},
                       Case{"tiles.tif", "w", PixelType::U8, 1, false, true, COMPRESSION_ADOBE_DEFLATE},
                       Case{"big.tif", "w8", PixelType::F32, 4, false, false, COMPRESSION_NONE},
                       Case{"lzw.tif", "w", PixelType::U8, 3, false, false, COMPRESSION_LZW}}) {
    SCOPED_TRACE(c.name);
    const int w = 37, h = 21;
    const Picture p = noisePicture(w, h, c.type, c.channels, 3);
    const std::size_t sample = pixelTypeBytes(c.type);
    const std::string file = (dir / c.name).string();
    TIFF* t = TIFFOpen(file.c_str(), c.mode);
    ASSERT_NE(t, nullptr);
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, w);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, h);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, c.channels);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, int(sample * 8));
    TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, c.type == PixelType::F32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, c.channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, c.planes ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_COMPRESSION, c.compression);
    if (c.channels == 4) {
      const std::uint16_t extra[] = {EXTRASAMPLE_UNASSALPHA};
      TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, extra);
    }
    const std::size_t rowBytes = std::size_t(w) * c.channels * sample;
    if (c.tiles) {
      TIFFSetField(t, TIFFTAG_TILEWIDTH, 16);
      TIFFSetField(t, TIFFTAG_TILELENGTH, 16);
      std::vector<std::uint8_t> tile(16 * 16 * std::size_t(c.channels) * sample);
      for (int y = 0; y < h; y += 16)
        for (int x = 0; x < w; x += 16) {
          std::fill(tile.begin(), tile.end(), 0);
          for (int r = 0; r < 16 && y + r < h; ++r)
            std::memcpy(tile.data() + std::size_t(r) * 16 * c.channels * sample,
                        p.bytes.data() + std::size_t(y + r) * rowBytes + std::size_t(x) * c.channels * sample,
                        std::size_t(std::min(16, w - x)) * c.channels * sample);
          ASSERT_GE(TIFFWriteTile(t, tile.data(), std::uint32_t(x), std::uint32_t(y), 0, 0), 0);
        }
    } else if (c.planes) {
      TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 4);
      std::vector<std::uint8_t> line(std::size_t(w) * sample);
      for (int s = 0; s < c.channels; ++s)
        for (int y = 0; y < h; ++y) {
          for (int x = 0; x < w; ++x)
            std::memcpy(line.data() + std::size_t(x) * sample,
                        p.bytes.data() + std::size_t(y) * rowBytes + (std::size_t(x) * c.channels + s) * sample,
                        sample);
          ASSERT_GE(TIFFWriteScanline(t, line.data(), std::uint32_t(y), std::uint16_t(s)), 0);
        }
    } else {
      TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 5);
      std::vector<std::uint8_t> line(rowBytes);
      for (int y = 0; y < h; ++y) {
        std::memcpy(line.data(), p.bytes.data() + std::size_t(y) * rowBytes, rowBytes);
        ASSERT_GE(TIFFWriteScanline(t, line.data(), std::uint32_t(y), 0), 0);
      }
    }
    TIFFClose(t);
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const DecodedPicture d = decodeTiff(bytes, c.name);
    EXPECT_EQ(d.picture.desc, p.desc) << d.picture.desc.str();
    EXPECT_EQ(d.picture.bytes, p.bytes);
  }
  fs::remove_all(dir);
}

TEST(Tiff, RefusalsSayWhatWasWrong) {
  const std::string grey = std::string(12, '\x10');
  const auto base = std::vector<std::array<std::uint32_t, 3>>{{256, 3, 3}, {257, 3, 2}, {258, 3, 16},
                                                              {259, 3, 1}, {262, 3, 1}, {278, 3, 2}};
  // Signed samples.
  auto fields = base;
  fields.push_back({339, 3, 2});  // SampleFormat: signed integer
  std::string why = errorOf([&] { decodeTiff(handMadeTiff(false, fields, grey), "signed.tif"); });
  EXPECT_NE(why.find("'signed.tif' holds 16-bit signed integer samples: convlive takes"), std::string::npos) << why;
  // Declared far bigger than its data.
  fields = base;
  fields[0] = {256, 4, 10000};
  fields[1] = {257, 4, 10000};
  fields[5] = {278, 4, 10000};
  // Uncompressed, libtiff takes the strip to be as long as the rows need: past the file's end.
  why = errorOf([&] { decodeTiff(handMadeTiff(false, fields, grey), "huge.tif"); });
  EXPECT_NE(why.find("'huge.tif' is truncated"), std::string::npos) << why;
  // Deflate-compressed: 12 bytes cannot inflate to 200 MB.
  fields[3] = {259, 3, 8};
  why = errorOf([&] { decodeTiff(handMadeTiff(false, fields, grey), "huge.tif"); });
  EXPECT_NE(why.find("'huge.tif' declares 10000x10000 pixels but holds 12 bytes of image data"), std::string::npos)
      << why;
  // Past the pixel limit.
  why = errorOf([&] { decodeTiff(handMadeTiff(false, fields, grey), "huge.tif", DecodeLimits{1000}); });
  EXPECT_NE(why.find("more than the limit of 1000 (--max-pixels raises it)"), std::string::npos) << why;
  // Truncated: the data cut off, the file cut in half.
  const std::string whole = handMadeTiff(false, base, grey);
  why = errorOf([&] { decodeTiff(whole.substr(0, whole.size() - 4), "cut.tif"); });
  EXPECT_NE(why.find("'cut.tif' is truncated"), std::string::npos) << why;
  const std::string made = encodeTiff(noisePicture(64, 64, PixelType::U16, 3, 1));
  why = errorOf([&] { decodeTiff(made.substr(0, made.size() / 2), "half.tif"); });
  EXPECT_NE(why.find("'half.tif'"), std::string::npos) << why;
  why = errorOf([&] { decodeTiff("II*\0garbage", "garbage.tif"); });
  EXPECT_NE(why.find("'garbage.tif'"), std::string::npos) << why;
}

TEST(Jpeg, RoundTripWithinTheLossOfItsQuality) {
  const HostImage img = gradient(96, 64);
  const std::string hi = encodeJpeg(img, 95), lo = encodeJpeg(img, 30);
  ASSERT_TRUE(looksLikeJpeg(hi));
  EXPECT_LT(lo.size(), hi.size());
  const DecodedPicture d = decodeJpeg(hi, "mem.jpg");
  ASSERT_EQ(d.picture.desc.str(), "96x64 u8x3");  // colour: RGB, no alpha
  double sum = 0;
  int worst = 0;
  for (std::size_t p = 0; p < std::size_t(96 * 64); ++p)
    for (std::size_t c = 0; c < 3; ++c) {
      const int diff = std::abs(int(d.picture.bytes[3 * p + c]) - int(img.pixels()[4 * p + c]));
      sum += diff;
      worst = std::max(worst, diff);
    }
  EXPECT_LT(sum / (96 * 64 * 3), 1.5);
  EXPECT_LE(worst, 12);
  EXPECT_TRUE(d.warnings.empty());
  EXPECT_THROW(encodeJpeg(img, 0), std::invalid_argument);
  // The RGB picture encodes as it decoded, within the loss.
  const DecodedPicture again = decodeJpeg(encodeJpeg(d.picture, 95), "again.jpg");
  ASSERT_EQ(again.picture.desc, d.picture.desc);
}

// A grey picture makes a grey JPEG, which comes back grey; 16-bit and float pictures are refused.
TEST(Jpeg, GreyStaysGreyDeepAndFloatPicturesAreRefused) {
  Picture grey = Picture::make(33, 17, PixelType::U8, 1);
  for (int y = 0; y < 17; ++y)
    for (int x = 0; x < 33; ++x) grey.bytes[std::size_t(y) * 33 + std::size_t(x)] = std::uint8_t(7 * x + 3 * y);
  const DecodedPicture d = decodeJpeg(encodeJpeg(grey, 95), "grey.jpg");
  ASSERT_EQ(d.picture.desc.str(), "33x17 u8x1");
  int worst = 0;
  for (std::size_t i = 0; i < grey.bytes.size(); ++i)
    worst = std::max(worst, std::abs(int(d.picture.bytes[i]) - int(grey.bytes[i])));
  EXPECT_LE(worst, 12);
  std::string why = errorOf([] { encodeJpeg(Picture::make(3, 3, PixelType::U16, 3), 90); });
  EXPECT_NE(why.find("a JPEG holds 8-bit samples, and the picture is u16x3: write a .png (16 bits) or a .npy"),
            std::string::npos)
      << why;
  why = errorOf([] { encodeJpeg(Picture::make(3, 3, PixelType::F16, 1), 90); });
  EXPECT_NE(why.find("the picture is f16x1: write a .npy to keep the floats"), std::string::npos) << why;
}

// Grey and progressive JPEGs (made here with libjpeg-turbo itself) come in as grey and RGB.
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
    EXPECT_EQ(d.picture.desc.str(), subsampling == TJSAMP_GRAY ? "32x16 u8x1" : "32x16 u8x3");
    const auto p = pixel(d.picture.toRgba8(), 31, 15);
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

// The JPEG's header is checked against its size before the decoder allocates: a Huffman-coded
// scan spends at least a bit on each 8x8 block.
TEST(Jpeg, AHeaderThatPromisesMoreThanTheDataIsRefusedAtOnce) {
  std::string huge = encodeJpeg(gradient(64, 64), 90);
  const std::size_t sof = huge.find("\xFF\xC0");
  ASSERT_NE(sof, std::string::npos);
  huge[sof + 5] = char(0xEA);  // height 60000
  huge[sof + 6] = char(0x60);
  huge[sof + 7] = char(0xEA);  // width 60000
  huge[sof + 8] = char(0x60);
  const auto t0 = std::chrono::steady_clock::now();
  const std::string got = errorOf([&] { decodeJpeg(huge, "huge.jpg"); });
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0.5);
  EXPECT_NE(got.find("'huge.jpg' is corrupt or truncated: its header says 60000x60000, 56250000 blocks of 8x8 "
                     "pixels, at least one bit each, and it holds " +
                     std::to_string(huge.size()) + " bytes"),
            std::string::npos)
      << got;
  // Flat pictures, the most a JPEG compresses, are above the floor of 1 bit a block, though not by
  // much: about 6 bits a block baseline, about 2 progressive (optimised tables, runs of empty blocks).
  for (const int flags : {0, TJFLAG_PROGRESSIVE}) {
    const std::vector<std::uint8_t> flat(1024 * 1024, 128);
    tjhandle h = tjInitCompress();
    unsigned char* raw = nullptr;
    unsigned long size = 0;
    ASSERT_EQ(tjCompress2(h, flat.data(), 1024, 1024, 1024, TJPF_GRAY, &raw, &size, TJSAMP_GRAY, 50, flags), 0);
    const std::string bytes(reinterpret_cast<const char*>(raw), size);
    tjFree(raw);
    tjDestroy(h);
    EXPECT_LT(bytes.size(), 1024u * 1024 / 64) << "flags " << flags;  // under 8 bits a block
    EXPECT_EQ(decodeJpeg(bytes, "flat.jpg").picture.desc.str(), "1024x1024 u8x1") << "flags " << flags;
  }
  const std::string good = encodeJpeg(gradient(64, 48), 90);
  EXPECT_NO_THROW(decodeJpeg(good, "g.jpg", {.maxPixels = 64 * 48}));
  EXPECT_EQ(errorOf([&] { decodeJpeg(good, "g.jpg", {.maxPixels = 64 * 48 - 1}); }),
            "'g.jpg' is 64x48 = 3072 pixels, more than the limit of 3071 (--max-pixels raises it)");
}

// A scan cut short by a marker (its data ends, then EOI) would leave the rest of the picture flat:
// an error, as a file that ends early is.
TEST(Jpeg, AScanThatEndsEarlyIsAnError) {
  const std::string good = encodeJpeg(noise(64, 64, 3), 90);
  const std::string cut = good.substr(0, good.size() * 2 / 3);
  for (const std::string& bytes : {cut, cut + "\xFF\xD9"}) {
    const std::string got = errorOf([&] { decodeJpeg(bytes, "t.jpg"); });
    EXPECT_NE(got.find("'t.jpg' is not a readable JPEG (corrupt or truncated: "), std::string::npos) << got;
  }
  // A 1x40000 strip is a picture.
  EXPECT_EQ(decodeJpeg(encodeJpeg(gradient(2, 40000), 80), "strip.jpg").picture.desc.str(), "2x40000 u8x3");
}

// .npy pictures: every type the library filters, (H, W) and (H, W, C), versions 1 and 2.
TEST(Npy, ReadsEveryTypeAndShape) {
  struct Kind {
    const char* descr;
    PixelType type;
  };
  std::mt19937 rng(5);
  for (const Kind k : {Kind{"<f4", PixelType::F32}, Kind{"<f2", PixelType::F16}, Kind{"<u2", PixelType::U16},
                       Kind{"|u1", PixelType::U8}})
    for (const int channels : {0, 1, 3, 4})  // 0: shape (H, W)
      for (const int major : {1, 2}) {
        const std::string shape = channels ? "(5, 7, " + std::to_string(channels) + ")" : "(5, 7)";
        std::string data(5 * 7 * std::max(channels, 1) * pixelTypeBytes(k.type), '\0');
        for (char& c : data) c = char(rng() >> 24);
        const DecodedPicture d = decodeNpy(convlive::testing::npyFile(k.descr, shape, data, major), "a.npy");
        EXPECT_EQ(d.picture.desc.str(),
                  "7x5 " + std::string(pixelTypeName(k.type)) + "x" + std::to_string(std::max(channels, 1)))
            << k.descr << " " << shape;
        EXPECT_EQ(d.picture.desc.alpha, channels == 4);
        EXPECT_EQ(std::string(d.picture.bytes.begin(), d.picture.bytes.end()), data) << k.descr << " " << shape;
        EXPECT_TRUE(d.warnings.empty());
      }
}

// What encodeNpy writes is what numpy.save writes (a version 1.0 header padded to 64 bytes), and
// reads back as it was.
TEST(Npy, WritesWhatNumpyWrites) {
  for (const PixelType type : {PixelType::U8, PixelType::U16, PixelType::F16, PixelType::F32})
    for (const int channels : {1, 3, 4}) {
      const Picture p = noisePicture(9, 3, type, channels, 3);
      const std::string descr = type == PixelType::U8    ? "|u1"
                                : type == PixelType::U16 ? "<u2"
                                : type == PixelType::F16 ? "<f2"
                                                         : "<f4";
      const std::string shape = channels == 1 ? "(3, 9)" : "(3, 9, " + std::to_string(channels) + ")";
      const std::string bytes = encodeNpy(p);
      EXPECT_EQ(bytes, convlive::testing::npyFile(descr, shape, std::string(p.bytes.begin(), p.bytes.end())))
          << p.desc.str();
      const DecodedPicture back = decodeNpy(bytes, "mem.npy");
      EXPECT_EQ(back.picture.desc, p.desc);
      EXPECT_EQ(back.picture.bytes, p.bytes);
    }
}

TEST(Npy, RefusalsSayWhatWasWrongAndWhatToDo) {
  using convlive::testing::npyFile;
  const std::string f4(60, '\0');  // (3, 5) float32
  std::string cut = npyFile("<f4", "(3, 5)", f4);
  cut.resize(30);
  const std::pair<std::string, std::string> cases[] = {
      {npyFile(">f4", "(3, 5)", f4),
       "'t.npy' holds big-endian float32 data (dtype '>f4'); convlive reads uint8, "
       "uint16, float16 or float32, little-endian: save it little-endian: "
       "a.astype('<f4')"},
      {npyFile("<f8", "(3, 5)", f4 + f4), "holds float64 data (dtype '<f8')"},
      {npyFile("<f8", "(3, 5)", f4 + f4), "save it as float32: a.astype('float32')"},
      {npyFile("<i4", "(3, 5)", f4),
       "holds int32 data (dtype '<i4'); convlive reads uint8, uint16, float16 or "
       "float32, little-endian: convert it to one of"},
      {npyFile("|b1", "(3, 5)", std::string(15, '\0')), "holds bool data"},
      {npyFile("<f4", "(3, 5)", f4, 1, "True"),
       "is in Fortran (column-major) order: save a C-order array, numpy.save(path, np.ascontiguousarray(a))"},
      {npyFile("<f4", "(3, 5, 1)", f4 + f4 + f4 + f4 + f4 + f4 + f4),
       "has 360 bytes after the array its header describes"},
      {npyFile("<f4", "(3, 5, 7)", std::string(420, '\0')),
       "has shape (3, 5, 7), which is not a picture: use (H, W) for grey or (H, W, C) with C 1, 3 or 4 (channels "
       "last); for channels first (C, H, W): a.transpose(1, 2, 0)"},
      {npyFile("<f4", "(5, 3, 2)", f4 + f4), "has shape (5, 3, 2), which is not a picture"},
      {npyFile("<f4", "(5, 3, 2)", f4 + f4), "for grey and alpha"},
      {npyFile("<f4", "(15,)", f4), "has shape (15,), which is not a picture"},
      {npyFile("<f4", "(1, 3, 5, 1)", f4), "has shape (1, 3, 5, 1), which is not a picture"},
      {npyFile("<f4", "(0, 5)", ""), "holds no pixels (shape (0, 5))"},
      {npyFile("<f4", "(3, 5)", f4.substr(1)),
       "is truncated: its header says shape (3, 5) of float32 (60 bytes), and it holds 59"},
      {npyFile("<f4", "(3, 5)", f4 + "x"), "has 1 bytes after the array"},
      {npyFile("<f4", "(3, 5)", f4, 4), "is a .npy file of format version 4.0, which convlive does not read"},
      {cut, "is truncated (it ends inside the .npy header)"},
      {npyFile("<f4", "(3, x)", f4), "has a shape convlive cannot read ((3, x))"},
      {"\x93NUMPY", "is truncated"},
      {"NUMPY", "'t.npy' is not a NumPy .npy file"},
  };
  for (const auto& [bytes, message] : cases) {
    const std::string got = errorOf([&] { decodeNpy(bytes, "t.npy"); });
    EXPECT_NE(got.find(message), std::string::npos) << message << "\n  got: " << got;
  }
}

// A .npy's data is exactly its shape times its item size, checked before anything is allocated:
// shapes whose product overflows, huge shapes over little data, and the pixel limit.
TEST(Npy, TheShapeIsCheckedAgainstTheDataAndTheLimitFirst) {
  using convlive::testing::npyFile;
  const std::pair<std::string, std::string> cases[] = {
      {npyFile("<f4", "(100000, 100000, 4)", std::string(64, '\0')),
       "'t.npy' is truncated: its header says shape (100000, 100000, 4) of float32 (160000000000 bytes), and it "
       "holds 64"},
      {npyFile("<f4", "(4611686018427387904, 4611686018427387904)", ""),
       "of float32 (more than 2^64 bytes), and it holds 0"},
      {npyFile("|u1", "(200, 300)", std::string(60000, '\1')),
       "'t.npy' is 300x200 = 60000 pixels, more than the limit of 100 (--max-pixels raises it)"},
  };
  for (const auto& [bytes, message] : cases) {
    const std::string got = errorOf([&] { decodeNpy(bytes, "t.npy", {.maxPixels = 100}); });
    EXPECT_NE(got.find(message), std::string::npos) << message << "\n  got: " << got;
  }
  // A dtype whose size does not fit an int is named as it is written (found by fuzz_npy_picture:
  // its size times 8 overflowed).
  EXPECT_NE(errorOf([&] {
              decodeNpy(npyFile("<f954437176", "(1, 1)", ""), "t.npy");
            }).find("'t.npy' holds '<f954437176' data (dtype '<f954437176')"),
            std::string::npos);
  const DecodedPicture strip = decodeNpy(npyFile("<u2", "(40000, 1)", std::string(80000, '\2')), "s.npy");
  EXPECT_EQ(strip.picture.desc.str(), "1x40000 u16x1");
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
  EXPECT_EQ(pictureFormatFor("b.Npy"), PictureFormat::Npy);
  EXPECT_EQ(pictureFormatFor("b.tif"), PictureFormat::Tiff);
  EXPECT_EQ(pictureFormatFor("b.TIFF"), PictureFormat::Tiff);
  EXPECT_FALSE(pictureFormatFor("b.gif"));
  EXPECT_FALSE(pictureFormatFor("png"));
  const HostImage img = gradient(20, 10);
  // A JPEG named .png is read as the JPEG it is.
  writePicture(path("really-a-jpeg.png"), img, PictureFormat::Jpeg);
  EXPECT_EQ(readPicture(path("really-a-jpeg.png")).picture.desc.width, 20);
  writePicture(path("p.png"), img, PictureFormat::Png);
  EXPECT_EQ(readPicture(path("p.png")).picture.bytes, img.pixels());
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
      {path("text.jpg"), "text.jpg' is neither a PNG, a JPEG, a TIFF nor a NumPy .npy file"},
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

// A named pipe would block the open until someone writes: refused at once, as anything that is not
// a regular file is. A file larger than any picture within the limit is refused before it is read.
TEST_F(PictureFiles, PipesAndOversizedFilesAreRefusedUpFront) {
  ASSERT_EQ(::mkfifo(path("pipe.png").c_str(), 0600), 0);
  EXPECT_EQ(errorOf([&] { readPicture(path("pipe.png")); }),
            "cannot read '" + path("pipe.png") +
                "': it is not a regular file (a pipe, a socket or a device): save the picture to a file first");
  std::ofstream(path("big.npy"), std::ios::binary) << std::string((1 << 20) + 200, '\0');
  EXPECT_EQ(errorOf([&] { readPicture(path("big.npy"), {.maxPixels = 4}); }),
            "'" + path("big.npy") +
                "' is 1048776 bytes, more than any picture of at most 4 pixels holds (--max-pixels raises the limit)");
}

// A write that fails says why, from the failing call's errno, and leaves nothing behind.
TEST_F(PictureFiles, AFailedWriteNamesTheCause) {
  EXPECT_EQ(writeErrorWords(ENOSPC, "d"), "the disk is full: free some space on it, or write elsewhere");
  EXPECT_EQ(writeErrorWords(EACCES, "d"),
            "permission denied: folder 'd' is not writable by this user; write elsewhere");
  EXPECT_EQ(writeErrorWords(EROFS, "d"), "the file system of folder 'd' is read-only; write elsewhere");
  EXPECT_EQ(writeErrorWords(ENOENT, path("no/such")),
            "folder '" + path("no/such") + "' does not exist and cannot be made");
  EXPECT_EQ(writeErrorWords(ENOENT, dir_.string()),
            "folder '" + dir_.string() + "' takes no new files (No such file or directory); write elsewhere");
  fs::create_directories(path("taken.png"));
  EXPECT_EQ(errorOf([&] { writePng(path("taken.png"), gradient(8, 8)); }),
            "cannot write '" + path("taken.png") + "': a folder of that name is in the way: name another file");
  std::ofstream(path("file")) << "x";
  EXPECT_EQ(errorOf([&] { writePng(path("file/p.png"), gradient(8, 8)); }),
            "cannot write '" + path("file/p.png") + "': '" + path("file") + "' is not a folder");
  // A real failing write: the process may write files of at most 1000 bytes (SIGXFSZ ignored, so
  // write() fails with EFBIG as it would with ENOSPC on a full disk).
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 1000;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const std::string got = errorOf([&] { writePng(path("noise.png"), noise(64, 64, 1)); });
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, oldHandler);
  EXPECT_EQ(got, "cannot write '" + path("noise.png") +
                     "': the file is larger than this process may write (ulimit -f) or the file system takes");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 2u);  // taken.png and file: no picture, no temporary
}

// A .npy picture is found by its bytes and written by its extension; NumPy itself (when there is
// one) reads what convlive wrote as the same array.
TEST_F(PictureFiles, NpyInAndOutReadByNumpy) {
  const Picture p = noisePicture(11, 7, PixelType::F16, 3, 9);
  writePicture(path("p.npy"), p, PictureFormat::Npy);
  const DecodedPicture d = readPicture(path("p.npy"));
  EXPECT_EQ(d.picture.desc, p.desc);
  EXPECT_EQ(d.picture.bytes, p.bytes);
  const std::string why = errorOf([&] { writePicture(path("p.png"), p, PictureFormat::Png); });
  EXPECT_NE(why.find("cannot write '" + path("p.png") +
                     "': the picture is f16x3, and a PNG holds 8- or 16-bit "
                     "integer samples: write a .npy to keep the floats"),
            std::string::npos)
      << why;
  EXPECT_FALSE(fs::exists(path("p.png")));
  if (std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no NumPy";
  std::ofstream(path("raw.bin"), std::ios::binary)
      .write(reinterpret_cast<const char*>(p.bytes.data()), std::streamsize(p.bytes.size()));
  const std::string check = "/usr/bin/python3 -c \"import numpy as np; a = np.load('" + path("p.npy") +
                            "'); assert a.dtype == np.float16 and a.shape == (7, 11, 3) and a.flags.c_contiguous, "
                            "(a.dtype, a.shape); assert a.tobytes() == open('" +
                            path("raw.bin") + "', 'rb').read()\"";
  EXPECT_EQ(std::system(check.c_str()), 0);
}
