// PNG (libpng) and JPEG (libjpeg-turbo) to and from RGBA8 in memory. Each call is self-contained:
// any thread. Decoders throw std::invalid_argument naming `name` and what is wrong (corrupt,
// truncated, a kind of picture they do not take); encoders throw std::runtime_error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "convlive/image.hpp"

namespace convlive {

// A decoded picture and what the decoder had to say about it.
struct DecodedPicture {
  HostImage image;                    // RGBA8; alpha 255 where the file has none
  int bitsPerChannel = 8;             // as stored: 1, 2, 4, 8 or 16 (PNG); 8 (JPEG)
  std::vector<std::string> warnings;  // one line each, for the user ("16 bits per channel: ...")
};

bool looksLikePng(std::string_view bytes);
bool looksLikeJpeg(std::string_view bytes);

// Grey, grey+alpha, RGB, RGBA and palette PNGs of any bit depth, expanded to RGBA8 (transparency
// chunks become alpha). 16-bit channels are rounded to 8 bits (v * 255 / 65535), with a warning.
// Gamma and colour chunks are not applied: the samples are taken as they are stored.
DecodedPicture decodePng(std::string_view bytes, const std::string& name);
// RGBA8 as an 8-bit RGBA PNG.
std::string encodePng(const HostImage& image);

// Baseline and progressive JPEGs, colour or grey (CMYK is refused), to RGBA8 with alpha 255. A
// truncated file is an error; other decoder warnings come back as warnings.
DecodedPicture decodeJpeg(std::string_view bytes, const std::string& name);
// RGBA8 as a JPEG (alpha dropped): quality 1..100; chroma 4:4:4 at 90 and above, else 4:2:0.
std::string encodeJpeg(const HostImage& image, int quality);

}  // namespace convlive
