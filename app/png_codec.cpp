// PNG through libpng. libpng reports errors by longjmp: the decoder and the encoder keep
// everything that must outlive a jump (the buffers) in a caller-owned job, and the functions
// holding setjmp have only trivially destructible locals, so a jump skips no destructor.
#include <png.h>

#include <algorithm>
#include <bit>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "picture_codecs.hpp"

namespace convlive {
namespace {

constexpr bool kLittleEndianHost = std::endian::native == std::endian::little;

// PNG stores 16-bit samples big-endian; the picture holds them in host order.
void swap16(std::vector<std::uint8_t>& bytes) {
  if (!kLittleEndianHost) return;
  for (std::size_t i = 0; i + 1 < bytes.size(); i += 2) std::swap(bytes[i], bytes[i + 1]);
}

// Deflate codes a run of 258 bytes in 2 bits at best: no zlib stream inflates to more than 1032
// times its size.
constexpr std::uint64_t kDeflateMaxRatio = 1032;

// What the IHDR chunk (always first) declares, read before libpng is asked to do anything.
struct PngHeader {
  png_uint_32 width = 0, height = 0;
  int bitDepth = 0, colourType = 0;
  bool interlaced = false;
  // The bytes the image data inflates to at least: a filter byte and the packed samples a row.
  // (Interlaced data has more: each pass's rows have their own filter bytes.)
  std::uint64_t inflatedBytes() const {
    const int samples = colourType == 2 ? 3 : colourType == 4 ? 2 : colourType == 6 ? 4 : 1;
    const std::uint64_t rowBits = std::uint64_t(width) * std::uint64_t(samples) * std::uint64_t(bitDepth);
    return std::uint64_t(height) * (1 + (rowBits + 7) / 8);
  }
};

std::uint32_t bigEndian32(const unsigned char* p) {
  return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | std::uint32_t(p[3]);
}

// The CRC-32 of a chunk's type and data, as PNG stores it after them.
std::uint32_t chunkCrc(const unsigned char* p, std::size_t n) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  }
  return c ^ 0xFFFFFFFFu;
}

// The IHDR's fields when the file starts with a whole one (its CRC right) of sane values, else
// nullopt (libpng then says what is wrong).
std::optional<PngHeader> readHeader(std::string_view bytes) {
  if (bytes.size() < 8 + 8 + 13 + 4) return std::nullopt;
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data()) + 8;
  if (bigEndian32(u) != 13 || std::string_view(bytes.data() + 12, 4) != "IHDR") return std::nullopt;
  if (chunkCrc(u + 4, 4 + 13) != bigEndian32(u + 8 + 13)) return std::nullopt;
  PngHeader h;
  h.width = bigEndian32(u + 8);
  h.height = bigEndian32(u + 12);
  h.bitDepth = u[16];
  h.colourType = u[17];
  h.interlaced = u[20] != 0;
  if (h.width == 0 || h.height == 0 || h.width > PNG_UINT_31_MAX || h.height > PNG_UINT_31_MAX) return std::nullopt;
  if (h.bitDepth != 1 && h.bitDepth != 2 && h.bitDepth != 4 && h.bitDepth != 8 && h.bitDepth != 16) return std::nullopt;
  return h;
}

// The bytes of image data the file holds: the lengths of its IDAT chunks, as far as the file goes
// (a chunk cut short counts with what is there).
std::uint64_t imageDataBytes(std::string_view bytes) {
  std::uint64_t total = 0;
  std::size_t at = 8;
  while (at + 8 <= bytes.size()) {
    const auto* u = reinterpret_cast<const unsigned char*>(bytes.data() + at);
    const std::uint64_t length = bigEndian32(u);
    const std::uint64_t there = std::min<std::uint64_t>(length, bytes.size() - at - 8);
    if (std::string_view(bytes.data() + at + 4, 4) == "IDAT") total += there;
    if (there < length) break;
    at += 12 + std::size_t(length);
  }
  return total;
}

struct PngReadJob {
  std::string_view bytes;
  std::size_t at = 0;
  char error[256] = {};
  png_uint_32 width = 0, height = 0;  // as checked from the header
  int bitDepth = 0, colourType = 0;   // as stored
  int channels = 0, sampleBits = 0;   // as decoded
  std::vector<std::uint8_t> pixels;   // filled by the decoder, samples big-endian
  std::vector<png_bytep> rows;
};

void onError(png_structp png, png_const_charp message) {
  auto* error = static_cast<char*>(png_get_error_ptr(png));
  std::snprintf(error, 256, "%s", message);
  png_longjmp(png, 1);
}
void onWarning(png_structp, png_const_charp) {}  // benign (an unknown chunk, a bad gamma value)

void readBytes(png_structp png, png_bytep out, png_size_t n) {
  auto* job = static_cast<PngReadJob*>(png_get_io_ptr(png));
  if (n > job->bytes.size() - job->at) png_error(png, "the file ends early (truncated)");
  std::memcpy(out, job->bytes.data() + job->at, n);
  job->at += n;
}

// The reading proper, below the frame that holds setjmp (a jump out of here skips only trivial
// locals).
void readAll(png_structp png, png_infop info, PngReadJob& job) {
  png_set_read_fn(png, &job, readBytes);
  // libpng's own limit is 1000000 pixels on a side; decodePng has bounded the size by the data and
  // the pixel count, so any side a PNG can declare is taken (a 1x40000 strip is a picture).
  png_set_user_limits(png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
  png_read_info(png, info);
  png_uint_32 w = 0, h = 0;
  int interlace = 0;
  png_get_IHDR(png, info, &w, &h, &job.bitDepth, &job.colourType, &interlace, nullptr, nullptr);
  // decodePng checked the same header's size against the data and the pixel limit: this is what
  // libpng read, which must agree.
  if (w != job.width || h != job.height) png_error(png, "its header changed between two readings");
  const bool hasTrns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
  if (job.colourType == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (job.colourType == PNG_COLOR_TYPE_GRAY && job.bitDepth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (hasTrns) png_set_tRNS_to_alpha(png);
  // Grey with alpha has 2 channels, which the library does not take: grey goes to red, green, blue.
  const bool greyWithAlpha =
      job.colourType == PNG_COLOR_TYPE_GRAY_ALPHA || (job.colourType == PNG_COLOR_TYPE_GRAY && hasTrns);
  if (greyWithAlpha) png_set_gray_to_rgb(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  job.channels = png_get_channels(png, info);
  job.sampleBits = png_get_bit_depth(png, info);
  if ((job.channels != 1 && job.channels != 3 && job.channels != 4) || (job.sampleBits != 8 && job.sampleBits != 16))
    png_error(png, "cannot expand it to 1, 3 or 4 channels of 8 or 16 bits");
  const std::size_t rowBytes = std::size_t(w) * job.channels * (job.sampleBits / 8);
  if (png_get_rowbytes(png, info) != rowBytes) png_error(png, "unexpected row size after expansion");
  job.pixels.resize(rowBytes * h);
  job.rows.resize(h);
  for (png_uint_32 y = 0; y < h; ++y) job.rows[y] = job.pixels.data() + std::size_t(y) * rowBytes;
  png_read_image(png, job.rows.data());
  png_read_end(png, nullptr);
}

// Decodes into job; false with job.error on a problem.
bool decodeInto(PngReadJob& job) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, job.error, onError, onWarning);
  if (!png) return std::snprintf(job.error, sizeof job.error, "out of memory"), false;
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    return std::snprintf(job.error, sizeof job.error, "out of memory"), false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  readAll(png, info, job);
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

struct PngWriteJob {
  char error[256] = {};
  int width = 0, height = 0, bitDepth = 8, colourType = 0;
  std::vector<std::uint8_t> pixels;  // samples big-endian, rows packed
  std::vector<png_bytep> rows;
  std::string out;
};

void writeBytes(png_structp png, png_bytep data, png_size_t n) {
  static_cast<PngWriteJob*>(png_get_io_ptr(png))->out.append(reinterpret_cast<const char*>(data), n);
}
void flushNothing(png_structp) {}

void writeAll(png_structp png, png_infop info, PngWriteJob& job) {
  png_set_write_fn(png, &job, writeBytes, flushNothing);
  png_set_IHDR(png, info, png_uint_32(job.width), png_uint_32(job.height), job.bitDepth, job.colourType,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  png_write_image(png, job.rows.data());
  png_write_end(png, nullptr);
}

bool encodeInto(PngWriteJob& job) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, job.error, onError, onWarning);
  if (!png) return std::snprintf(job.error, sizeof job.error, "out of memory"), false;
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_write_struct(&png, nullptr);
    return std::snprintf(job.error, sizeof job.error, "out of memory"), false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  writeAll(png, info, job);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

bool looksLikePng(std::string_view bytes) {
  return bytes.size() >= 8 && bytes.substr(0, 8) == std::string_view("\x89PNG\r\n\x1a\n", 8);
}

DecodedPicture decodePng(std::string_view bytes, const std::string& name, const DecodeLimits& limits) {
  if (!looksLikePng(bytes)) throw std::invalid_argument("'" + name + "' is not a PNG file");
  const auto header = readHeader(bytes);
  if (!header)
    throw std::invalid_argument("'" + name +
                                "' is not a readable PNG (corrupt or truncated: its first chunk is not a whole, intact "
                                "IHDR)");
  // The size the header declares, against the data (before anything is allocated) ...
  const std::uint64_t rows = header->inflatedBytes(), data = imageDataBytes(bytes);
  if (rows > kDeflateMaxRatio * data)
    throw std::invalid_argument("'" + name + "' is corrupt or truncated: its header says " +
                                std::to_string(header->width) + "x" + std::to_string(header->height) + ", " +
                                std::to_string(rows) + " bytes of pixel rows, and its " + std::to_string(data) +
                                " bytes of image data cannot hold them (deflate packs at most " +
                                std::to_string(kDeflateMaxRatio) + " bytes into one)");
  // ... and against the limit.
  checkPictureSize(name, header->width, header->height, limits);
  PngReadJob job;
  job.bytes = bytes;
  job.width = header->width;
  job.height = header->height;
  if (!decodeInto(job))
    throw std::invalid_argument("'" + name + "' is not a readable PNG (corrupt or truncated: " + job.error + ")");
  DecodedPicture d;
  d.bitsPerChannel = job.bitDepth;
  // The decoder's rows become the picture's (no second, zero-filled copy of a large picture).
  ImageDesc& desc = d.picture.desc;
  desc.width = int(job.width);
  desc.height = int(job.height);
  desc.type = job.sampleBits == 16 ? PixelType::U16 : PixelType::U8;
  desc.channels = job.channels;
  desc.alpha = job.channels == 4;
  d.picture.bytes = std::move(job.pixels);
  if (job.sampleBits == 16) swap16(d.picture.bytes);
  return d;
}

std::string encodePng(const Picture& picture) {
  const ImageDesc& d = picture.desc;
  if (d.type != PixelType::U8 && d.type != PixelType::U16)
    throw std::invalid_argument(std::string("a PNG holds 8- or 16-bit integer samples, and the picture is ") +
                                picture.typeName() + ": write a .npy to keep the floats");
  if (d.channels != 1 && d.channels != 3 && d.channels != 4)
    throw std::invalid_argument("a PNG holds 1 (grey), 3 (RGB) or 4 (RGBA) channels, and the picture has " +
                                std::to_string(d.channels));
  PngWriteJob job;
  job.width = d.width;
  job.height = d.height;
  job.bitDepth = d.type == PixelType::U16 ? 16 : 8;
  job.colourType = d.channels == 1 ? PNG_COLOR_TYPE_GRAY : d.channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGBA;
  job.pixels = picture.bytes;
  if (job.bitDepth == 16) swap16(job.pixels);
  const std::size_t rowBytes = d.rowBytes();
  job.rows.resize(std::size_t(d.height));
  for (int y = 0; y < d.height; ++y) job.rows[std::size_t(y)] = job.pixels.data() + std::size_t(y) * rowBytes;
  if (!encodeInto(job)) throw std::runtime_error(std::string("cannot encode the PNG: ") + job.error);
  return std::move(job.out);
}

std::string encodePng(const HostImage& image) { return encodePng(Picture::fromRgba8(image)); }

}  // namespace convlive
