// The still-image command: one picture in (PNG or JPEG), the filtered picture out (PNG or JPEG, by
// the output's extension), through any variant of the table.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "convlive/image.hpp"
#include "convlive/mask.hpp"
#include "convlive/spec.hpp"
#include "convlive/variants.hpp"

namespace convlive {

inline constexpr int kDefaultJpegQuality = 92;

struct StillOptions {
  std::string input, output;
  FilterSpec spec;                 // variant auto: the fastest GPU variant that can run, else cpu
  std::optional<int> jpegQuality;  // JPEG output only (an error with a PNG); default kDefaultJpegQuality
};

// Exit codes of the program.
enum ExitCode { kOk = 0, kFailed = 1, kBadInput = 2 };

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

// A deterministic test picture that shows blur and edges well: a zone plate, gradients, a
// checkerboard and thin lines.
HostImage demoPattern(int width, int height);
// Writes the test picture and a few filtered versions of it into `dir`.
int runDemo(const std::string& dir, std::ostream& log, std::ostream& err);

// Runs the command; messages go to `err` (one line for bad input), a summary to `log`.
int runStill(const StillOptions& o, std::ostream& log, std::ostream& err);
// Prints the variant table with limits, the masks each takes, tiles and whether each runs on this
// machine, its lines wrapped to `width` characters (0: not wrapped).
void listVariants(std::ostream& out, int width = 0);

}  // namespace convlive
