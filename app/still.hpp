// The still-image command: one picture in (PNG, JPEG or NumPy .npy), the filtered picture out (PNG,
// JPEG or .npy, by the output's extension), through any variant of the table that takes it. The
// picture is filtered in its own type and channels (grey stays grey, 16 bits stay 16 bits, floats
// stay floats) and written so.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "convlive/image.hpp"
#include "convlive/mask.hpp"
#include "convlive/spec.hpp"
#include "convlive/variants.hpp"
#include "exit_codes.hpp"
#include "picture_codecs.hpp"

namespace convlive {

inline constexpr int kDefaultJpegQuality = 92;

struct StillOptions {
  std::string input, output;
  FilterSpec spec;                 // variant auto: the fastest GPU variant that can run, else cpu
  std::optional<int> jpegQuality;  // JPEG output only (an error with a PNG); default kDefaultJpegQuality
  // The most pixels the input may have (--max-pixels): a larger one is refused before it is
  // decoded (picture_codecs.hpp, DecodeLimits).
  std::uint64_t maxPixels = kDefaultMaxPixels;
  // --float: an 8-bit picture written as f32 values (the filtered sums, neither rounded nor clamped;
  // .npy or TIFF output). Other pictures are refused: they are filtered in their own type.
  bool floatOutput = false;
};

struct Variant;
struct FilterParams;

// A filtered copy of an image, which variant made it and how long it took (with transfers).
struct FilteredImage {
  HostImage image;
  const Variant* variant;
  double ms;
  Tile tile{};  // the tile it ran with ({0,0}: the variant has none)
};
// variant: a name from the table, or "auto", whose choice (or, without a GPU, that the CPU runs) is
// said on `log` unless sayAuto is false. Throws std::invalid_argument when it cannot run.
FilteredImage filterImage(const HostImage& in, const FilterParams& p, const std::string& variant, std::ostream& log,
                          bool sayAuto = true);
// One line on `log`: "<what>: gaussian r=5 border=clamp variant=stream tile=32x16 in 3.1 ms (including
// transfers)".
void describeFiltered(std::ostream& log, const std::string& what, const FilterParams& p, const FilteredImage& r);

// The same for a picture of any type (picture_codecs.hpp): the output has the input's description,
// or f32 values (outType; from u8 pictures).
struct FilteredPicture {
  Picture picture;
  const Variant* variant;
  double ms;
  Tile tile{};
};
FilteredPicture filterPicture(const Picture& in, const FilterParams& p, const std::string& variant, std::ostream& log,
                              bool sayAuto = true, std::optional<PixelType> outType = std::nullopt);
void describeFiltered(std::ostream& log, const std::string& what, const FilterParams& p, const FilteredPicture& r);

// Runs the command; messages go to `err` (one line for bad input), a summary to `log`.
int runStill(const StillOptions& o, std::ostream& log, std::ostream& err);

}  // namespace convlive
