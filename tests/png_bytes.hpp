// PNG files made byte by byte for tests: any colour type and bit depth, with PLTE and tRNS chunks,
// the image data in stored (uncompressed) deflate blocks. And NumPy .npy files, the same way.
// Independent of the decoders under test.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace convlive::testing {

inline std::uint32_t crc32(const std::string& bytes) {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : bytes) c = table[(c ^ b) & 0xff] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

inline std::string bigEndian32(std::uint32_t v) {
  return {char(v >> 24), char((v >> 16) & 0xff), char((v >> 8) & 0xff), char(v & 0xff)};
}

inline std::string pngChunk(const std::string& type, const std::string& data) {
  return bigEndian32(std::uint32_t(data.size())) + type + data + bigEndian32(crc32(type + data));
}

// zlib stream of stored blocks.
inline std::string zlibStored(const std::string& raw) {
  std::string out = "\x78\x01";
  std::size_t at = 0;
  do {
    const std::size_t n = std::min<std::size_t>(65535, raw.size() - at);
    const bool last = at + n == raw.size();
    out += char(last ? 1 : 0);
    out += char(n & 0xff);
    out += char(n >> 8);
    out += char(~n & 0xff);
    out += char((~n >> 8) & 0xff);
    out += raw.substr(at, n);
    at += n;
  } while (at < raw.size());
  std::uint32_t a = 1, b = 0;
  for (unsigned char c : raw) {
    a = (a + c) % 65521;
    b = (b + a) % 65521;
  }
  return out + bigEndian32((b << 16) | a);
}

// rows: each row's packed samples (without the filter byte), as the PNG stores them.
// colourType: 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA.
inline std::string pngFile(int width, int height, int bitDepth, int colourType, const std::vector<std::string>& rows,
                           const std::string& plte = "", const std::string& trns = "") {
  std::string ihdr = bigEndian32(std::uint32_t(width)) + bigEndian32(std::uint32_t(height));
  ihdr += char(bitDepth);
  ihdr += char(colourType);
  ihdr += std::string("\0\0\0", 3);
  std::string raw;
  for (const std::string& r : rows) raw += '\0' + r;
  std::string png("\x89PNG\r\n\x1a\n", 8);
  png += pngChunk("IHDR", ihdr);
  if (!plte.empty()) png += pngChunk("PLTE", plte);
  if (!trns.empty()) png += pngChunk("tRNS", trns);
  png += pngChunk("IDAT", zlibStored(raw));
  return png + pngChunk("IEND", "");
}

// A NumPy .npy file: `data` after a header of format version `major` (1: a 2-byte header length, 2
// and 3: 4 bytes) with descr (as '<f4'), fortran_order ("False") and shape (as "(3, 5, 4)") as given,
// padded with spaces to a multiple of 64 bytes and ending in a newline as numpy.save writes it.
inline std::string npyFile(const std::string& descr, const std::string& shape, const std::string& data, int major = 1,
                           const std::string& fortranOrder = "False") {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': " + fortranOrder + ", 'shape': " + shape + ", }";
  const std::size_t lengthBytes = major == 1 ? 2 : 4;
  while ((8 + lengthBytes + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += char(major);
  out += '\0';
  for (std::size_t k = 0; k < lengthBytes; ++k) out += char((header.size() >> (8 * k)) & 0xff);
  return out + header + data;
}

}  // namespace convlive::testing
