// The video commands of convlive: headless runs (with a per-stage summary and a JSON report) and
// file export (with a progress line). Both drive the pipeline from this thread.
#pragma once

#include <iosfwd>
#include <string>

#include "convlive/spec.hpp"

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
  bool decodeOnly = false;
  bool copyToPinned = false;
  std::string sink = "null";  // headless: null (drop on the GPU) or download (bring back to pinned host memory)  //
                              // copy each frame into a pinned slot instead of registering GStreamer's memory  // only
                              // pull frames from the source (the rate the pipeline is measured against)
  std::string output;         // export: the video file to write
  // auto, rgba or yuv (PipelineConfig::inputFormat); empty: auto.
  std::string inputFormat;
  std::string decoder = "auto";  // auto, nvdec or cpu (PipelineConfig::decoder)
};

// Exit code 130: interrupted (Ctrl-C), as shells report SIGINT.
constexpr int kInterrupted = 130;

// The commands below take the filter as the command line gave it (validated, its variant included):
// the pipeline makes its plan from it, and the report says what was asked.
// A pipeline run with no display: prints a summary of every stage (and writes the report).
int runHeadless(const VideoOptions& v, const FilterSpec& filter, std::ostream& log, std::ostream& err);
// Decode, filter, encode into v.output. Writes a temporary file, renamed at the end.
int runExport(const VideoOptions& v, const FilterSpec& filter, std::ostream& log, std::ostream& err);
// Prints the cameras present (or says there is none).
int listCamerasCommand(std::ostream& out, std::ostream& err);
int listPatternsCommand(std::ostream& out, std::ostream& err);

}  // namespace convlive
