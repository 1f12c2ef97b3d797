#include "still.hpp"

#include <pthread.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <iomanip>
#include <ostream>
#include <stdexcept>

#include "convlive/plan.hpp"
#include "convlive/resources.hpp"
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

void describeFiltered(std::ostream& log, const std::string& what, const FilterParams& p, const FilteredImage& r) {
  log << what << ": " << p.filter.name << " r=" << p.filter.mask.radius() << " border=" << borderName(p.border)
      << " variant=" << r.variant->name << (r.variant->tiles.empty() ? "" : " tile=" + r.tile.str()) << " in "
      << std::fixed << std::setprecision(1) << r.ms << " ms (including transfers)\n";
}

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
    describeFiltered(
        log, o.input + " (" + std::to_string(in.width()) + "x" + std::to_string(in.height()) + ") -> " + o.output, p,
        r);
  });
}

}  // namespace convlive
