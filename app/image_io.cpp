#include "image_io.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "convlive/atomic_file.hpp"

namespace convlive {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::optional<PictureFormat> pictureFormatFor(const std::string& path) {
  const std::string ext = lower(std::filesystem::path(path).extension().string());
  if (ext == ".png") return PictureFormat::Png;
  if (ext == ".jpg" || ext == ".jpeg") return PictureFormat::Jpeg;
  return std::nullopt;
}

const char* pictureFormatName(PictureFormat f) { return f == PictureFormat::Png ? "PNG" : "JPEG"; }
const char* acceptedPictureExtensions() { return ".png, .jpg or .jpeg"; }

DecodedPicture readPicture(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) throw std::invalid_argument("cannot read '" + path + "': no such file");
  if (fs::is_directory(st)) throw std::invalid_argument("cannot read '" + path + "': it is a directory, not a picture");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::invalid_argument("cannot read '" + path + "': " + std::strerror(errno));
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) throw std::invalid_argument("cannot read '" + path + "': " + std::strerror(errno));
  if (looksLikePng(bytes)) return decodePng(bytes, path);
  if (looksLikeJpeg(bytes)) return decodeJpeg(bytes, path);
  throw std::invalid_argument("'" + path + "' is " + (bytes.empty() ? "empty" : "neither a PNG nor a JPEG file") +
                              ": convert it to PNG or JPEG first");
}

HostImage readPng(const std::string& path) { return readPicture(path).image; }

void writePicture(const std::string& path, const HostImage& image, PictureFormat format,
                  const PictureWriteOptions& options) {
  const std::string bytes = format == PictureFormat::Png ? encodePng(image) : encodeJpeg(image, options.jpegQuality);
  if (!writeFileAtomically(path, bytes))
    throw std::runtime_error("cannot write '" + path + "' (is the folder there and writable?)");
}

void writePng(const std::string& path, const HostImage& image) { writePicture(path, image, PictureFormat::Png); }

}  // namespace convlive
