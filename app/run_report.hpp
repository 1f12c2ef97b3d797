// What the headless run, the export and the viewer print and write about a pipeline run: the
// settings line, the per-stage summary and the JSON report. Called on the thread that ran the
// pipeline, once it has been drained (the figures are final then).
#pragma once

#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>

#include "convlive/pipeline.hpp"
#include "convlive/spec.hpp"
#include "interrupt.hpp"  // the viewer's loop takes its Ctrl-C handling with the report

namespace convlive {

// x with `digits` decimals, as the summaries print figures.
std::string decimals(double x, int digits);
// Now in UTC as ISO 8601 ("2025-01-31T12:00:00Z"), the reports' "date".
std::string nowIso();

// One line: the filter and variant running (auto's reason), memory mode, slots, overlap, the
// frames' format and the decoder.
std::string settingsLine(const Pipeline& p, const PipelineConfig& c);
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
