#include "list_variants.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "convlive/resources.hpp"
#include "convlive/variants.hpp"

namespace convlive {
namespace {

// `text` in lines of at most `width` characters, broken at spaces (a longer word keeps its own
// line); width <= 0: one line.
std::vector<std::string> wrapped(const std::string& text, int width) {
  if (width <= 0) return {text};
  std::vector<std::string> lines{""};
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    if (!lines.back().empty() && int(lines.back().size() + 1 + word.size()) > width) lines.emplace_back();
    if (!lines.back().empty()) lines.back() += ' ';
    lines.back() += word;
  }
  return lines;
}

// The frames column: what a variant takes, and "+f32" where it also writes f32 from u8 frames.
std::string framesOf(const Variant& v) { return v.imagesTaken() + (v.floatOutput ? " +f32" : ""); }

// The masks column: what a variant takes, and ", 5x5" where it also takes masks of any rank up to
// that size.
std::string masksOf(const Variant& v) {
  const std::string side = std::to_string(2 * v.anyRankRadius + 1);
  return maskTakesName(v.takes) + (v.anyRankRadius > 0 ? ", " + side + "x" + side : std::string());
}

}  // namespace

void listVariants(std::ostream& out, int width) {
  const DeviceInfo& dev = deviceInfo();
  out << "device: " << (dev.available ? dev.name : dev.reason) << "\n\n";
  // The tiles wrap within their column, the descriptions within what is left of `width`; the other
  // columns are as wide as their longest entry.
  // The frames wrap at their spaces past kFramesWidth ("u8x1,3,4 u16x1,4 f16x1,4 f32x1": four lines).
  constexpr int kTilesWidth = 27, kFramesWidth = 12;
  std::size_t nameWidth = std::string_view("variant").size();
  std::size_t takesWidth = std::string_view("masks").size();
  std::size_t framesWidth = std::string_view("frames").size();  // "frames", "u8x4", "all", "u8x1,3,4", ...
  for (const Variant& v : variants()) {
    nameWidth = std::max(nameWidth, v.name.size());
    takesWidth = std::max(takesWidth, masksOf(v).size());
    for (const std::string& line : wrapped(framesOf(v), kFramesWidth)) framesWidth = std::max(framesWidth, line.size());
  }
  const int framesColumn = int(framesWidth);
  const int descriptionAt = int(nameWidth + 2 + 7 + takesWidth + 2) + framesColumn + 2 + kTilesWidth + 2;
  const int descriptionWidth = width > 0 ? std::max(24, width - descriptionAt) : 0;
  const auto row = [&](std::string_view name, std::string_view radius, std::string_view takes, std::string_view frames,
                       std::string_view tiles, std::string_view description) {
    std::ostringstream line;
    line << std::left << std::setw(int(nameWidth + 2)) << name << std::setw(7) << radius
         << std::setw(int(takesWidth + 2)) << takes << std::setw(framesColumn + 2) << frames
         << std::setw(kTilesWidth + 2) << tiles << description;
    const std::string text = line.str();
    out << text.substr(0, text.find_last_not_of(' ') + 1) << "\n";
  };
  row("variant", "max r", "masks", "frames", "tiles (default first)", "description");
  for (const Variant& v : variants()) {
    std::string tileList;
    for (const Tile& t : v.tiles) {
      if (!tileList.empty()) tileList += ' ';
      tileList += t.str();
    }
    const std::vector<std::string> tiles = wrapped(tileList.empty() ? "-" : tileList, kTilesWidth);
    const std::vector<std::string> frames = wrapped(framesOf(v), kFramesWidth);
    const std::vector<std::string> description =
        wrapped(v.description + (v.onGpu && !dev.available ? " [unavailable: no CUDA device]" : ""), descriptionWidth);
    for (std::size_t i = 0; i < std::max({tiles.size(), description.size(), frames.size()}); ++i)
      row(i ? "" : v.name, i ? "" : std::to_string(v.maxRadius), i ? "" : masksOf(v),
          i < frames.size() ? frames[i] : "", i < tiles.size() ? tiles[i] : "",
          i < description.size() ? description[i] : "");
  }
  out << "\n";
  for (const std::string& line : wrapped(
           "masks: a separable variant needs a separable mask (box, gaussian, sobel, scharr, pitch, or a rank-one "
           "custom mask); a \"one\" variant runs one mask, so not sobel's or scharr's gradient magnitude (two "
           "masks; stream runs those of 3x3 and 5x5 masks); a \"low rank\" one takes separable masks, sums of up to 4 "
           "separable terms (sharpen, emboss, "
           "laplacian) and the gradient magnitude of a separable mask; \", 5x5\": also masks of any rank up to "
           "that size (3x3 and 5x5; single RGBA8 frames). Each refuses the masks it does not take and "
           "names a variant that takes them. frames: u8x4 "
           "variants filter 8-bit RGBA frames, one a run; \"all\" ones take u8, u16, f16 and f32 values in 1, 3 or "
           "4 channels, and a batch of frames in one run; \"u8x1,3,4\" ones take 8-bit values in 1, 3 or 4 "
           "channels (1 and 3: "
           "a batch in one run; 4: RGBA8, one frame a run), and \"u16x1\" 16-bit grey ones (a batch in one run); "
           "\"u8,u16,f32\" ones those values in 1, 3 or 4 "
           "channels and a batch in one run; \"+f32\": also writes f32 values from u8 frames (the filtered sums "
           "unrounded: image --float, Python's dtype=\"float32\", PlanOptions::outType).",
           width))
    out << line << "\n";
}

}  // namespace convlive
