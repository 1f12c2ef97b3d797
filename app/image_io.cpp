#include "image_io.hpp"

#include <stb_image.h>
#include <stb_image_write.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace convlive {

HostImage readPng(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw std::invalid_argument("cannot read '" + path + "': no such file");
  if (fs::is_directory(path, ec))
    throw std::invalid_argument("cannot read '" + path + "': it is a directory, not a PNG file");
  std::ifstream f(path, std::ios::binary);
  std::array<unsigned char, 8> sig{};
  if (!f || !f.read(reinterpret_cast<char*>(sig.data()), sig.size()))
    throw std::invalid_argument("cannot read '" + path + "': not readable or shorter than a PNG header");
  static constexpr std::array<unsigned char, 8> kPng{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (sig != kPng) throw std::invalid_argument("'" + path + "' is not a PNG file (convert it to PNG first)");
  int w = 0, h = 0, channels = 0;
  unsigned char* data = stbi_load(path.c_str(), &w, &h, &channels, 4);
  if (!data) throw std::invalid_argument("'" + path + "' is not a readable PNG: " + stbi_failure_reason());
  HostImage img(w, h);
  std::memcpy(img.pixels().data(), data, img.pixels().size());
  stbi_image_free(data);
  return img;
}

void writePng(const std::string& path, const HostImage& image) {
  if (!stbi_write_png(path.c_str(), image.width(), image.height(), 4, image.pixels().data(),
                      static_cast<int>(image.pitch())))
    throw std::runtime_error("cannot write '" + path + "' (is the folder there and writable?)");
}

}  // namespace convlive
