// The video commands of convlive: headless runs (with a per-stage summary and a JSON report) and
// file export (with a progress line), both driving the pipeline from the calling thread, and what
// they share with the viewer: the pipeline the command line's options describe.
#pragma once

#include <iosfwd>
#include <string>

#include "convlive/export.hpp"
#include "convlive/pipeline.hpp"
#include "convlive/spec.hpp"
#include "exit_codes.hpp"

namespace convlive {

struct VideoOptions {
  // Source: one of input (a path or a URI), launch, camera; else the test pattern.
  std::string input, launch, camera;
  bool useCamera = false;
  std::string pattern = "moving";
  std::string size = "1280x720";
  int fps = 30;
  // Run.
  long frames = -1;     // stop after this many frames (-1: at the end of the source)
  double seconds = -1;  // stop after this long (-1: no limit)
  std::string report;   // JSON report path ("": none)
  int slots = 3;
  bool pageable = false, noOverlap = false, realtime = false, loop = false;
  bool decodeOnly = false;    // only pull frames from the source (the rate the pipeline is measured against)
  bool copyToPinned = false;  // copy each frame into a pinned slot instead of registering GStreamer's memory
  std::string sink = "null";  // headless: null (drop on the GPU) or download (bring back to pinned host memory)
  std::string output;         // export: the video file to write
  // auto, rgba or yuv (PipelineConfig::inputFormat); empty: auto.
  std::string inputFormat;
  std::string decoder = "auto";  // auto, nvdec or cpu (PipelineConfig::decoder)
};

// The pipeline the options describe, running `filter` (the filter as the command line gave it,
// validated, its variant included). Throws std::invalid_argument naming a bad option.
PipelineConfig configFrom(const VideoOptions& v, const FilterSpec& filter);

// The commands below take the filter as configFrom does; the report says what was asked.
// A pipeline run with no display: prints a summary of every stage (and writes the report).
int runHeadless(const VideoOptions& v, const FilterSpec& filter, std::ostream& log, std::ostream& err);
// run --decode-only: the source of `c` alone, its frames pulled and dropped as a fakesink would
// (the rate the pipeline is judged against); prints the rate and writes v.report. Throws as
// runHeadless's body does.
int runDecodeOnly(const VideoOptions& v, const PipelineConfig& c, std::ostream& log);
// Decode, filter, encode into v.output. Writes a temporary file, renamed at the end. `encoder`: the
// quality, bitrate and preset asked for (defaults: each encoder's constant quality); keepAudio: the
// input's audio goes into the file (export's --no-audio clears it).
int runExport(const VideoOptions& v, const FilterSpec& filter, const EncoderRequest& encoder, bool keepAudio,
              std::ostream& log, std::ostream& err);
// The same with the defaults and the audio kept.
int runExport(const VideoOptions& v, const FilterSpec& filter, std::ostream& log, std::ostream& err);
// Prints the cameras present (or says there is none).
int listCamerasCommand(std::ostream& out, std::ostream& err);
int listPatternsCommand(std::ostream& out, std::ostream& err);

}  // namespace convlive
