// Pictures in memory and their codecs: PNG (libpng), JPEG (libjpeg-turbo), TIFF (libtiff) and NumPy
// .npy (by hand), each keeping the picture's own type and channels (grey stays grey, 16 bits stay 16 bits,
// floats stay floats). Each call is self-contained: any thread. Decoders throw
// std::invalid_argument naming `name` and what is wrong (corrupt, truncated, a kind of picture they
// do not take) and what to do; encoders throw std::invalid_argument for a picture the format cannot
// hold (saying which format can) and std::runtime_error when encoding fails.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "convlive/image.hpp"

namespace convlive {

// One picture of any type the library filters: desc is packed (pitch 0) and one frame (batch 1);
// 1, 3 or 4 channels, the 4th alpha (desc.alpha true). bytes: desc.span() bytes, values in host
// byte order.
struct Picture {
  ImageDesc desc;
  std::vector<std::uint8_t> bytes;

  // A width x height picture of `type` and `channels`, zero-filled.
  static Picture make(int width, int height, PixelType type, int channels);
  // An RGBA8 image as a u8x4 picture (a copy).
  static Picture fromRgba8(const HostImage& image);
  // The picture as RGBA8, for code that takes nothing else (the viewer, the tests): grey is copied
  // to red, green and blue, alpha is 255 where there is none, 16-bit values are rounded to the
  // nearest 8-bit one (v x 255 / 65535). Throws std::invalid_argument for a float picture.
  HostImage toRgba8() const;
  // "u16x1", "u8x4": the type and channels (desc.str() without the size).
  std::string typeName() const;
};

// What a decoder takes before it allocates anything. Every decoder first checks the size its
// header declares against the data it has (a PNG inflates to at most 1032 bytes a byte of file, a
// Huffman-coded JPEG codes each 8x8 block in at least one bit, a .npy holds exactly shape x item
// size bytes), then against maxPixels: a file whose header promises more is refused at once, in
// one line, and allocates nothing.
// The default limit, 2^28 pixels (16384x16384): 1 GiB as RGBA8, 4 GiB as float32 RGBA; any
// aspect ratio within it (a 1x40000 strip is fine on the CPU path; the GPU variants say when a
// side is beyond their grid).
inline constexpr std::uint64_t kDefaultMaxPixels = std::uint64_t(1) << 28;
struct DecodeLimits {
  std::uint64_t maxPixels = kDefaultMaxPixels;  // width x height; the image command's --max-pixels
};
// Throws std::invalid_argument when a width x height picture is more than limits.maxPixels or has a
// side the library cannot describe (above 2^31 - 1): "'name' is WxH = N pixels, more than the
// limit of M (--max-pixels raises it)".
void checkPictureSize(const std::string& name, std::uint64_t width, std::uint64_t height, const DecodeLimits& limits);

// A decoded picture and what the decoder had to say about it.
struct DecodedPicture {
  Picture picture;                    // as stored (PNG: 8 or 16 bits; JPEG: 8 bits; .npy: its dtype)
  int bitsPerChannel = 8;             // as stored: 1, 2, 4, 8 or 16 (PNG); 8 (JPEG); 8, 16 or 32 (.npy)
  std::vector<std::string> warnings;  // one line each, for the user
};

bool looksLikePng(std::string_view bytes);
bool looksLikeJpeg(std::string_view bytes);
bool looksLikeNpy(std::string_view bytes);
bool looksLikeTiff(std::string_view bytes);

// Grey, grey+alpha, RGB, RGBA and palette PNGs of any bit depth. 8- and 16-bit files keep their
// depth (u8 or u16); 1, 2 and 4 bits (grey or palette) become 8. Channels as stored: grey is 1, RGB
// (and palette) 3, RGBA 4; grey+alpha becomes RGBA (grey copied to red, green and blue: the library
// takes 1, 3 or 4 channels), and so does anything with a transparency chunk (tRNS, as alpha). Gamma
// and colour chunks are not applied: the samples are taken as they are stored. Image data that ends
// before the last row is an error.
DecodedPicture decodePng(std::string_view bytes, const std::string& name, const DecodeLimits& limits = {});
// A u8 or u16 picture as an 8- or 16-bit PNG: 1 channel grey, 3 RGB, 4 RGBA. Floats are refused
// (a .npy keeps them).
std::string encodePng(const Picture& picture);
std::string encodePng(const HostImage& image);  // an 8-bit RGBA PNG

// Baseline and progressive JPEGs: grey ones as u8x1, colour ones as u8x3 (CMYK is refused). Data
// that ends early (a truncated file, a scan cut short by a marker) is an error; other decoder
// warnings come back as warnings.
DecodedPicture decodeJpeg(std::string_view bytes, const std::string& name, const DecodeLimits& limits = {});
// A u8 picture as a JPEG (1 channel: a grey JPEG; 4: alpha dropped): quality 1..100; chroma 4:4:4
// at 90 and above, else 4:2:0. 16-bit and float pictures are refused (PNG or .npy keep them).
std::string encodeJpeg(const Picture& picture, int quality);
std::string encodeJpeg(const HostImage& image, int quality);

// TIFF (classic and BigTIFF, either byte order, any compression libtiff reads), its first picture:
// 8- and 16-bit unsigned and 16- and 32-bit float samples keep their type (u8, u16, f16, f32), grey
// as 1 channel, RGB as 3, RGBA (an extra sample) as 4, grey+alpha as RGBA; interleaved, as planes or
// tiled. Other kinds of at most 8 bits (palette, CMYK, YCbCr, 1-bit, white-is-zero) come through
// libtiff's RGBA reader as u8x4. Signed and 64-bit samples are refused with the fix. Before
// allocating: the declared size against the limit, every strip or tile within the file, and their
// bytes enough for the pixels (no codec inflates more than 4096 times).
DecodedPicture decodeTiff(std::string_view bytes, const std::string& name, const DecodeLimits& limits = {});
// Any picture as a TIFF of its own type (floats as IEEE samples), Deflate-compressed with the
// predictor that suits the type; 4 channels: RGB and unassociated alpha.
std::string encodeTiff(const Picture& picture);

// NumPy .npy (format versions 1, 2 and 3), as numpy.save writes it: little-endian uint8 ('|u1'),
// uint16 ('<u2'), float16 ('<f2') or float32 ('<f4'), shape (H, W) or (H, W, C) with C 1, 3 or 4
// (4: the 4th is alpha), C order. Anything else is refused with the fix (a.astype('float32'),
// np.ascontiguousarray(a), a.transpose(1, 2, 0), ...).
DecodedPicture decodeNpy(std::string_view bytes, const std::string& name, const DecodeLimits& limits = {});
// Version 1.0, C order: shape (H, W) for one channel, else (H, W, C); the picture's own dtype.
std::string encodeNpy(const Picture& picture);

}  // namespace convlive
