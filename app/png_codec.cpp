// PNG through libpng. libpng reports errors by longjmp: the decoder keeps everything that must
// outlive a jump (the buffers) in a caller-owned job, and the function holding setjmp has only
// trivially destructible locals, so a jump skips no destructor.
#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "picture_codecs.hpp"

namespace convlive {
namespace {

struct PngReadJob {
  std::string_view bytes;
  std::size_t at = 0;
  char error[256] = {};
  int width = 0, height = 0, bitDepth = 0, colourType = 0;
  std::vector<std::uint8_t> pixels;  // RGBA8, filled by the decoder
  std::vector<png_bytep> rows;
};

void onError(png_structp png, png_const_charp message) {
  auto* job = static_cast<PngReadJob*>(png_get_error_ptr(png));
  std::snprintf(job->error, sizeof job->error, "%s", message);
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
  png_read_info(png, info);
  png_uint_32 w = 0, h = 0;
  int interlace = 0;
  png_get_IHDR(png, info, &w, &h, &job.bitDepth, &job.colourType, &interlace, nullptr, nullptr);
  if (w > 32768 || h > 32768) png_error(png, "larger than 32768 pixels on a side");
  job.width = int(w);
  job.height = int(h);
  const bool hasTrns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
  if (job.colourType == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (job.colourType == PNG_COLOR_TYPE_GRAY && job.bitDepth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (hasTrns) png_set_tRNS_to_alpha(png);
  if (job.bitDepth == 16) png_set_scale_16(png);  // to the nearest 8-bit value (not the high byte)
  if (job.colourType == PNG_COLOR_TYPE_GRAY || job.colourType == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
  if (!(job.colourType & PNG_COLOR_MASK_ALPHA) && !hasTrns) png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  if (png_get_rowbytes(png, info) != png_size_t(w) * 4) png_error(png, "cannot expand it to RGBA8");
  job.pixels.resize(std::size_t(w) * h * 4);
  job.rows.resize(h);
  for (png_uint_32 y = 0; y < h; ++y) job.rows[y] = job.pixels.data() + std::size_t(y) * w * 4;
  png_read_image(png, job.rows.data());
  png_read_end(png, nullptr);
}

// Decodes into job; false with job.error on a problem.
bool decodeInto(PngReadJob& job) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &job, onError, onWarning);
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

}  // namespace

bool looksLikePng(std::string_view bytes) {
  return bytes.size() >= 8 && bytes.substr(0, 8) == std::string_view("\x89PNG\r\n\x1a\n", 8);
}

DecodedPicture decodePng(std::string_view bytes, const std::string& name) {
  if (!looksLikePng(bytes)) throw std::invalid_argument("'" + name + "' is not a PNG file");
  PngReadJob job;
  job.bytes = bytes;
  if (!decodeInto(job))
    throw std::invalid_argument("'" + name + "' is not a readable PNG (corrupt or truncated: " + job.error + ")");
  DecodedPicture d;
  d.bitsPerChannel = job.bitDepth;
  d.image = HostImage(job.width, job.height);
  d.image.pixels() = std::move(job.pixels);
  if (job.bitDepth == 16)
    d.warnings.push_back("'" + name +
                         "' has 16 bits per channel: convlive filters 8-bit pictures, so it is rounded to 8 bits "
                         "first and written with 8 bits per channel");
  return d;
}

std::string encodePng(const HostImage& image) {
  png_image img{};
  img.version = PNG_IMAGE_VERSION;
  img.width = png_uint_32(image.width());
  img.height = png_uint_32(image.height());
  img.format = PNG_FORMAT_RGBA;
  std::string out(PNG_IMAGE_PNG_SIZE_MAX(img), '\0');
  png_alloc_size_t size = out.size();
  if (!png_image_write_to_memory(&img, out.data(), &size, 0, image.pixels().data(), png_int_32(image.pitch()),
                                 nullptr)) {
    const std::string why = img.message;
    png_image_free(&img);
    throw std::runtime_error("cannot encode the PNG: " + why);
  }
  out.resize(size);
  return out;
}

}  // namespace convlive
