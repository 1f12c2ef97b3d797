#include "video.hpp"

#include <cmath>
#include <ostream>
#include <stdexcept>

#include "guarded.hpp"

namespace convlive {
namespace {

// The source the options name: one of input, launch and camera, else the test pattern.
SourceSpec sourceFrom(const VideoOptions& v) {
  const int chosen = !v.input.empty() + !v.launch.empty() + v.useCamera;
  if (chosen > 1)
    throw std::invalid_argument("give one source: --input, --launch or --camera (or none: the test pattern)");
  if (!v.input.empty()) return SourceSpec::input(v.input);
  if (!v.launch.empty()) return SourceSpec::launch(v.launch);
  if (v.useCamera) return SourceSpec::camera(v.camera);
  const auto size = Tile::parse(v.size);
  if (!size) throw std::invalid_argument("--size '" + v.size + "' is not WxH (for example 1920x1080)");
  SourceSpec s = SourceSpec::testPattern(v.pattern, size->w, size->h, v.fps);
  return s;
}

// --input-format's value; `whenEmpty` when it was not given (run and export: auto; the viewer: rgba).
InputFormat inputFormatOf(const std::string& name, InputFormat whenEmpty) {
  if (name.empty()) return whenEmpty;
  if (name == "auto") return InputFormat::Auto;
  if (name == "rgba") return InputFormat::Rgba;
  if (name == "yuv") return InputFormat::Yuv;
  throw std::invalid_argument("--input-format '" + name + "': use auto, rgba or yuv");
}

Decoder decoderOf(const std::string& name) {
  if (name.empty() || name == "auto") return Decoder::Auto;
  if (name == "nvdec") return Decoder::Nvdec;
  if (name == "cpu") return Decoder::Cpu;
  throw std::invalid_argument("--decoder '" + name + "': use auto, nvdec or cpu");
}

}  // namespace

PipelineConfig configFrom(const VideoOptions& v, const FilterSpec& filter) {
  if (v.frames == 0 || v.frames < -1) throw std::invalid_argument("--frames must be 1 or more");
  if (!(v.seconds == -1 || (std::isfinite(v.seconds) && v.seconds > 0)))
    throw std::invalid_argument("--seconds must be a number above 0");
  PipelineConfig c;
  c.source = sourceFrom(v);
  c.variant = filter.variant;
  c.params = filter.params();
  c.slots = v.slots;
  c.pinned = !v.pageable;
  c.registerSourceMemory = !v.copyToPinned;
  c.overlap = !v.noOverlap;
  c.sync = v.realtime;
  c.loop = v.loop;
  c.inputFormat = inputFormatOf(v.inputFormat, InputFormat::Auto);
  c.decoder = decoderOf(v.decoder);
  return c;
}

int listCamerasCommand(std::ostream& out, std::ostream& err) {
  return guarded(err, [&]() -> int {
    const auto cams = listCameras();
    if (cams.empty()) out << "no camera found (no V4L2 device /dev/video*): plug one in, or use --pattern or --input\n";
    for (const CameraInfo& c : cams) out << c.device << "  " << c.name << "\n";
    return kOk;
  });
}

int listPatternsCommand(std::ostream& out, std::ostream& err) {
  return guarded(err, [&]() -> int {
    for (const std::string& p : testPatterns())
      out << p << (p == "moving" ? "  (default: an animated zone plate)" : "") << "\n";
    return kOk;
  });
}

}  // namespace convlive
