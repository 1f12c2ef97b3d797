// JPEG through libjpeg-turbo's TurboJPEG API (2.x).
#include <turbojpeg.h>

#include <memory>
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

}  // namespace

bool looksLikeJpeg(std::string_view bytes) {
  return bytes.size() >= 3 && bytes.substr(0, 3) == std::string_view("\xFF\xD8\xFF", 3);
}

DecodedPicture decodeJpeg(std::string_view bytes, const std::string& name) {
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
  // Grey stays grey (one channel); colour comes as RGB.
  const bool grey = colourspace == TJCS_GRAY;
  DecodedPicture d;
  d.picture = Picture::make(w, ht, PixelType::U8, grey ? 1 : 3);
  if (tjDecompress2(h.get(), data, size, d.picture.bytes.data(), w, int(d.picture.desc.rowBytes()), ht,
                    grey ? TJPF_GRAY : TJPF_RGB, TJFLAG_ACCURATEDCT) != 0) {
    const std::string why = errorText(h.get());
    if (tjGetErrorCode(h.get()) != TJERR_WARNING || why.find("Premature end") != std::string::npos)
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
