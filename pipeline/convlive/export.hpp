// File export: filtered frames -> appsrc -> encoder -> muxer -> a temporary file, renamed to the
// output when (and only when) the export completes.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "convlive/pipeline.hpp"

namespace convlive {

class ExportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How an output file will be written, chosen from its extension and the encoders installed.
struct ExportFormat {
  std::string container;  // "webm", "matroska", "mp4", "avi"
  std::string codec;      // "VP8", "H.264", "MJPEG"
  std::string encoder;    // the GStreamer element
  std::string muxer;
  std::string describe() const { return codec + " in " + container; }
};

// Checks an output path before anything runs: a known extension, an existing folder, and an
// encoder for it. Throws std::invalid_argument naming the problem and the fix (the packages that
// give a missing encoder).
ExportFormat checkExportPath(const std::string& output);

// A sink that encodes every frame it is given (none is dropped) at a fixed rate. Called on the
// pipeline thread only.
class FileExporter : public FrameSink {
 public:
  // fps: the rate written into the file (the source's; 30 when it has none).
  FileExporter(const std::string& output, double fps);
  ~FileExporter() override;  // an export not finished is aborted: the temporary file is removed
  FileExporter(const FileExporter&) = delete;
  FileExporter& operator=(const FileExporter&) = delete;

  bool wantsHostFrames() const override { return true; }
  // I420 frames (OutputFrame::filteredYuv) go to the encoder as they are, with their colorimetry.
  bool acceptsYuvFrames() const override { return true; }
  ColourSpec yuvFramesColour(ColourSpec source, int width, int height) const override;
  // Copies the frame (RGBA, or I420) into the encoder's queue (blocks while the encoder is behind). Throws
  // ExportError when encoding failed.
  void deliver(const OutputFrame& frame) override;

  // Ends the stream, waits (bounded) for the file to be complete, and renames it to the output.
  // Throws ExportError (and removes the temporary file) when that fails.
  void finish();
  // Stops and removes the temporary file. Safe to call more than once.
  void abort() noexcept;

  std::uint64_t frames() const;
  const ExportFormat& format() const;
  const std::string& temporaryPath() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace convlive
