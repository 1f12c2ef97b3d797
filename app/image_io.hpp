// PNG in and out (RGBA8), with errors that say what was wrong.
#pragma once

#include <string>

#include "convlive/image.hpp"

namespace convlive {

// Reads a PNG as RGBA8 (grey, grey+alpha and RGB are expanded; alpha 255 where absent). Throws
// std::invalid_argument naming the path and the problem (missing, a directory, not a PNG, corrupt).
HostImage readPng(const std::string& path);
// Writes RGBA8 as PNG. Throws std::runtime_error when the file cannot be written.
void writePng(const std::string& path, const HostImage& image);

}  // namespace convlive
