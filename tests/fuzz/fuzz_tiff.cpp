// The TIFF reader (app/tiff_codec.cpp): any bytes either decode to a picture whose size matches its
// bytes or are refused with std::invalid_argument; the pixel limit is small so that a valid but
// large header is refused rather than decoded at length.
#include <stdexcept>

#include "fuzz_input.hpp"
#include "picture_codecs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const convlive::DecodedPicture d =
        convlive::decodeTiff(convlive::fuzz::bytesOf(data, size), "fuzz.tif", {.maxPixels = 1 << 22});
    if (d.picture.bytes.size() != d.picture.desc.span()) __builtin_trap();
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
