#include "video.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>

#include "convlive/atomic_file.hpp"
#include "convlive/export.hpp"
#include "convlive/pipeline.hpp"
#include "convlive/resources.hpp"
#include "guarded.hpp"
#include "run_report.hpp"

namespace convlive {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

std::atomic<bool> gInterrupted{false};
extern "C" void onInterrupt(int) { gInterrupted = true; }

}  // namespace

// Ctrl-C (and SIGTERM) stop the loop at a frame boundary instead of killing the process, so an
// export can remove its temporary file and a headless run can still report.
InterruptGuard::InterruptGuard() {
  gInterrupted = false;
  previousInt_ = std::signal(SIGINT, onInterrupt);
  previousTerm_ = std::signal(SIGTERM, onInterrupt);
}
InterruptGuard::~InterruptGuard() {
  std::signal(SIGINT, previousInt_);
  std::signal(SIGTERM, previousTerm_);
}
bool InterruptGuard::interrupted() const { return gInterrupted; }

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

// --seconds is a length of the stream: measured on the timestamps of the frames taken (from the
// first, across loops and seeks), so an export of a fast source holds that much video. A source
// without timestamps falls back to wall-clock time.
StreamLimit::StreamLimit(double seconds) : seconds_(seconds), start_(Clock::now()) {}

void StreamLimit::frameTaken(double position, double fps) {
  ++frames_;
  if (frames_ == 1) {
    first_ = last_ = position;
  } else if (position < last_) {  // a loop or a seek back: keep counting from where it was
    offset_ += last_ - position + (fps > 0 ? 1.0 / fps : 0.0);
  }
  if (position > first_) timestamps_ = true;
  last_ = position;
  fps_ = fps;
}

double StreamLimit::elapsed() const {
  if (!timestamps_) return std::chrono::duration<double>(Clock::now() - start_).count();
  return last_ - first_ + offset_;
}

bool StreamLimit::reached() const {
  if (seconds_ <= 0 || frames_ == 0) return false;
  if (!timestamps_) return frames_ >= 2 && elapsed() >= seconds_;  // no timestamps: wall-clock
  // The next frame would start at elapsed() + one frame: stop when it would be past the limit.
  const double frame = fps_ > 0 ? 1.0 / fps_ : 0.0;
  return elapsed() + frame >= seconds_ - 1e-6;
}

namespace {

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

namespace {

std::string fixed(double x, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << x;
  return s.str();
}

std::string nowIso() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string settingsLine(const Pipeline& p, const PipelineConfig& c) {
  const FilterParams fp = p.filterParams();
  const Variant* v = findVariant(p.variantName());
  std::ostringstream s;
  s << "filter: " << fp.filter.name << " r=" << fp.filter.mask.radius() << " border=" << borderName(fp.border)
    << " variant=" << p.variantName() << (v && !v->tiles.empty() ? " tile=" + v->tileFor(fp).str() : "")
    << (p.autoChoice().empty() ? "" : " (auto, " + p.autoChoice() + ")") << " | memory: " << p.memoryMode() << ", "
    << (deviceInfo().available ? c.slots : 1) << " slot(s), overlap "
    << (c.overlap && deviceInfo().available ? "on" : "off") << " | frames arrive as " << p.sourceInfo().frameFormat
    << " (--input-format " << inputFormatName(c.inputFormat) << ")";
  const SourceInfo si = p.sourceInfo();
  if (!si.decoder.empty())
    s << " | decoder: " << si.decoder << (si.framesOnDevice ? " (frames stay in GPU memory)" : "");
  if (!si.decoderNote.empty()) s << " (" << si.decoderNote << ")";
  return s.str();
}

}  // namespace

void printStageRows(std::ostream& log, std::span<const StageStats> stages) {
  for (const StageStats& s : stages)
    log << std::left << std::setw(18) << s.name() << std::right << std::setw(10) << fixed(s.last(), 3) << std::setw(10)
        << fixed(s.average(), 3) << std::setw(10) << fixed(s.peak(), 3) << "\n";
}

nlohmann::json stagesJson(std::span<const StageStats> stages) {
  nlohmann::json out = nlohmann::json::array();
  for (const StageStats& s : stages)
    out.push_back({{"name", s.name()},
                   {"last_ms", s.last()},
                   {"average_ms", s.average()},
                   {"peak_ms", s.peak()},
                   {"frames", s.count()}});
  return out;
}

void printSummary(std::ostream& log, const Pipeline& p, const PipelineConfig& c, double wallSeconds,
                  std::span<const StageStats> moreStages) {
  const SourceInfo si = p.sourceInfo();
  const Timings t = p.timings();
  log << "source: " << si.description << " (native " << si.nativeFormat << " " << si.nativeWidth << "x"
      << si.nativeHeight << (si.fps > 0 ? ", " + fixed(si.fps, 2) + " fps" : "") << (si.live ? ", live" : "") << ")\n";
  log << "device: " << (deviceInfo().available ? deviceInfo().name : deviceInfo().reason + " (the CPU variants run)")
      << "\n";
  log << settingsLine(p, c) << "\n";
  const double fps = wallSeconds > 0 ? double(t.frames) / wallSeconds : 0;
  if (t.deviceFrames > 0)
    log << "decoded into GPU memory (no upload): " << t.deviceFrames << " of " << t.frames << " frames\n";
  if (deviceInfo().available && c.pinned && t.deviceFrames < t.frames)
    log << "uploads straight from page-locked GStreamer buffers: " << t.directUploads << " of "
        << t.frames - t.deviceFrames << " frames in host memory (the others were copied into pinned slots)\n";
  log << "frames: " << t.frames << " of " << t.width << "x" << t.height << " in " << fixed(wallSeconds, 2)
      << " s: " << fixed(fps, 1) << " fps, " << fixed(fps * t.width * t.height / 1e6, 1) << " MPix/s\n";
  if (t.steadyFps > 0)
    log << "after the first " << SteadyRate::kDefaultWarmup << " frames: " << fixed(t.steadyFps, 1)
        << " fps (the first frame took " << fixed(t.firstFrameMs, 1) << " ms)\n";
  if (t.pageLocks > 0)
    log << "page-locked " << t.pageLocks << " source buffers once each, in " << fixed(t.pageLockMs, 1) << " ms\n";
  log << std::left << std::setw(18) << "stage" << std::right << std::setw(10) << "last ms" << std::setw(10) << "avg ms"
      << std::setw(10) << "peak ms"
      << "\n";
  printStageRows(log, t.stages);
  printStageRows(log, moreStages);
  if (!p.lastError().empty()) log << "note: " << p.lastError() << "\n";
}

void checkReportPath(const std::string& path) {
  if (path.empty()) return;
  const std::string folder = std::filesystem::path(path).parent_path().string();
  if (::access(folder.empty() ? "." : folder.c_str(), W_OK | X_OK) != 0 ||
      (::access(path.c_str(), F_OK) == 0 && ::access(path.c_str(), W_OK) != 0))
    throw std::invalid_argument("--report '" + path + "' cannot be written: check the folder exists and is writable");
}

nlohmann::json specJson(const FilterSpec& spec) {
  nlohmann::json out = nlohmann::json::object();
  for (const Setting& s : specSettings()) {
    if (!s.appliesTo(spec.mask)) continue;
    const std::string text = spec.get(s.name);
    if (s.type == Setting::Type::Flag)
      out[s.name] = text == "true";
    else if ((s.type == Setting::Type::Int || s.type == Setting::Type::Float) && text != "auto")
      out[s.name] = s.type == Setting::Type::Int ? nlohmann::json(std::stol(text)) : nlohmann::json(std::stod(text));
    else
      out[s.name] = text;
  }
  return out;
}

void writeReport(const std::string& path, const Pipeline& p, const PipelineConfig& c, const FilterSpec& spec,
                 double wallSeconds, const std::string& ended, const std::string& sinkName, const std::string& extraKey,
                 const std::string& extraJson) {
  using nlohmann::json;
  const SourceInfo si = p.sourceInfo();
  const Timings t = p.timings();
  const FilterParams fp = p.filterParams();
  const Variant* v = findVariant(p.variantName());
  const DeviceInfo& dev = deviceInfo();
  const json stages = stagesJson(t.stages);
  const double fps = wallSeconds > 0 ? double(t.frames) / wallSeconds : 0;
  json r = {{"date", nowIso()},
            {"source",
             {{"description", si.description},
              {"native_format", si.nativeFormat},
              {"frame_format", si.frameFormat},
              {"native_width", si.nativeWidth},
              {"native_height", si.nativeHeight},
              {"fps", si.fps},
              {"duration_s", si.durationSeconds},
              {"live", si.live},
              {"decoder", si.decoder},
              {"frames_on_device", si.framesOnDevice},
              {"decoder_note", si.decoderNote}}},
            {"device", dev.available
                           ? json{{"name", dev.name},
                                  {"compute_capability", std::to_string(dev.major) + "." + std::to_string(dev.minor)}}
                           : json{{"name", nullptr}, {"reason", dev.reason}}},
            {"variant", p.variantName()},
            {"auto", p.autoChoice().empty() ? json(nullptr) : json(p.autoChoice())},
            {"tile", v && !v->tiles.empty() ? json(v->tileFor(fp).str()) : json(nullptr)},
            {"filter", specJson(spec)},
            {"mask",
             {{"name", fp.filter.name},
              {"size",
               std::to_string(2 * fp.filter.mask.radius() + 1) + "x" + std::to_string(2 * fp.filter.mask.radius() + 1)},
              {"separable", fp.filter.mask.separable()}}},
            {"settings",
             {{"memory", p.memoryMode()},
              {"slots", dev.available ? c.slots : 1},
              {"overlap", c.overlap && dev.available},
              {"realtime", c.sync},
              {"register_source_memory", c.registerSourceMemory},
              {"sink", sinkName},
              {"direct_uploads", t.directUploads},
              {"device_frames", t.deviceFrames},
              {"decoder", decoderName(c.decoder)},
              {"loop", c.loop},
              {"input_format", inputFormatName(c.inputFormat)}}},
            {"frames", t.frames},
            {"width", t.width},
            {"height", t.height},
            {"wall_s", wallSeconds},
            {"fps", fps},
            {"mpix_per_s", fps * t.width * t.height / 1e6},
            {"fps_steady", t.steadyFps},
            {"warmup_frames", SteadyRate::kDefaultWarmup},
            {"first_frame_ms", t.firstFrameMs},
            {"page_locks", {{"buffers", t.pageLocks}, {"ms", t.pageLockMs}}},
            {"ended", ended},
            {"last_error", p.lastError()},
            {"stages", stages}};
  if (!extraKey.empty()) r[extraKey] = json::parse(extraJson);
  if (!writeFileAtomically(path, r.dump(2) + "\n"))
    throw std::runtime_error("cannot write the report " + path + ": check the folder is writable and has space");
}

namespace {

// The source alone: frames pulled and dropped, as a fakesink would. The pipeline's rate is judged
// against this.
int decodeOnly(const VideoOptions& v, const PipelineConfig& c, std::ostream& log, std::ostream& err) {
  SourceOptions so;
  so.maxQueued = c.slots;
  so.sync = c.sync;  // --realtime: the paced rate a player would get
  // The frames the pipeline would take: NV12/I420 as decoded where it converts them itself.
  so.acceptYuv = c.inputFormat == InputFormat::Yuv || (c.inputFormat == InputFormat::Auto && deviceInfo().available);
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
  log << "decode only: " << n << " frames of " << w << "x" << h << " in " << fixed(wall, 2) << " s: " << fixed(fps, 1)
      << " fps";
  if (steady.fps() > 0) log << "; " << fixed(steady.fps(), 1) << " after the first " << steady.warmup() << " frames";
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
  (void)err;
  return interrupt.interrupted() ? kInterrupted : kOk;
}

}  // namespace

int runHeadless(const VideoOptions& v, const FilterSpec& filter, std::ostream& log, std::ostream& err) {
  return guarded(err, [&]() -> int {
    PipelineConfig c = configFrom(v, filter);
    checkReportPath(v.report);
    if (v.decodeOnly) return decodeOnly(v, c, log, err);
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
        code = kInterrupted;
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
    if (code == kInterrupted) err << "convlive: interrupted after " << p.timings().frames << " frames\n";
    return code;
  });
}

int runExport(const VideoOptions& v, const FilterSpec& filter, std::ostream& log, std::ostream& err) {
  return guarded(err, [&]() -> int {
    const ExportFormat format = checkExportPath(v.output);
    PipelineConfig c = configFrom(v, filter);
    if (c.loop && v.frames < 0 && v.seconds < 0)
      throw std::invalid_argument("--loop would never end an export: give --frames or --seconds too");
    c.sync = false;  // an export runs as fast as it can, and drops nothing
    // The rate must be known before the first frame is encoded: open the source through a probe.
    InterruptGuard interrupt;
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
    FileExporter& exporter = file.emplace(v.output, si.fps);
    log << "export: " << si.description << " -> " << v.output << " (" << format.describe() << ", "
        << fixed(si.fps > 0 ? si.fps : 30, 2) << " fps)\n";
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
      if (fraction >= 0) line << ", " << fixed(100 * fraction, 1) << "%";
      line << ", " << fixed(elapsed > 0 ? done / elapsed : 0, 1) << " fps";
      if (fraction > 0.001 && !final) line << ", ETA " << fixed(elapsed * (1 - fraction) / fraction, 1) << " s";
      if (tty)
        err << "\r" << line.str() << "   " << (final ? "\n" : "") << std::flush;
      else
        err << line.str() << "\n";
    };
    std::string failure;
    for (;;) {
      if (interrupt.interrupted()) {
        exporter.abort();
        if (tty) err << "\n";
        err << "convlive: interrupted: " << v.output << " was not written\n";
        return kInterrupted;
      }
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
    if (!failure.empty()) {
      exporter.abort();
      if (tty) err << "\n";
      err << "convlive: " << failure << "; " << v.output << " was not written\n";
      return kFailed;
    }
    exporter.finish();
    progress(true);
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    log << "export: wrote " << v.output << ": " << exporter.frames() << " frames in " << fixed(wall, 2) << " s\n";
    return kOk;
  });
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
