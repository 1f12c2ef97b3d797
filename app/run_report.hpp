// What the headless run, the export and the viewer share: the pipeline settings from the command
// line, Ctrl-C handling, the per-stage summary and the JSON report.
#pragma once

#include <chrono>
#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>

#include "convlive/pipeline.hpp"
#include "video.hpp"

namespace convlive {

// The pipeline the options describe, running `filter` (the filter as the command line gave it,
// validated, its variant included). Throws std::invalid_argument naming a bad option.
PipelineConfig configFrom(const VideoOptions& v, const FilterSpec& filter);

// Ctrl-C (and SIGTERM) stop a loop at a frame boundary instead of killing the process, so an
// export can remove its temporary file and a run can still report. One at a time.
// --seconds as a length of the stream: fed the position of each frame taken, it says when the
// next frame would pass the limit. Sources without timestamps fall back to wall-clock time.
class StreamLimit {
 public:
  explicit StreamLimit(double seconds);  // seconds <= 0: no limit
  void frameTaken(double positionSeconds, double fps);
  bool reached() const;
  double elapsed() const;  // stream seconds since the first frame (or wall-clock seconds)

 private:
  double seconds_, first_ = 0, last_ = 0, offset_ = 0, fps_ = 0;
  long frames_ = 0;
  bool timestamps_ = false;
  std::chrono::steady_clock::time_point start_;
};

class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  bool interrupted() const;

 private:
  void (*previousInt_)(int) = nullptr;
  void (*previousTerm_)(int) = nullptr;
};

// Rows of "name last avg peak" in milliseconds (the table's header is printed by printSummary).
void printStageRows(std::ostream& log, std::span<const StageStats> stages);
// [{name, last_ms, average_ms, peak_ms, frames}, ...]
nlohmann::json stagesJson(std::span<const StageStats> stages);

// Source, device, settings and a table of every stage.
// `moreStages`: rows of the same table from the caller (the viewer's own stages), printed before
// the notes.
void printSummary(std::ostream& log, const Pipeline& p, const PipelineConfig& c, double wallSeconds,
                  std::span<const StageStats> moreStages = {});
// Throws std::invalid_argument when the report could not be written at the end (its folder is
// missing or read-only, or the file is read-only). Creates nothing: the report is written whole.
void checkReportPath(const std::string& path);
// The filter as asked for, keyed by the spec's setting names (the flags, the element's properties,
// the Python keywords): every setting that applies to the mask, numbers and flags typed, "auto" and
// "default" as text.
nlohmann::json specJson(const FilterSpec& spec);
// The run's figures as JSON: "filter" is specJson(spec) (what was asked for), "variant" and "tile"
// what ran. extraJson (a JSON object's text) is added under extraKey when given. The file appears
// whole or not at all; throws std::runtime_error when it cannot be written.
void writeReport(const std::string& path, const Pipeline& p, const PipelineConfig& c, const FilterSpec& spec,
                 double wallSeconds, const std::string& ended, const std::string& sinkName,
                 const std::string& extraKey = {}, const std::string& extraJson = {});

}  // namespace convlive
