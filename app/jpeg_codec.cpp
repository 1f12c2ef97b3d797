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
  DecodedPicture d;
  d.image = HostImage(w, ht);
  if (tjDecompress2(h.get(), data, size, d.image.pixels().data(), w, int(d.image.pitch()), ht, TJPF_RGBA,
                    TJFLAG_ACCURATEDCT) != 0) {
    const std::string why = errorText(h.get());
    if (tjGetErrorCode(h.get()) != TJERR_WARNING || why.find("Premature end") != std::string::npos)
      throw std::invalid_argument("'" + name + "' is not a readable JPEG (corrupt or truncated: " + why + ")");
    d.warnings.push_back("'" + name + "': " + why + " (decoded anyway)");
  }
  return d;
}

std::string encodeJpeg(const HostImage& image, int quality) {
  if (quality < 1 || quality > 100) throw std::invalid_argument("JPEG quality must be 1..100");
  const TjHandle h(tjInitCompress());
  if (!h) throw std::runtime_error(std::string("cannot start the JPEG encoder: ") + tjGetErrorStr2(nullptr));
  unsigned char* raw = nullptr;
  unsigned long size = 0;
  const int subsampling = quality >= 90 ? TJSAMP_444 : TJSAMP_420;
  const int rc = tjCompress2(h.get(), image.pixels().data(), image.width(), int(image.pitch()), image.height(),
                             TJPF_RGBA, &raw, &size, subsampling, quality, TJFLAG_ACCURATEDCT);
  const std::unique_ptr<unsigned char, TjBytes> owned(raw);
  if (rc != 0) throw std::runtime_error("cannot encode the JPEG: " + errorText(h.get()));
  return std::string(reinterpret_cast<const char*>(raw), size);
}

}  // namespace convlive
