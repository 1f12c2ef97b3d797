#include <chrono>
#include <ostream>

#include "convlive/resources.hpp"
#include "guarded.hpp"
#include "interrupt.hpp"
#include "run_report.hpp"
#include "stream_limit.hpp"
#include "video.hpp"

namespace convlive {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

}  // namespace

int runHeadless(const VideoOptions& v, const FilterSpec& filter, std::ostream& log, std::ostream& err) {
  return guarded(err, [&]() -> int {
    PipelineConfig c = configFrom(v, filter);
    checkReportPath(v.report);
    if (v.decodeOnly) return runDecodeOnly(v, c, log);
    // The download sink costs what an export's readback costs, without the encoder: I420 from YUV
    // sources, as an export takes it.
    struct DownloadSink : FrameSink {
      bool wantsHostFrames() const override { return true; }
      bool acceptsYuvFrames() const override { return true; }
    } download;
    NullSink null;
    FrameSink& sink = v.sink == "download" ? static_cast<FrameSink&>(download) : null;
    InterruptGuard interrupt;
    Pipeline p(c, sink);
    if (!deviceInfo().available)
      log << "note: " << deviceInfo().reason << "; running the " << p.variantName() << " variant in pageable memory\n";
    const bool endless = p.sourceInfo().durationSeconds <= 0 && c.source.kind != SourceSpec::Kind::File;
    long frames = v.frames;
    if (frames < 0 && v.seconds < 0 && (endless || c.loop)) {
      frames = 300;
      log << "note: the source does not end by itself: stopping after 300 frames (set --frames or --seconds)\n";
    }
    const auto t0 = Clock::now();
    StreamLimit limit(v.seconds);
    const double fps = p.sourceInfo().fps;
    std::string ended = "end of stream";
    int code = kOk;
    for (;;) {
      if (interrupt.interrupted()) {
        ended = "interrupted";
        code = interrupt.exitCode();
        break;
      }
      if (frames >= 0 && p.framesIn() >= std::uint64_t(frames)) {
        ended = "frame limit";
        break;
      }
      if (limit.reached()) {
        ended = "time limit";
        break;
      }
      const StepResult r = p.step(100ms);
      if (r == StepResult::Frame) limit.frameTaken(p.positionSeconds(), fps);
      if (r == StepResult::EndOfStream) break;
      if (r == StepResult::Error) {
        ended = "error";
        code = kFailed;
        break;
      }
    }
    p.drain();
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    printSummary(log, p, c, wall);
    if (!v.report.empty()) {
      writeReport(v.report, p, c, filter, wall, ended, v.sink);
      log << "report: " << v.report << "\n";
    }
    if (code == kFailed) err << "convlive: " << p.lastError() << "\n";
    if (ended == "interrupted") err << "convlive: interrupted after " << p.timings().frames << " frames\n";
    return code;
  });
}

}  // namespace convlive
