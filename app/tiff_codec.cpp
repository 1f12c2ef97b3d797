// TIFF through libtiff, in memory (TIFFClientOpenExt over the bytes; libtiff's messages go to this
// file's handlers through its per-file options, so any thread may decode).
#include <tiffio.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "picture_codecs.hpp"

namespace convlive {
namespace {

// The bytes a TIFF is read from or written to, as libtiff's client procedures see them.
struct MemoryFile {
  std::string_view in;  // reading
  std::string out;      // writing
  std::uint64_t at = 0;
  bool writing = false;
  std::size_t size() const { return writing ? out.size() : in.size(); }
};

MemoryFile& fileOf(thandle_t h) { return *static_cast<MemoryFile*>(h); }

tmsize_t readProc(thandle_t h, void* buf, tmsize_t n) {
  MemoryFile& f = fileOf(h);
  if (f.writing || n < 0 || f.at >= f.in.size()) return 0;
  const std::size_t got = std::min<std::size_t>(std::size_t(n), f.in.size() - std::size_t(f.at));
  std::memcpy(buf, f.in.data() + f.at, got);
  f.at += got;
  return tmsize_t(got);
}

tmsize_t writeProc(thandle_t h, void* buf, tmsize_t n) {
  MemoryFile& f = fileOf(h);
  if (!f.writing || n < 0) return -1;
  if (f.out.size() < f.at + std::uint64_t(n)) f.out.resize(std::size_t(f.at) + std::size_t(n));
  std::memcpy(f.out.data() + f.at, buf, std::size_t(n));
  f.at += std::uint64_t(n);
  return n;
}

toff_t seekProc(thandle_t h, toff_t off, int whence) {
  MemoryFile& f = fileOf(h);
  std::int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? std::int64_t(f.at) : std::int64_t(f.size());
  const std::int64_t to = base + std::int64_t(off);
  if (to < 0) return toff_t(-1);
  f.at = std::uint64_t(to);
  return toff_t(to);
}

int closeProc(thandle_t) { return 0; }
toff_t sizeProc(thandle_t h) { return toff_t(fileOf(h).size()); }
int mapProc(thandle_t, void**, toff_t*) { return 0; }
void unmapProc(thandle_t, void*, toff_t) {}

// libtiff's errors and warnings for one file, in words.
struct Messages {
  std::string firstError;
  std::vector<std::string> warnings;
};

std::string format(const char* fmt, va_list ap) {
  char line[512];
  std::vsnprintf(line, sizeof line, fmt, ap);
  return line;
}

int onError(TIFF*, void* user, const char* module, const char* fmt, va_list ap) {
  auto& m = *static_cast<Messages*>(user);
  if (m.firstError.empty()) m.firstError = (module ? std::string(module) + ": " : std::string()) + format(fmt, ap);
  return 1;
}

int onWarning(TIFF*, void* user, const char* /*module*/, const char* fmt, va_list ap) {
  auto& m = *static_cast<Messages*>(user);
  if (m.warnings.size() < 8) m.warnings.push_back(format(fmt, ap));
  return 1;
}

struct TiffCloser {
  void operator()(TIFF* t) const { TIFFClose(t); }
};
using TiffPtr = std::unique_ptr<TIFF, TiffCloser>;

TiffPtr open(MemoryFile& file, const std::string& name, const char* mode, Messages& messages) {
  TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
  TIFFOpenOptionsSetErrorHandlerExtR(options, onError, &messages);
  TIFFOpenOptionsSetWarningHandlerExtR(options, onWarning, &messages);
  TIFF* t = TIFFClientOpenExt(name.c_str(), mode, &file, readProc, writeProc, seekProc, closeProc, sizeProc, mapProc,
                              unmapProc, options);
  TIFFOpenOptionsFree(options);
  return TiffPtr(t);
}

// No codec libtiff reads inflates data more than this (LZW at most about 2730 times, Deflate 1032,
// PackBits 64; a JPEG codes an 8x8 block of three 8-bit samples in at least one bit, 1536): a file
// whose pixels would need more than this times its strips' or tiles' bytes is refused unread.
constexpr std::uint64_t kMaxInflation = 4096;

[[noreturn]] void fail(const std::string& name, const std::string& what, const Messages& m) {
  throw std::invalid_argument("'" + name + "' " + what + (m.firstError.empty() ? "" : " (" + m.firstError + ")"));
}

}  // namespace

bool looksLikeTiff(std::string_view b) {
  return b.size() >= 4 && ((b[0] == 'I' && b[1] == 'I' && (b[2] == 42 || b[2] == 43) && b[3] == 0) ||
                           (b[0] == 'M' && b[1] == 'M' && b[2] == 0 && (b[3] == 42 || b[3] == 43)));
}

DecodedPicture decodeTiff(std::string_view bytes, const std::string& name, const DecodeLimits& limits) {
  MemoryFile file{bytes};
  Messages m;
  TiffPtr t = open(file, name, "rm", m);
  if (!t) fail(name, "is not a TIFF libtiff can read: it may be damaged or truncated", m);
  std::uint32_t width = 0, height = 0;
  std::uint16_t spp = 1, bps = 1, sampleFormat = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG, photometric = 0;
  if (!TIFFGetField(t.get(), TIFFTAG_IMAGEWIDTH, &width) || !TIFFGetField(t.get(), TIFFTAG_IMAGELENGTH, &height))
    fail(name, "is a TIFF without a width or height: it is damaged", m);
  TIFFGetFieldDefaulted(t.get(), TIFFTAG_SAMPLESPERPIXEL, &spp);
  TIFFGetFieldDefaulted(t.get(), TIFFTAG_BITSPERSAMPLE, &bps);
  TIFFGetFieldDefaulted(t.get(), TIFFTAG_SAMPLEFORMAT, &sampleFormat);
  TIFFGetFieldDefaulted(t.get(), TIFFTAG_PLANARCONFIG, &planar);
  if (!TIFFGetField(t.get(), TIFFTAG_PHOTOMETRIC, &photometric)) photometric = spp >= 3 ? PHOTOMETRIC_RGB : 1;
  checkPictureSize(name, width, height, limits);

  // The coded data the pixels come from: every strip or tile within the file, and enough of it.
  const bool tiled = TIFFIsTiled(t.get());
  const std::uint32_t pieces = tiled ? TIFFNumberOfTiles(t.get()) : TIFFNumberOfStrips(t.get());
  std::uint64_t* counts = nullptr;
  std::uint64_t* offsets = nullptr;
  if (!TIFFGetField(t.get(), tiled ? TIFFTAG_TILEBYTECOUNTS : TIFFTAG_STRIPBYTECOUNTS, &counts) ||
      !TIFFGetField(t.get(), tiled ? TIFFTAG_TILEOFFSETS : TIFFTAG_STRIPOFFSETS, &offsets) || !counts || !offsets)
    fail(name, "is a TIFF without the places of its image data: it is damaged", m);
  std::uint64_t coded = 0;
  for (std::uint32_t i = 0; i < pieces; ++i) {
    if (offsets[i] > bytes.size() || counts[i] > bytes.size() - offsets[i])
      fail(name, "is truncated: its image data runs past the end of the file", m);
    coded += counts[i];
  }
  const std::uint64_t raw = std::uint64_t(width) * height * spp * std::max<std::uint16_t>(bps, 1) / 8;
  if (raw > coded * kMaxInflation)
    throw std::invalid_argument("'" + name + "' declares " + std::to_string(width) + "x" + std::to_string(height) +
                                " pixels but holds " + std::to_string(coded) +
                                " bytes of image data, far too few for them: it is damaged or truncated");

  DecodedPicture d;
  d.bitsPerChannel = bps;
  if (TIFFNumberOfDirectories(t.get()) > 1)
    d.warnings.push_back("'" + name + "' holds " + std::to_string(TIFFNumberOfDirectories(t.get())) +
                         " pictures: the first is read");

  // Samples as the library takes them: 8- and 16-bit integers, 16- and 32-bit floats, grey or RGB
  // (with alpha), stored interleaved or as planes. Anything else of at most 8 bits (a palette, CMYK,
  // YCbCr, 1-bit, white-is-zero) goes through libtiff's RGBA reader as 8-bit RGBA.
  PixelType type = PixelType::U8;
  bool direct = photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_RGB;
  if (sampleFormat == SAMPLEFORMAT_IEEEFP && (bps == 16 || bps == 32))
    type = bps == 16 ? PixelType::F16 : PixelType::F32;
  else if (sampleFormat == SAMPLEFORMAT_UINT && (bps == 8 || bps == 16))
    type = bps == 8 ? PixelType::U8 : PixelType::U16;
  else if (bps <= 8 && sampleFormat != SAMPLEFORMAT_IEEEFP)
    direct = false;
  else
    fail(name,
         "holds " + std::to_string(bps) + "-bit " +
             (sampleFormat == SAMPLEFORMAT_INT      ? "signed integer"
              : sampleFormat == SAMPLEFORMAT_IEEEFP ? "floating-point"
                                                    : "integer") +
             " samples: convlive takes 8- and 16-bit unsigned and 16- and 32-bit float samples; convert it (to a "
             "float32 .npy, say) first",
         m);
  const int stored = photometric == PHOTOMETRIC_RGB ? 3 : 1;  // colour samples before extra ones
  if (direct && (spp < stored || spp > stored + 1)) {
    if (bps > 8)
      fail(name, "has " + std::to_string(spp) + " samples a pixel: convlive takes grey, grey+alpha, RGB or RGBA", m);
    direct = false;
  }
  if (direct && tiled && planar == PLANARCONFIG_SEPARATE)
    fail(name, "stores its samples as tiled planes, which convlive does not read: rewrite it with strips", m);

  if (!direct) {  // through libtiff's RGBA reader
    if (bps > 8)
      fail(name, "is a kind of TIFF convlive does not read (photometric " + std::to_string(photometric) + ")", m);
    d.picture = Picture::make(int(width), int(height), PixelType::U8, 4);
    std::vector<std::uint32_t> rgba(std::size_t(width) * height);
    if (!TIFFReadRGBAImageOriented(t.get(), width, height, rgba.data(), ORIENTATION_TOPLEFT, 0))
      fail(name, "could not be decoded: it is damaged or truncated", m);
    for (std::size_t i = 0; i < rgba.size(); ++i) {
      std::uint8_t* p = d.picture.bytes.data() + 4 * i;
      p[0] = std::uint8_t(TIFFGetR(rgba[i]));
      p[1] = std::uint8_t(TIFFGetG(rgba[i]));
      p[2] = std::uint8_t(TIFFGetB(rgba[i]));
      p[3] = std::uint8_t(TIFFGetA(rgba[i]));
    }
    d.bitsPerChannel = 8;
    for (const auto& w : m.warnings) d.warnings.push_back("'" + name + "': " + w);
    return d;
  }

  const int inChannels = spp;
  const int channels = inChannels == 2 ? 4 : inChannels;  // grey+alpha becomes RGBA, as a PNG's does
  const std::size_t sample = pixelTypeBytes(type);
  std::vector<std::uint8_t> packed(std::size_t(width) * height * std::size_t(inChannels) * sample);
  const std::size_t rowBytes = std::size_t(width) * std::size_t(inChannels) * sample;
  if (tiled) {
    std::uint32_t tw = 0, th = 0;
    TIFFGetField(t.get(), TIFFTAG_TILEWIDTH, &tw);
    TIFFGetField(t.get(), TIFFTAG_TILELENGTH, &th);
    if (tw == 0 || th == 0 || tw > (1u << 16) || th > (1u << 16)) fail(name, "has tiles of no size: it is damaged", m);
    std::vector<std::uint8_t> tile(std::size_t(TIFFTileSize(t.get())));
    const std::size_t tileRow = std::size_t(tw) * std::size_t(inChannels) * sample;
    if (tile.size() < tileRow * th) fail(name, "has tiles smaller than they say: it is damaged", m);
    for (std::uint32_t y = 0; y < height; y += th)
      for (std::uint32_t x = 0; x < width; x += tw) {
        if (TIFFReadTile(t.get(), tile.data(), x, y, 0, 0) < 0)
          fail(name, "could not be decoded: it is damaged or truncated", m);
        const std::uint32_t w = std::min(tw, width - x), h = std::min(th, height - y);
        for (std::uint32_t r = 0; r < h; ++r)
          std::memcpy(packed.data() + (y + r) * rowBytes + std::size_t(x) * inChannels * sample,
                      tile.data() + r * tileRow, std::size_t(w) * inChannels * sample);
      }
  } else if (planar == PLANARCONFIG_SEPARATE) {
    std::vector<std::uint8_t> line(std::size_t(TIFFScanlineSize(t.get())));
    if (line.size() < std::size_t(width) * sample) fail(name, "has rows shorter than they say: it is damaged", m);
    for (int s = 0; s < inChannels; ++s)
      for (std::uint32_t y = 0; y < height; ++y) {
        if (TIFFReadScanline(t.get(), line.data(), y, std::uint16_t(s)) < 0)
          fail(name, "could not be decoded: it is damaged or truncated", m);
        std::uint8_t* row = packed.data() + y * rowBytes;
        for (std::uint32_t x = 0; x < width; ++x)
          std::memcpy(row + (std::size_t(x) * inChannels + s) * sample, line.data() + std::size_t(x) * sample, sample);
      }
  } else {
    std::vector<std::uint8_t> line(std::size_t(TIFFScanlineSize(t.get())));
    if (line.size() < rowBytes) fail(name, "has rows shorter than they say: it is damaged", m);
    for (std::uint32_t y = 0; y < height; ++y) {
      if (TIFFReadScanline(t.get(), line.data(), y, 0) < 0)
        fail(name, "could not be decoded: it is damaged or truncated", m);
      std::memcpy(packed.data() + y * rowBytes, line.data(), rowBytes);
    }
  }
  if (!m.firstError.empty()) fail(name, "could not be decoded", m);

  d.picture = Picture::make(int(width), int(height), type, channels);
  if (inChannels != 2) {
    d.picture.bytes = std::move(packed);
  } else {  // grey, alpha -> grey, grey, grey, alpha
    for (std::size_t i = 0; i < std::size_t(width) * height; ++i)
      for (int c = 0; c < 4; ++c)
        std::memcpy(d.picture.bytes.data() + (i * 4 + c) * sample, packed.data() + (i * 2 + (c == 3)) * sample, sample);
  }
  for (const auto& w : m.warnings) d.warnings.push_back("'" + name + "': " + w);
  return d;
}

std::string encodeTiff(const Picture& picture) {
  const ImageDesc& d = picture.desc;
  const bool floats = d.type == PixelType::F16 || d.type == PixelType::F32;
  const std::size_t sample = pixelTypeBytes(d.type);
  MemoryFile file;
  file.writing = true;
  Messages m;
  TiffPtr t = open(file, "picture.tif", "w", m);
  if (!t)
    throw std::runtime_error("libtiff could not start a TIFF" + (m.firstError.empty() ? "" : ": " + m.firstError));
  TIFF* f = t.get();
  TIFFSetField(f, TIFFTAG_IMAGEWIDTH, std::uint32_t(d.width));
  TIFFSetField(f, TIFFTAG_IMAGELENGTH, std::uint32_t(d.height));
  TIFFSetField(f, TIFFTAG_SAMPLESPERPIXEL, std::uint16_t(d.channels));
  TIFFSetField(f, TIFFTAG_BITSPERSAMPLE, std::uint16_t(sample * 8));
  TIFFSetField(f, TIFFTAG_SAMPLEFORMAT, floats ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
  TIFFSetField(f, TIFFTAG_PHOTOMETRIC, d.channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  TIFFSetField(f, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  if (d.channels == 4) {
    const std::uint16_t extra[] = {EXTRASAMPLE_UNASSALPHA};
    TIFFSetField(f, TIFFTAG_EXTRASAMPLES, 1, extra);
  }
  TIFFSetField(f, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
  TIFFSetField(f, TIFFTAG_PREDICTOR, floats ? PREDICTOR_FLOATINGPOINT : PREDICTOR_HORIZONTAL);
  TIFFSetField(f, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(f, 0));
  const std::size_t rowBytes = std::size_t(d.width) * std::size_t(d.channels) * sample;
  std::vector<std::uint8_t> row(rowBytes);  // the predictor rewrites the row it is given
  for (int y = 0; y < d.height; ++y) {
    std::memcpy(row.data(), picture.bytes.data() + std::size_t(y) * rowBytes, rowBytes);
    if (TIFFWriteScanline(f, row.data(), std::uint32_t(y), 0) < 0)
      throw std::runtime_error("libtiff could not encode the picture" +
                               (m.firstError.empty() ? "" : ": " + m.firstError));
  }
  t.reset();  // writes the directory
  if (!m.firstError.empty()) throw std::runtime_error("libtiff could not encode the picture: " + m.firstError);
  return std::move(file.out);
}

}  // namespace convlive
