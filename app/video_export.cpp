#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "convlive/export.hpp"
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

int runExport(const VideoOptions& v, const FilterSpec& filter, const EncoderRequest& request, bool keepAudio,
              std::ostream& log, std::ostream& err) {
  return guarded(err, [&]() -> int {
    const ExportFormat format = checkExportPath(v.output);
    const EncoderSettings encoder = encoderSettingsFor(format, request);
    PipelineConfig c = configFrom(v, filter);
    if (c.loop && v.frames < 0 && v.seconds < 0)
      throw std::invalid_argument("--loop would never end an export: give --frames or --seconds too");
    c.sync = false;  // an export runs as fast as it can, and drops nothing
    // The input's audio, decided before any work: copied, re-encoded, or refused naming --no-audio.
    ExportSettings settings;
    settings.encoder = encoder;
    std::string audioWords = "none (--no-audio)";
    if (keepAudio) {
      AudioPlan audio = planExportAudio(format, c.source);
      audioWords = audio.action != AudioPlan::Action::None      ? audio.describe()
                   : c.source.kind == SourceSpec::Kind::Pattern ? "none"
                   : localFileOf(c.source).empty()              ? "none (only a local file's audio is exported)"
                                                                : "none (the input has none)";
      if (audio.action != AudioPlan::Action::None && c.loop) {
        log << "note: --loop: the input's audio (" << audio.codec
            << ") is left out, as it would not loop with the frames (--no-audio says so without this note)\n";
        audioWords = "none (--loop)";
        audio = {};
      } else if (audio.streams > 1) {
        log << "note: the input has " << audio.streams << " audio streams: the first (" << audio.codec
            << ") is exported\n";
      }
      settings.audio = std::move(audio);
    }
    // The rate must be known before the first frame is encoded: open the source through a probe.
    InterruptGuard interrupt;
    settings.interrupted = [&interrupt] { return interrupt.interrupted(); };
    // Declared before the pipeline, so frames still in flight when it goes have somewhere to go.
    std::optional<FileExporter> file;
    struct Forward : FrameSink {
      std::optional<FileExporter>* to;
      explicit Forward(std::optional<FileExporter>* t) : to(t) {}
      bool wantsHostFrames() const override { return true; }
      bool acceptsYuvFrames() const override { return true; }
      ColourSpec yuvFramesColour(ColourSpec source, int w, int h) const override {
        return (*to)->yuvFramesColour(source, w, h);
      }
      void deliver(const OutputFrame& frame) override { (*to)->deliver(frame); }
    } forward(&file);
    Pipeline p(c, forward);
    const SourceInfo si = p.sourceInfo();
    if (si.durationSeconds <= 0 && v.frames < 0 && v.seconds < 0 && c.source.kind != SourceSpec::Kind::File)
      throw std::invalid_argument(si.description + " does not end by itself: give --frames or --seconds");
    FileExporter& exporter = file.emplace(v.output, si.fps, std::move(settings));
    log << "export: " << si.description << " -> " << v.output << " (" << format.describe() << ", "
        << decimals(si.fps > 0 ? si.fps : 30, 2) << " fps)\n";
    log << "export: " << format.encoder << " " << encoder.describe() << "; audio: " << audioWords << "\n";
    log << settingsLine(p, c) << "\n";

    const bool tty = ::isatty(::fileno(stderr));
    const auto t0 = Clock::now();
    StreamLimit limit(v.seconds);
    auto lastPrint = t0;
    auto progress = [&](bool final) {
      const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
      const double done = double(exporter.frames());
      double fraction = -1;
      if (v.frames > 0)
        fraction = done / double(v.frames);
      else if (si.durationSeconds > 0)
        fraction = std::min(1.0, p.positionSeconds() / si.durationSeconds);
      else if (v.seconds > 0)
        fraction = std::min(1.0, limit.elapsed() / v.seconds);
      std::ostringstream line;
      line << "export: " << exporter.frames() << " frames";
      if (final && fraction >= 0) fraction = 1;
      if (fraction >= 0) line << ", " << decimals(100 * fraction, 1) << "%";
      line << ", " << decimals(elapsed > 0 ? done / elapsed : 0, 1) << " fps";
      if (fraction > 0.001 && !final) line << ", ETA " << decimals(elapsed * (1 - fraction) / fraction, 1) << " s";
      if (tty)
        err << "\r" << line.str() << "   " << (final ? "\n" : "") << std::flush;
      else
        err << line.str() << "\n";
    };
    // A signal ends the export wherever it is waiting (between frames, on the encoder, at the end).
    auto stopInterrupted = [&] {
      exporter.abort();
      if (tty) err << "\n";
      err << "convlive: interrupted: " << v.output << " was not written\n";
      return interrupt.exitCode();
    };
    std::string failure;
    for (;;) {
      if (interrupt.interrupted()) return stopInterrupted();
      if (v.frames > 0 && p.framesIn() >= std::uint64_t(v.frames)) break;
      if (limit.reached()) break;
      StepResult r;
      try {
        r = p.step(1000ms);
      } catch (const ExportError& e) {
        failure = e.what();
        break;
      }
      if (r == StepResult::Frame) limit.frameTaken(p.positionSeconds(), si.fps);
      for (const std::string& note : exporter.takeNotes()) err << (tty ? "\r" : "") << "note: " << note << "\n";
      if (r == StepResult::EndOfStream) break;
      if (r == StepResult::Error) {
        failure = p.lastError();
        break;
      }
      if (Clock::now() - lastPrint > (tty ? 250ms : 1000ms)) {
        progress(false);
        lastPrint = Clock::now();
      }
    }
    if (failure.empty()) {
      try {
        p.drain();
      } catch (const ExportError& e) {
        failure = e.what();
      }
    }
    for (const std::string& note : exporter.takeNotes()) err << (tty ? "\r" : "") << "note: " << note << "\n";
    if (interrupt.interrupted()) return stopInterrupted();
    if (!failure.empty()) {
      exporter.abort();
      if (tty) err << "\n";
      err << "convlive: " << failure << "; " << v.output << " was not written\n";
      return kFailed;
    }
    try {
      exporter.finish();
    } catch (const ExportError&) {
      if (interrupt.interrupted()) return stopInterrupted();
      throw;
    }
    progress(true);
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    log << "export: wrote " << v.output << ": " << exporter.frames() << " frames in " << decimals(wall, 2) << " s\n";
    return kOk;
  });
}

int runExport(const VideoOptions& v, const FilterSpec& filter, std::ostream& log, std::ostream& err) {
  return runExport(v, filter, EncoderRequest{}, true, log, err);
}

}  // namespace convlive
