// Pictures in and out of files: PNG and JPEG as RGBA8, with errors that say what was wrong. The
// input's format is found from its bytes, the output's from its extension. Writes are atomic: the
// picture is encoded in memory, then written to a temporary file that is renamed over the output.
#pragma once

#include <optional>
#include <string>

#include "convlive/image.hpp"
#include "picture_codecs.hpp"

namespace convlive {

enum class PictureFormat { Png, Jpeg };

// The format an output path asks for, by its extension (.png, .jpg, .jpeg; any case); nullopt for
// any other.
std::optional<PictureFormat> pictureFormatFor(const std::string& path);
// "PNG" / "JPEG", and the extensions accepted in words: ".png, .jpg or .jpeg".
const char* pictureFormatName(PictureFormat f);
const char* acceptedPictureExtensions();

// Reads a PNG or a JPEG. Throws std::invalid_argument naming the path and the problem (missing, a
// folder, neither PNG nor JPEG, corrupt, truncated).
DecodedPicture readPicture(const std::string& path);
// The image only (tests, the viewer): readPicture(path).image.
HostImage readPng(const std::string& path);

struct PictureWriteOptions {
  int jpegQuality = 92;  // 1..100
};
// Writes `image` in `format` (JPEG drops alpha). Throws std::runtime_error when the file cannot be
// written (then no file, and no temporary, is left behind).
void writePicture(const std::string& path, const HostImage& image, PictureFormat format,
                  const PictureWriteOptions& options = {});
// writePicture(path, image, PictureFormat::Png).
void writePng(const std::string& path, const HostImage& image);

}  // namespace convlive
