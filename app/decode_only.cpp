#include <chrono>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>

#include "convlive/atomic_file.hpp"
#include "convlive/resources.hpp"
#include "interrupt.hpp"
#include "run_report.hpp"
#include "video.hpp"

namespace convlive {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

}  // namespace

int runDecodeOnly(const VideoOptions& v, const PipelineConfig& c, std::ostream& log) {
  SourceOptions so;
  so.maxQueued = c.slots;
  so.poolBuffers = sourcePoolBuffers(c.slots);  // the source as the pipeline would run it
  so.sync = c.sync;                             // --realtime: the paced rate a player would get
  // The frames the pipeline would take: NV12/I420 as decoded where it converts them itself.
  so.acceptYuv = c.inputFormat == InputFormat::Yuv || (c.inputFormat == InputFormat::Auto && deviceInfo().available);
  so.acceptGrey = c.inputFormat != InputFormat::Rgba;  // and grey frames as they come
  so.decoder = c.decoder;
  InterruptGuard interrupt;
  Source src(c.source, so);
  const long limit = v.frames > 0 ? v.frames : (v.seconds > 0 ? -1 : 300);
  const auto t0 = Clock::now();
  std::uint64_t n = 0;
  SteadyRate steady;
  int w = 0, h = 0;
  while (!interrupt.interrupted() && (limit < 0 || long(n) < limit) &&
         (v.seconds <= 0 || std::chrono::duration<double>(Clock::now() - t0).count() < v.seconds)) {
    SourceFrame f;
    const Source::Pull r = src.pull(f, 1000ms);
    if (r == Source::Pull::EndOfStream) break;
    if (r == Source::Pull::Frame) {
      ++n;
      steady.tick(Clock::now());
      w = f.pixels.width;
      h = f.pixels.height;
    }
  }
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  const double fps = wall > 0 ? double(n) / wall : 0;
  log << "source: " << src.info().description << " (native " << src.info().nativeFormat << ")";
  if (!src.info().decoder.empty())
    log << ", decoder " << src.info().decoder << (src.info().framesOnDevice ? " (frames in GPU memory)" : "");
  log << "\n";
  if (!src.info().depthNote.empty()) log << "note: " << src.info().depthNote << "\n";
  log << "decode only: " << n << " frames of " << w << "x" << h << " in " << decimals(wall, 2)
      << " s: " << decimals(fps, 1) << " fps";
  if (steady.fps() > 0) log << "; " << decimals(steady.fps(), 1) << " after the first " << steady.warmup() << " frames";
  log << "\n";
  if (!v.report.empty()) {
    nlohmann::json r = {{"date", nowIso()},
                        {"decode_only", true},
                        {"source",
                         {{"description", src.info().description},
                          {"native_format", src.info().nativeFormat},
                          {"decoder", src.info().decoder},
                          {"frames_on_device", src.info().framesOnDevice}}},
                        {"frames", n},
                        {"width", w},
                        {"height", h},
                        {"wall_s", wall},
                        {"fps", fps},
                        {"fps_steady", steady.fps()},
                        {"warmup_frames", steady.warmup()}};
    if (!writeFileAtomically(v.report, r.dump(2) + "\n"))
      throw std::runtime_error("cannot write the report " + v.report + ": check the folder is writable and has space");
  }
  return interrupt.interrupted() ? interrupt.exitCode() : kOk;
}

}  // namespace convlive
