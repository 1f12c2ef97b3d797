#include "image_io.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>

#include "convlive/atomic_file.hpp"

namespace convlive {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

void checkPictureSize(const std::string& name, std::uint64_t width, std::uint64_t height, const DecodeLimits& limits) {
  const std::string size = std::to_string(width) + "x" + std::to_string(height);
  constexpr std::uint64_t kMaxSide = std::numeric_limits<int>::max();
  if (width > kMaxSide || height > kMaxSide)
    throw std::invalid_argument("'" + name + "' is " + size + " pixels: a side is more than " +
                                std::to_string(kMaxSide) + ", the most a picture may have");
  // Two sides below 2^31 multiply without overflow.
  if (const std::uint64_t pixels = width * height; pixels > limits.maxPixels)
    throw std::invalid_argument("'" + name + "' is " + size + " = " + std::to_string(pixels) +
                                " pixels, more than the limit of " + std::to_string(limits.maxPixels) +
                                " (--max-pixels raises it)");
}

Picture Picture::make(int width, int height, PixelType type, int channels) {
  Picture p;
  p.desc.width = width;
  p.desc.height = height;
  p.desc.type = type;
  p.desc.channels = channels;
  p.desc.alpha = channels == 4;
  p.bytes.assign(p.desc.span(), 0);
  return p;
}

Picture Picture::fromRgba8(const HostImage& image) {
  Picture p = make(image.width(), image.height(), PixelType::U8, 4);
  p.bytes = image.pixels();
  return p;
}

HostImage Picture::toRgba8() const {
  if (desc.type != PixelType::U8 && desc.type != PixelType::U16)
    throw std::invalid_argument("a " + typeName() + " picture has no RGBA8 form: its values are floats");
  HostImage out(desc.width, desc.height);
  const std::size_t n = std::size_t(desc.width) * std::size_t(desc.height);
  const int c = desc.channels;
  const auto value = [&](std::size_t i) -> std::uint8_t {  // element i, at 8 bits
    if (desc.type == PixelType::U8) return bytes[i];
    std::uint16_t v;
    std::memcpy(&v, &bytes[2 * i], 2);
    return std::uint8_t((std::uint32_t(v) * 255 + 32767) / 65535);  // nearest (no ties: 65535 is odd)
  };
  std::uint8_t* o = out.pixels().data();
  for (std::size_t p = 0; p < n; ++p, o += 4) {
    const std::size_t at = p * std::size_t(c);
    o[0] = value(at);
    o[1] = c >= 3 ? value(at + 1) : o[0];
    o[2] = c >= 3 ? value(at + 2) : o[0];
    o[3] = c == 4 ? value(at + 3) : 255;
  }
  return out;
}

std::string Picture::typeName() const { return desc.typeName(); }

std::optional<PictureFormat> pictureFormatFor(const std::string& path) {
  const std::string ext = lower(std::filesystem::path(path).extension().string());
  if (ext == ".png") return PictureFormat::Png;
  if (ext == ".jpg" || ext == ".jpeg") return PictureFormat::Jpeg;
  if (ext == ".npy") return PictureFormat::Npy;
  if (ext == ".tif" || ext == ".tiff") return PictureFormat::Tiff;
  return std::nullopt;
}

const char* pictureFormatName(PictureFormat f) {
  switch (f) {
    case PictureFormat::Png:
      return "PNG";
    case PictureFormat::Jpeg:
      return "JPEG";
    case PictureFormat::Npy:
      return ".npy";
    case PictureFormat::Tiff:
      return "TIFF";
  }
  return "";
}
const char* acceptedPictureExtensions() { return ".png, .jpg, .jpeg, .tif, .tiff or .npy"; }

std::string whyFormatCannotHold(PictureFormat format, const Picture& picture) {
  const PixelType t = picture.desc.type;
  const bool floats = t == PixelType::F16 || t == PixelType::F32;
  if (format == PictureFormat::Png && floats)
    return "a PNG holds 8- or 16-bit integer samples: write a .npy to keep the floats (or save the array as uint16 "
           "first, (a * 65535).round().astype('uint16') for values in 0..1, and write a .png)";
  if (format == PictureFormat::Jpeg && t != PixelType::U8)
    return std::string("a JPEG holds 8-bit samples: ") +
           (floats ? "write a .npy to keep the floats" : "write a .png (16 bits) or a .npy to keep them");
  return "";
}

DecodedPicture readPicture(const std::string& path, const DecodeLimits& limits) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) throw std::invalid_argument("cannot read '" + path + "': no such file");
  if (fs::is_directory(st)) throw std::invalid_argument("cannot read '" + path + "': it is a directory, not a picture");
  // A pipe, a socket or a device would block the open or the read with nothing to bound it.
  if (!fs::is_regular_file(st))
    throw std::invalid_argument("cannot read '" + path +
                                "': it is not a regular file (a pipe, a socket or a device): save the picture to a "
                                "file first");
  // No picture within the limit takes more than 16 bytes a pixel (float32 RGBA) and a header: a
  // larger file is refused before it is read into memory.
  const std::uintmax_t size = fs::file_size(path, ec);
  const std::uintmax_t most = limits.maxPixels > (std::uintmax_t(1) << 59) ? std::numeric_limits<std::uintmax_t>::max()
                                                                           : limits.maxPixels * 16 + (1u << 20);
  if (!ec && size > most)
    throw std::invalid_argument("'" + path + "' is " + std::to_string(size) +
                                " bytes, more than any picture of at most " + std::to_string(limits.maxPixels) +
                                " pixels holds (--max-pixels raises the limit)");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::invalid_argument("cannot read '" + path + "': " + std::strerror(errno));
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) throw std::invalid_argument("cannot read '" + path + "': " + std::strerror(errno));
  return decodePicture(bytes, path, limits);
}

DecodedPicture decodePicture(std::string_view bytes, const std::string& name, const DecodeLimits& limits) {
  if (looksLikePng(bytes)) return decodePng(bytes, name, limits);
  if (looksLikeJpeg(bytes)) return decodeJpeg(bytes, name, limits);
  if (looksLikeNpy(bytes)) return decodeNpy(bytes, name, limits);
  if (looksLikeTiff(bytes)) return decodeTiff(bytes, name, limits);
  throw std::invalid_argument("'" + name + "' is " +
                              (bytes.empty() ? "empty" : "neither a PNG, a JPEG, a TIFF nor a NumPy .npy file") +
                              ": convert it to PNG, JPEG, TIFF or .npy first");
}

HostImage readPng(const std::string& path) { return readPicture(path).picture.toRgba8(); }

void writePicture(const std::string& path, const Picture& picture, PictureFormat format,
                  const PictureWriteOptions& options) {
  if (const std::string why = whyFormatCannotHold(format, picture); !why.empty())
    throw std::invalid_argument("cannot write '" + path + "': the picture is " + picture.typeName() + ", and " + why);
  std::string bytes;
  switch (format) {
    case PictureFormat::Png:
      bytes = encodePng(picture);
      break;
    case PictureFormat::Jpeg:
      bytes = encodeJpeg(picture, options.jpegQuality);
      break;
    case PictureFormat::Npy:
      bytes = encodeNpy(picture);
      break;
    case PictureFormat::Tiff:
      bytes = encodeTiff(picture);
      break;
  }
  if (std::string why; !writeFileAtomically(path, bytes, &why))
    throw std::runtime_error("cannot write '" + path + "': " + why);
}

void writePicture(const std::string& path, const HostImage& image, PictureFormat format,
                  const PictureWriteOptions& options) {
  writePicture(path, Picture::fromRgba8(image), format, options);
}

void writePng(const std::string& path, const HostImage& image) { writePicture(path, image, PictureFormat::Png); }

}  // namespace convlive
