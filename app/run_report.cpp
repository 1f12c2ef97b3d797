#include "run_report.hpp"

#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "convlive/atomic_file.hpp"
#include "convlive/resources.hpp"

namespace convlive {

std::string decimals(double x, int digits) {
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
  if (const Timings t = p.timings(); !t.filteredAs.empty()) s << ", filtered as " << t.filteredAs;
  if (const std::string why = p.greyExpandedWhy(); !why.empty())
    s << " (grey frames expanded to RGBA8 first: " << why << ")";
  const SourceInfo si = p.sourceInfo();
  if (!si.decoder.empty())
    s << " | decoder: " << si.decoder << (si.framesOnDevice ? " (frames stay in GPU memory)" : "");
  if (!si.decoderNote.empty()) s << " (" << si.decoderNote << ")";
  return s.str();
}

void printStageRows(std::ostream& log, std::span<const StageStats> stages) {
  for (const StageStats& s : stages)
    log << std::left << std::setw(18) << s.name() << std::right << std::setw(10) << decimals(s.last(), 3)
        << std::setw(10) << decimals(s.average(), 3) << std::setw(10) << decimals(s.peak(), 3) << "\n";
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
      << si.nativeHeight << (si.fps > 0 ? ", " + decimals(si.fps, 2) + " fps" : "") << (si.live ? ", live" : "")
      << ")\n";
  if (!si.depthNote.empty()) log << "note: " << si.depthNote << "\n";
  log << "device: " << (deviceInfo().available ? deviceInfo().name : deviceInfo().reason + " (the CPU variants run)")
      << "\n";
  log << settingsLine(p, c) << "\n";
  const double fps = wallSeconds > 0 ? double(t.frames) / wallSeconds : 0;
  if (t.deviceFrames > 0)
    log << "decoded into GPU memory (no upload): " << t.deviceFrames << " of " << t.frames << " frames\n";
  if (deviceInfo().available && c.pinned && t.deviceFrames < t.frames)
    log << "uploads straight from page-locked GStreamer buffers: " << t.directUploads << " of "
        << t.frames - t.deviceFrames << " frames in host memory (the others were copied into pinned slots)\n";
  log << "frames: " << t.frames << " of " << t.width << "x" << t.height << " in " << decimals(wallSeconds, 2)
      << " s: " << decimals(fps, 1) << " fps, " << decimals(fps * t.width * t.height / 1e6, 1) << " MPix/s\n";
  if (t.steadyFps > 0)
    log << "after the first " << SteadyRate::kDefaultWarmup << " frames: " << decimals(t.steadyFps, 1)
        << " fps (the first frame took " << decimals(t.firstFrameMs, 1) << " ms)\n";
  if (t.pageLocks > 0)
    log << "page-locked " << t.pageLocks << " source buffers once each, in " << decimals(t.pageLockMs, 1) << " ms\n";
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
              {"decoder_note", si.decoderNote},
              {"depth_note", si.depthNote}}},
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
            {"filtered_as", t.filteredAs.empty() ? json(nullptr) : json(t.filteredAs)},
            {"grey_expanded_why", p.greyExpandedWhy().empty() ? json(nullptr) : json(p.greyExpandedWhy())},
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

}  // namespace convlive
