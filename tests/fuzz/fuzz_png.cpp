// The PNG reader (app/png_codec.cpp): any bytes either decode to a picture whose size matches its
// bytes or are refused with std::invalid_argument; the pixel limit is small so that a valid but
// large header is refused rather than decoded at length. Each input is tried twice: as it is, and
// with every chunk's CRC made right, so that mutations reach past the CRC checks into the chunks.
#include <string>

#include "fuzz_input.hpp"
#include "fuzz_picture.hpp"

namespace {

std::uint32_t crc32(const char* p, std::size_t n) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < n; ++i) {
    c ^= static_cast<unsigned char>(p[i]);
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  }
  return c ^ 0xFFFFFFFFu;
}

// The chunks after the signature, each with its CRC computed again, as far as they are whole.
std::string withRightCrcs(std::string bytes) {
  std::size_t at = 8;
  while (at + 12 <= bytes.size()) {
    const auto* u = reinterpret_cast<const unsigned char*>(bytes.data() + at);
    const std::size_t length = std::size_t(u[0]) << 24 | std::size_t(u[1]) << 16 | std::size_t(u[2]) << 8 | u[3];
    if (length > bytes.size() - at - 12) break;
    const std::uint32_t c = crc32(bytes.data() + at + 4, 4 + length);
    for (int k = 0; k < 4; ++k) bytes[at + 8 + length + std::size_t(k)] = char(c >> (24 - 8 * k));
    at += 12 + length;
  }
  return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes = convlive::fuzz::bytesOf(data, size);
  convlive::fuzz::decodeOrRefuse(convlive::decodePng, bytes, "fuzz.png");
  if (convlive::looksLikePng(bytes))
    convlive::fuzz::decodeOrRefuse(convlive::decodePng, withRightCrcs(std::string(bytes)), "fuzz.png");
  return 0;
}
