// Pictures in and out of files: PNG, JPEG, TIFF and NumPy .npy, each in its own type (picture_codecs.hpp),
// with errors that say what was wrong. The input's format is found from its bytes, the output's from
// its extension. Writes are atomic: the picture is encoded in memory, then written to a temporary
// file that is renamed over the output.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "convlive/image.hpp"
#include "picture_codecs.hpp"

namespace convlive {

enum class PictureFormat { Png, Jpeg, Npy, Tiff };

// The format an output path asks for, by its extension (.png, .jpg, .jpeg, .tif, .tiff, .npy; any
// case); nullopt for any other.
std::optional<PictureFormat> pictureFormatFor(const std::string& path);
// "PNG" / "JPEG" / ".npy" / "TIFF", and the extensions accepted in words.
const char* pictureFormatName(PictureFormat f);
const char* acceptedPictureExtensions();
// Why `format` cannot hold `picture`'s type ("a JPEG holds 8-bit samples: write a .png (16 bits) or
// a .npy to keep them"); empty when it can.
std::string whyFormatCannotHold(PictureFormat format, const Picture& picture);

// Reads a PNG, a JPEG, a TIFF or a .npy. Throws std::invalid_argument naming the path and the problem
// (missing, a folder, not a regular file, none of those formats, corrupt, truncated, an unsupported
// .npy, more pixels than limits allow: picture_codecs.hpp), before allocating for the pixels.
DecodedPicture readPicture(const std::string& path, const DecodeLimits& limits = {});
// The same for bytes in memory (the format found from them); `name` names them in messages.
DecodedPicture decodePicture(std::string_view bytes, const std::string& name, const DecodeLimits& limits = {});
// The picture as RGBA8 (tests, the viewer): readPicture(path).picture.toRgba8().
HostImage readPng(const std::string& path);

struct PictureWriteOptions {
  int jpegQuality = 92;  // 1..100
};
// Writes `picture` in `format` (JPEG drops alpha). Throws std::invalid_argument when the format
// cannot hold the picture (whyFormatCannotHold), std::runtime_error naming the cause when the file
// cannot be written ("cannot write 'o.png': the disk is full: ..."; then no file, and no
// temporary, is left behind).
void writePicture(const std::string& path, const Picture& picture, PictureFormat format,
                  const PictureWriteOptions& options = {});
void writePicture(const std::string& path, const HostImage& image, PictureFormat format,
                  const PictureWriteOptions& options = {});
// writePicture(path, image, PictureFormat::Png): an 8-bit RGBA PNG.
void writePng(const std::string& path, const HostImage& image);

}  // namespace convlive
