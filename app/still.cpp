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
  if (out.empty())
    throw std::invalid_argument(std::string("--output is missing: name the picture to write (") +
                                acceptedPictureExtensions() + ")");
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

// An 8-bit picture with alpha and a pixel that is not opaque.
bool hasTransparency(const Picture& picture) {
  if (picture.desc.type != PixelType::U8 || picture.desc.channels != 4 || !picture.desc.alpha) return false;
  const auto& px = picture.bytes;
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

namespace {

struct PlanRun {
  const Variant* variant;
  double ms;
  Tile tile;
};

// Filters `in` into `out` (host memory, as `desc` and outputDesc(desc, outType) say) through a plan
// for `variant`.
PlanRun runPlan(const ImageDesc& desc, const void* in, void* out, const FilterParams& asked, const std::string& variant,
                std::ostream& log, bool sayAuto, std::optional<PixelType> outType = std::nullopt) {
  // A named GPU variant is refused without a device (the user asked for it); auto runs on the CPU.
  Plan plan = Plan::make(asked, variant, desc, {.memory = Memory::Host, .cpuFallback = false, .outType = outType});
  if (variant == "auto" && sayAuto) {
    if (deviceInfo().available)
      log << "auto " << plan.autoWhy() << "\n";
    else
      log << "note: " << deviceInfo().reason << "; running on the CPU\n";
  }
  const auto t0 = std::chrono::steady_clock::now();
  plan.run(in, out);
  return {&plan.variant(), std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
          plan.tile()};
}

void describe(std::ostream& log, const std::string& what, const FilterParams& p, const Variant& v, Tile tile,
              double ms) {
  log << what << ": " << p.filter.name << " r=" << p.filter.mask.radius() << " border=" << borderName(p.border)
      << " variant=" << v.name << (v.tiles.empty() ? "" : " tile=" + tile.str()) << " in " << std::fixed
      << std::setprecision(1) << ms << " ms (including transfers)\n";
}

}  // namespace

FilteredImage filterImage(const HostImage& in, const FilterParams& asked, const std::string& variant, std::ostream& log,
                          bool sayAuto) {
  HostImage out(in.width(), in.height());
  const PlanRun r = runPlan(ImageDesc::rgba8(in.width(), in.height()), in.pixels().data(), out.pixels().data(), asked,
                            variant, log, sayAuto);
  return {std::move(out), r.variant, r.ms, r.tile};
}

FilteredPicture filterPicture(const Picture& in, const FilterParams& asked, const std::string& variant,
                              std::ostream& log, bool sayAuto, std::optional<PixelType> outType) {
  const PixelType type = outType.value_or(in.desc.type);
  Picture out = Picture::make(in.desc.width, in.desc.height, type, in.desc.channels);
  out.desc = outputDesc(in.desc, type);
  out.bytes.resize(out.desc.span());
  const PlanRun r = runPlan(in.desc, in.bytes.data(), out.bytes.data(), asked, variant, log, sayAuto, outType);
  return {std::move(out), r.variant, r.ms, r.tile};
}

void describeFiltered(std::ostream& log, const std::string& what, const FilterParams& p, const FilteredImage& r) {
  describe(log, what, p, *r.variant, r.tile, r.ms);
}

void describeFiltered(std::ostream& log, const std::string& what, const FilterParams& p, const FilteredPicture& r) {
  describe(log, what, p, *r.variant, r.tile, r.ms);
}

int runStill(const StillOptions& o, std::ostream& log, std::ostream& err) {
  return guarded(err, [&] {
    if (o.input.empty()) throw std::invalid_argument("--image is missing: name the picture to filter");
    const PictureFormat format = checkOutputPath(o.output);
    if (o.jpegQuality && format != PictureFormat::Jpeg)
      throw std::invalid_argument("--quality is for JPEG output, and '" + o.output + "' is " +
                                  (format == PictureFormat::Png ? "a PNG" : "a .npy") +
                                  " (lossless): leave --quality out, or name a .jpg");
    const int quality = o.jpegQuality.value_or(kDefaultJpegQuality);
    if (quality < 1 || quality > 100)
      throw std::invalid_argument("--quality " + std::to_string(quality) + " is out of range: use 1..100");
    const FilterParams p = o.spec.params();
    if (o.maxPixels == 0)
      throw std::invalid_argument("--max-pixels 0 allows no picture: give a count of pixels, such as " +
                                  std::to_string(kDefaultMaxPixels) + " (the default)");
    const DecodedPicture decoded = readPicture(o.input, {.maxPixels = o.maxPixels});
    for (const std::string& w : decoded.warnings) err << "convlive: warning: " << w << "\n";
    const Picture& in = decoded.picture;
    std::optional<PixelType> outType;
    if (o.floatOutput) {
      if (in.desc.type != PixelType::U8)
        throw std::invalid_argument("--float writes f32 values from an 8-bit picture, and '" + o.input + "' is " +
                                    in.desc.str() + ": it is filtered in its own type; leave --float out");
      outType = PixelType::F32;
      if (format != PictureFormat::Npy && format != PictureFormat::Tiff)
        throw std::invalid_argument("--output '" + o.output + "': --float writes f32 values, which " +
                                    (format == PictureFormat::Png ? "a PNG" : "a JPEG") +
                                    " cannot hold: name a .npy or .tif, or leave --float out");
    }
    // A picture the output's format cannot hold is refused before any filtering.
    const Picture shape = Picture::make(1, 1, outType.value_or(in.desc.type), in.desc.channels);
    if (const std::string why = whyFormatCannotHold(format, shape); !why.empty())
      throw std::invalid_argument("--output '" + o.output + "': '" + o.input + "' is " + in.desc.str() + ", and " +
                                  why);
    const FilteredPicture r = filterPicture(in, p, o.spec.variant, log, true, outType);
    if (format == PictureFormat::Jpeg && hasTransparency(r.picture))
      err << "convlive: warning: JPEG has no alpha channel: the picture's transparency is dropped in '" << o.output
          << "' (write a .png to keep it)\n";
    {
      const SignalsHeld held;
      writePicture(o.output, r.picture, format, {.jpegQuality = quality});
    }
    describeFiltered(log, o.input + " (" + in.desc.str() + ") -> " + o.output + (outType ? " (f32)" : ""), p, r);
  });
}

}  // namespace convlive
