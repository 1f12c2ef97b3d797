// File export: filtered frames -> appsrc -> encoder -> muxer -> a temporary file, renamed to the
// output when (and only when) the export completes. The input file's audio, when it has some, goes
// into the same muxer from a second branch of the export's pipeline (copied, or re-encoded where the
// container cannot hold it).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

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

// ---- Encoder settings ------------------------------------------------------------------------

// The encoder settings as typed on the command line ("" = the format's default).
struct EncoderRequest {
  std::string quality;  // a constant-quality level, on the encoder's own scale (qualityScale)
  std::string bitrate;  // a target bitrate in kbit/s instead (not with quality)
  std::string preset;   // a speed preset: x264's names (speedPresets), for H.264 and VP8
};

// An encoder's constant-quality scale: what the number means there.
struct QualityScale {
  std::string name;  // "CRF", "cq-level", "quality"
  int min = 0, max = 0;
  int fallback = 0;  // the default
  bool higherIsBetter = false;
};
QualityScale qualityScale(const ExportFormat& format);

// The speed presets --preset takes, fastest first (x264enc's speed-preset names; VP8 maps them to
// its deadline and cpu-used); the default is "veryfast".
const std::vector<std::string>& speedPresets();
inline constexpr const char* kDefaultSpeedPreset = "veryfast";

// The settings an encoder runs with, checked against its format.
struct EncoderSettings {
  bool constantQuality = true;   // else a target bitrate
  int quality = 0;               // constantQuality: on the encoder's scale ...
  std::string scale;             // ... which is called this ("CRF")
  long bitrateKbps = 0;          // otherwise
  std::string preset;            // "" for encoders without one (jpegenc)
  std::string describe() const;  // "CRF 23, preset veryfast", "4000 kbit/s, preset fast", ...
};

// The settings a request asks of `format`'s encoder, defaults filled in. Throws
// std::invalid_argument, one line naming the option, what is wrong and the values it takes: a
// value that is not a whole number or is out of the encoder's range, --quality with --bitrate, a
// preset the encoder does not have, and MJPEG's missing bitrate and preset.
EncoderSettings encoderSettingsFor(const ExportFormat& format, const EncoderRequest& request);

// ---- Audio -------------------------------------------------------------------------------------

// What an export does with its input's audio, decided before any work.
struct AudioPlan {
  enum class Action { None, Copy, Reencode };
  Action action = Action::None;
  std::string input;     // the file the audio is read from
  std::string codec;     // the input's audio codec ("AAC", "Opus", "MP3", ...)
  std::string outCodec;  // what the output holds (codec when copied)
  std::string chain;     // the elements between the input's audio and the muxer (gst-launch syntax)
  std::string why;       // Reencode: why the codec cannot be copied
  int streams = 0;       // audio streams in the input (the first is exported)
  // The start of the input's video segment: a decoded frame's running time is its timestamp minus
  // this, which is how the first frame exported and the audio are put at the same time.
  std::uint64_t videoSegmentStartNs = 0;
  std::string describe() const;  // "AAC, copied", "AAC, re-encoded to Opus (WebM holds ...)"
};

// Looks at the streams of `inputPath` (a file) for an export in `format`, within `timeout`. No audio
// stream (or a file that cannot be read: the source says why itself) plans None. An audio codec the
// container holds is copied untouched; another is re-encoded to the container's usual codec (Opus
// or Vorbis for WebM, AAC for MP4, MP3 or PCM for AVI). Throws std::invalid_argument when that
// needs an encoder that is not installed (naming it, --no-audio and the other containers).
AudioPlan planExportAudio(const ExportFormat& format, const std::string& inputPath,
                          std::chrono::milliseconds timeout = std::chrono::seconds(10));
// The same for a source: files (a path or a file:// URI) have their audio exported; the test
// pattern, cameras, launch lines and network URIs plan None.
AudioPlan planExportAudio(const ExportFormat& format, const SourceSpec& source,
                          std::chrono::milliseconds timeout = std::chrono::seconds(10));
// The local file a source reads ("" for any other source).
std::string localFileOf(const SourceSpec& source);

// Everything an export is told besides its output and rate.
struct ExportSettings {
  std::optional<EncoderSettings> encoder;  // none: the format's defaults
  AudioPlan audio;                         // None: video only
  // Polled while the export waits on its encoder (a full queue, the end of the file): true ends
  // the wait with ExportError. Called on the pipeline thread; may be empty.
  std::function<bool()> interrupted;
  // The longest the encoder may take no frame (or not finish) before the export fails.
  std::chrono::milliseconds stallLimit = std::chrono::seconds(120);
};

// A sink that encodes every frame it is given (none is dropped) at a fixed rate. Called on the
// pipeline thread only.
class FileExporter : public FrameSink {
 public:
  // fps: the rate written into the file (the source's; 30 when it has none). Throws
  // std::invalid_argument for a bad output path or encoder settings (encoderSettingsFor).
  FileExporter(const std::string& output, double fps, ExportSettings settings = {});
  ~FileExporter() override;  // an export not finished is aborted: the temporary file is removed
  FileExporter(const FileExporter&) = delete;
  FileExporter& operator=(const FileExporter&) = delete;

  bool wantsHostFrames() const override { return true; }
  // I420 frames (OutputFrame::filteredYuv) go to the encoder as they are, with their colorimetry.
  bool acceptsYuvFrames() const override { return true; }
  ColourSpec yuvFramesColour(ColourSpec source, int width, int height) const override;
  // Copies the frame (RGBA, or I420) into the encoder's queue, waiting (bounded by stallLimit, and
  // ended by `interrupted`) while the encoder is behind. Throws ExportError when encoding failed.
  // The first frame starts the file: frame n is timed n / fps, and the audio is put beside it from
  // that frame's time in the input.
  void deliver(const OutputFrame& frame) override;

  // Ends the stream (the audio where the video ends), waits (bounded) for the file to be complete,
  // and renames it to the output. Throws ExportError (and removes the temporary file) when that
  // fails.
  void finish();
  // Stops and removes the temporary file. Safe to call more than once.
  void abort() noexcept;

  std::uint64_t frames() const;
  // What the export did that the user should know and did not ask for, one line each, since the
  // last call: frames of another size than the file's first (a source whose size changed midway)
  // are scaled to the file's size, since a video file keeps one size: said once per new size.
  std::vector<std::string> takeNotes();
  const ExportFormat& format() const;
  const EncoderSettings& encoder() const;
  const AudioPlan& audio() const;
  const std::string& temporaryPath() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace convlive
