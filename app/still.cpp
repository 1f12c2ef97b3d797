#include "still.hpp"

#include <pthread.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "convlive/plan.hpp"
#include "convlive/resources.hpp"
#include "convlive/variants.hpp"
#include "guarded.hpp"
#include "image_io.hpp"

namespace convlive {
namespace {

// The output's format, from its extension; checked before any work.
PictureFormat checkOutputPath(const std::string& out) {
  namespace fs = std::filesystem;
  if (out.empty()) throw std::invalid_argument("--output is missing: name the picture to write (.png or .jpg)");
  const fs::path p(out);
  const auto format = pictureFormatFor(out);
  if (!format) {
    const std::string ext = p.extension().string();
    throw std::invalid_argument("--output '" + out + "': " +
                                (ext.empty() ? std::string("no extension") : "'" + ext + "' is not a picture format") +
                                ": end it in " + acceptedPictureExtensions() + " (the format follows the extension)");
  }
  const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw std::invalid_argument("--output '" + out + "': folder '" + dir.string() + "' does not exist");
  return *format;
}

bool hasTransparency(const HostImage& img) {
  const auto& px = img.pixels();
  for (std::size_t i = 3; i < px.size(); i += 4)
    if (px[i] != 255) return true;
  return false;
}

// Holds back Ctrl-C and termination while it lives (the output's write and rename: a few
// milliseconds), so that a signal leaves either no output or a whole one, and no temporary file.
class SignalsHeld {
 public:
  SignalsHeld() {
    sigset_t held;
    sigemptyset(&held);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&held, s);
    pthread_sigmask(SIG_BLOCK, &held, &old_);
  }
  ~SignalsHeld() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;

 private:
  sigset_t old_{};
};

}  // namespace

FilteredImage filterImage(const HostImage& in, const FilterParams& asked, const std::string& variant, std::ostream& log,
                          bool sayAuto) {
  // A named GPU variant is refused without a device (the user asked for it); auto runs on the CPU.
  Plan plan = Plan::make(asked, variant, ImageDesc::rgba8(in.width(), in.height()),
                         {.memory = Memory::Host, .cpuFallback = false});
  if (variant == "auto" && sayAuto) {
    if (deviceInfo().available)
      log << "auto " << plan.autoWhy() << "\n";
    else
      log << "note: " << deviceInfo().reason << "; running on the CPU\n";
  }
  FilteredImage r{HostImage(in.width(), in.height()), &plan.variant(), 0.0, plan.tile()};
  const auto t0 = std::chrono::steady_clock::now();
  plan.run(in.view(), r.image.view());
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

namespace {

void describe(std::ostream& log, const std::string& what, const FilterParams& p, const FilteredImage& r) {
  log << what << ": " << p.filter.name << " r=" << p.filter.mask.radius() << " border=" << borderName(p.border)
      << " variant=" << r.variant->name << (r.variant->tiles.empty() ? "" : " tile=" + r.tile.str()) << " in "
      << std::fixed << std::setprecision(1) << r.ms << " ms (including transfers)\n";
}

}  // namespace

int runStill(const StillOptions& o, std::ostream& log, std::ostream& err) {
  return guarded(err, [&] {
    if (o.input.empty()) throw std::invalid_argument("--image is missing: name the picture to filter");
    const PictureFormat format = checkOutputPath(o.output);
    if (o.jpegQuality && format != PictureFormat::Jpeg)
      throw std::invalid_argument("--quality is for JPEG output, and '" + o.output +
                                  "' is a PNG (lossless): leave --quality out, or name a .jpg");
    const int quality = o.jpegQuality.value_or(kDefaultJpegQuality);
    if (quality < 1 || quality > 100)
      throw std::invalid_argument("--quality " + std::to_string(quality) + " is out of range: use 1..100");
    const FilterParams p = o.spec.params();
    const DecodedPicture picture = readPicture(o.input);
    for (const std::string& w : picture.warnings) err << "convlive: warning: " << w << "\n";
    const HostImage& in = picture.image;
    const FilteredImage r = filterImage(in, p, o.spec.variant, log);
    if (format == PictureFormat::Jpeg && hasTransparency(r.image))
      err << "convlive: warning: JPEG has no alpha channel: the picture's transparency is dropped in '" << o.output
          << "' (write a .png to keep it)\n";
    {
      const SignalsHeld held;
      writePicture(o.output, r.image, format, {.jpegQuality = quality});
    }
    describe(log, o.input + " (" + std::to_string(in.width()) + "x" + std::to_string(in.height()) + ") -> " + o.output,
             p, r);
  });
}

HostImage demoPattern(int width, int height) {
  HostImage img(width, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      std::uint8_t* p = img.view().row(y) + 4 * x;
      const double u = double(x) / width, v = double(y) / height;
      const double dx = x - width * 0.3, dy = y - height * 0.5, ring = std::sqrt(dx * dx + dy * dy);
      const bool checker = x > width * 0.6 && ((x / 16 + y / 16) % 2 == 0);
      const bool lines = x > width * 0.6 && y > height * 0.55 && (x % 7 == 0 || y % 11 == 0);
      const double rings = 127.5 * (1 + std::sin(ring * ring / 900.0));  // a zone plate: rising frequency
      p[0] = static_cast<std::uint8_t>(checker ? 230 : x < width * 0.6 ? rings : 255 * u);
      p[1] = static_cast<std::uint8_t>(lines ? 20 : x < width * 0.6 ? rings * 0.8 : 255 * v);
      p[2] = static_cast<std::uint8_t>(checker ? 40 : x < width * 0.6 ? 255 - rings : 128);
      p[3] = 255;
    }
  return img;
}

int runDemo(const std::string& dir, std::ostream& log, std::ostream& err) {
  return guarded(err, [&] {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec) && !fs::create_directories(dir, ec))
      throw std::invalid_argument("demo: cannot make the folder '" + dir + "' (" + ec.message() + ")");
    const HostImage in = demoPattern(1280, 720);
    writePng(dir + "/input.png", in);
    log << "demo: wrote " << dir << "/input.png (1280x720 test pattern)\n";
    const std::pair<const char*, FilterSpec> filters[] = {
        {"gaussian", {.radius = 5}}, {"sharpen", {.radius = 2}}, {"sobel", {.radius = 1}}, {"pitch", {.pitch = 3.4f}}};
    bool first = true;
    for (const auto& [kind, options] : filters) {
      FilterParams p;
      p.filter = makeFilter(kind, options);
      // auto's choice for each mask on a GPU; without one, that the CPU runs, once.
      const FilteredImage r = filterImage(in, p, "auto", log, first || deviceInfo().available);
      first = false;
      const std::string out = dir + "/" + kind + ".png";
      writePng(out, r.image);
      describe(log, "demo: wrote " + out, p, r);
    }
  });
}

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
}  // namespace

void listVariants(std::ostream& out, int width) {
  const DeviceInfo& dev = deviceInfo();
  out << "device: " << (dev.available ? dev.name : dev.reason) << "\n\n";
  // The tiles wrap within their column, the descriptions within what is left of `width`; the other
  // columns are as wide as their longest entry.
  constexpr int kTilesWidth = 28;
  std::size_t nameWidth = std::string_view("variant").size();
  std::size_t takesWidth = std::string_view("masks").size();
  for (const Variant& v : variants()) {
    nameWidth = std::max(nameWidth, v.name.size());
    takesWidth = std::max(takesWidth, std::string_view(maskTakesName(v.takes)).size());
  }
  const int descriptionAt = int(nameWidth + 2 + 7 + takesWidth + 2) + kTilesWidth + 2;
  const int descriptionWidth = width > 0 ? std::max(30, width - descriptionAt) : 0;
  const auto row = [&](std::string_view name, std::string_view radius, std::string_view takes, std::string_view tiles,
                       std::string_view description) {
    std::ostringstream line;
    line << std::left << std::setw(int(nameWidth + 2)) << name << std::setw(7) << radius
         << std::setw(int(takesWidth + 2)) << takes << std::setw(kTilesWidth + 2) << tiles << description;
    const std::string text = line.str();
    out << text.substr(0, text.find_last_not_of(' ') + 1) << "\n";
  };
  row("variant", "max r", "masks", "tiles (default first)", "description");
  for (const Variant& v : variants()) {
    std::string tileList;
    for (const Tile& t : v.tiles) {
      if (!tileList.empty()) tileList += ' ';
      tileList += t.str();
    }
    const std::vector<std::string> tiles = wrapped(tileList.empty() ? "-" : tileList, kTilesWidth);
    const std::vector<std::string> description =
        wrapped(v.description + (v.onGpu && !dev.available ? " [unavailable: no CUDA device]" : ""), descriptionWidth);
    for (std::size_t i = 0; i < std::max(tiles.size(), description.size()); ++i)
      row(i ? "" : v.name, i ? "" : std::to_string(v.maxRadius), i ? "" : maskTakesName(v.takes),
          i < tiles.size() ? tiles[i] : "", i < description.size() ? description[i] : "");
  }
  out << "\n";
  for (const std::string& line :
       wrapped("masks: a separable variant needs a separable mask (box, gaussian, sobel, scharr, pitch, or a rank-one "
               "custom mask); a \"one\" variant runs one mask, so not sobel's or scharr's gradient magnitude (two "
               "masks). Each refuses the masks it does not take and names a variant that takes them.",
               width))
    out << line << "\n";
}

}  // namespace convlive
