// What every picture reader's target checks: any bytes either decode to a picture whose size
// matches its bytes or are refused with std::invalid_argument. The pixel limit is small, so that a
// valid but large header is refused rather than decoded at length.
#pragma once

#include <stdexcept>
#include <string_view>

#include "picture_codecs.hpp"

namespace convlive::fuzz {

inline constexpr DecodeLimits kFuzzLimits{.maxPixels = 1 << 22};

template <class Decode>
void decodeOrRefuse(Decode decode, std::string_view bytes, const char* name) {
  try {
    const DecodedPicture d = decode(bytes, name, kFuzzLimits);
    if (d.picture.bytes.size() != d.picture.desc.span()) __builtin_trap();
  } catch (const std::invalid_argument&) {
  }
}

}  // namespace convlive::fuzz
