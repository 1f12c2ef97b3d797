// JPEG through libjpeg-turbo's TurboJPEG API (2.x).
#include <turbojpeg.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>

#include "picture_codecs.hpp"

namespace convlive {
namespace {

struct TjClose {
  void operator()(void* h) const { tjDestroy(h); }
};
using TjHandle = std::unique_ptr<void, TjClose>;

struct TjBytes {
  void operator()(unsigned char* p) const { tjFree(p); }
};

std::string errorText(void* h) { return tjGetErrorStr2(h); }

// What the frame header (SOFn) says about the coding, read by walking the markers before the
// decoder is asked for anything.
struct JpegFrame {
  bool arithmetic = false;   // SOF9..SOF15: arithmetic coding, which has no floor of bits a block
  std::uint64_t blocks = 0;  // 8x8 blocks of the component that has the most
};

std::optional<JpegFrame> readFrame(std::string_view bytes) {
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t at = 2;  // after SOI
  while (at + 4 <= bytes.size()) {
    if (u[at] != 0xFF) {  // bytes between segments, which the decoder skips (with a warning)
      ++at;
      continue;
    }
    const unsigned marker = u[at + 1];
    if (marker == 0xFF) {  // fill byte
      ++at;
      continue;
    }
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {  // TEM, RSTn: no length
      at += 2;
      continue;
    }
    if (marker == 0xD8 || marker == 0xD9 || marker == 0xDA) return std::nullopt;  // no frame before the scan
    const std::size_t length = std::size_t(u[at + 2]) << 8 | u[at + 3];
    if (length < 2 || at + 2 + length > bytes.size()) return std::nullopt;
    const bool sof = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (sof) {
      const unsigned char* f = u + at + 4;
      if (length < 8) return std::nullopt;
      const std::uint64_t height = std::uint64_t(f[1]) << 8 | f[2], width = std::uint64_t(f[3]) << 8 | f[4];
      const int components = f[5];
      if (components < 1 || length < 8 + 3 * std::size_t(components)) return std::nullopt;
      int hMax = 1, vMax = 1;
      for (int c = 0; c < components; ++c) {
        hMax = std::max(hMax, f[7 + 3 * c] >> 4);
        vMax = std::max(vMax, f[7 + 3 * c] & 15);
      }
      JpegFrame frame;
      frame.arithmetic = marker >= 0xC9;
      for (int c = 0; c < components; ++c) {
        const int hc = std::max(1, f[7 + 3 * c] >> 4), vc = std::max(1, f[7 + 3 * c] & 15);
        const std::uint64_t cw = (width * hc + hMax - 1) / hMax, ch = (height * vc + vMax - 1) / vMax;
        frame.blocks = std::max(frame.blocks, ((cw + 7) / 8) * ((ch + 7) / 8));
      }
      return frame;
    }
    at += 2 + length;
  }
  return std::nullopt;
}

// "Premature end of JPEG file" (the file ends) and "Corrupt JPEG data: premature end of data
// segment" (a marker comes before the scan's data does): the rest of the picture would be flat.
bool endsEarly(const std::string& why) {
  std::string lower = why;
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("premature end") != std::string::npos;
}

}  // namespace

bool looksLikeJpeg(std::string_view bytes) {
  return bytes.size() >= 3 && bytes.substr(0, 3) == std::string_view("\xFF\xD8\xFF", 3);
}

DecodedPicture decodeJpeg(std::string_view bytes, const std::string& name, const DecodeLimits& limits) {
  if (!looksLikeJpeg(bytes)) throw std::invalid_argument("'" + name + "' is not a JPEG file");
  const TjHandle h(tjInitDecompress());
  if (!h) throw std::runtime_error(std::string("cannot start the JPEG decoder: ") + tjGetErrorStr2(nullptr));
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const auto size = static_cast<unsigned long>(bytes.size());
  int w = 0, ht = 0, subsampling = 0, colourspace = 0;
  if (tjDecompressHeader3(h.get(), data, size, &w, &ht, &subsampling, &colourspace) != 0)
    throw std::invalid_argument("'" + name + "' is not a readable JPEG (corrupt or truncated: " + errorText(h.get()) +
                                ")");
  if (colourspace == TJCS_CMYK || colourspace == TJCS_YCCK)
    throw std::invalid_argument("'" + name + "' is a CMYK JPEG, which convlive does not read: convert it to RGB");
  // A Huffman-coded scan spends at least one bit on each 8x8 block (its DC code): a file smaller
  // than that is cut short, whatever its header says. Arithmetic coding has no such floor: those
  // files are bounded by the pixel limit alone.
  if (const auto frame = readFrame(bytes); frame && !frame->arithmetic && frame->blocks > 8 * std::uint64_t(size))
    throw std::invalid_argument("'" + name + "' is corrupt or truncated: its header says " + std::to_string(w) + "x" +
                                std::to_string(ht) + ", " + std::to_string(frame->blocks) +
                                " blocks of 8x8 pixels, at least one bit each, and it holds " + std::to_string(size) +
                                " bytes");
  checkPictureSize(name, std::uint64_t(w), std::uint64_t(ht), limits);
  // Grey stays grey (one channel); colour comes as RGB.
  const bool grey = colourspace == TJCS_GRAY;
  DecodedPicture d;
  d.picture = Picture::make(w, ht, PixelType::U8, grey ? 1 : 3);
  if (tjDecompress2(h.get(), data, size, d.picture.bytes.data(), w, int(d.picture.desc.rowBytes()), ht,
                    grey ? TJPF_GRAY : TJPF_RGB, TJFLAG_ACCURATEDCT) != 0) {
    const std::string why = errorText(h.get());
    if (tjGetErrorCode(h.get()) != TJERR_WARNING || endsEarly(why))
      throw std::invalid_argument("'" + name + "' is not a readable JPEG (corrupt or truncated: " + why + ")");
    d.warnings.push_back("'" + name + "': " + why + " (decoded anyway)");
  }
  return d;
}

std::string encodeJpeg(const Picture& picture, int quality) {
  if (quality < 1 || quality > 100) throw std::invalid_argument("JPEG quality must be 1..100");
  const ImageDesc& d = picture.desc;
  if (d.type != PixelType::U8)
    throw std::invalid_argument(std::string("a JPEG holds 8-bit samples, and the picture is ") + picture.typeName() +
                                (d.type == PixelType::U16 ? ": write a .png (16 bits) or a .npy to keep them"
                                                          : ": write a .npy to keep the floats"));
  const int format = d.channels == 1 ? TJPF_GRAY : d.channels == 3 ? TJPF_RGB : d.channels == 4 ? TJPF_RGBA : -1;
  if (format < 0)
    throw std::invalid_argument("a JPEG holds 1 (grey) or 3 (colour) channels, and the picture has " +
                                std::to_string(d.channels));
  const TjHandle h(tjInitCompress());
  if (!h) throw std::runtime_error(std::string("cannot start the JPEG encoder: ") + tjGetErrorStr2(nullptr));
  unsigned char* raw = nullptr;
  unsigned long size = 0;
  const int subsampling = d.channels == 1 ? TJSAMP_GRAY : quality >= 90 ? TJSAMP_444 : TJSAMP_420;
  const int rc = tjCompress2(h.get(), picture.bytes.data(), d.width, int(d.rowBytes()), d.height, format, &raw, &size,
                             subsampling, quality, TJFLAG_ACCURATEDCT);
  const std::unique_ptr<unsigned char, TjBytes> owned(raw);
  if (rc != 0) throw std::runtime_error("cannot encode the JPEG: " + errorText(h.get()));
  return std::string(reinterpret_cast<const char*>(raw), size);
}

std::string encodeJpeg(const HostImage& image, int quality) { return encodeJpeg(Picture::fromRgba8(image), quality); }

}  // namespace convlive
