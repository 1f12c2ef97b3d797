// Frame sources: a GStreamer pipeline ending in an appsink that hands out RGBA8 frames (or, when
// asked for, the decoder's own NV12/I420 frames, with no CPU colour conversion).
// No GStreamer header leaks out of here: callers see specs, frames and plain information.
//
// Inside pipeline/ the work is split by job: source_spec.cpp (the kinds), source_graph.* (building
// each kind's GStreamer graph), source_messages.* (bus errors and timeouts in words), cameras.*
// (device listing), file_checks.* (a file's checks before and after playing), appsink_reader.*
// (starting the graph and reading frames); source_opener.* opens a Source in the background.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "convlive/colour.hpp"
#include "convlive/image.hpp"

namespace convlive {

// A source that cannot open or that failed while running. The message names what was wrong and
// what to do about it, in one line, in plain words (no command-line flags: the panel shows it too).
class SourceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SourceSpec {
  enum class Kind { Pattern, File, Uri, Camera, Launch };
  Kind kind = Kind::Pattern;
  // Pattern: a videotestsrc pattern name ("zone-plate", "ball", "smpte", ...) or "moving" (the
  // default: an animated zone plate, which shows blur and edges well).
  std::string pattern = "moving";
  int width = 1280, height = 720, fps = 30;  // Pattern only: 1x1 to 16384x16384, 1 to 1000 fps
  int frames = -1;                           // Pattern only: end of stream after this many (-1: never)
  // File: a path. Uri: a URI (file://, http://, rtsp://, ...). Camera: a device ("" = the first
  // camera present). Launch: a gst-launch line ending in "appsink name=sink" (or any one appsink).
  std::string location;

  static SourceSpec testPattern(std::string pattern = "moving", int w = 1280, int h = 720, int fps = 30);
  static SourceSpec file(std::string path);
  static SourceSpec uri(std::string uri);
  static SourceSpec camera(std::string device = "");
  static SourceSpec launch(std::string line);
  // What a user typed as an input: a URI when it has a scheme, else a file path.
  static SourceSpec input(std::string pathOrUri);
  std::string describe() const;  // one line, for logs and reports
};

// What a source turned out to be, known once it has delivered its first frame.
struct SourceInfo {
  std::string description;   // SourceSpec::describe()
  std::string nativeFormat;  // the source's own format before conversion ("I420", "RGBA", "image/jpeg", ...)
  std::string frameFormat;   // what its frames arrive as: "RGBA", "NV12", "I420", "GRAY8" or "GRAY16_LE"
  int nativeWidth = 0, nativeHeight = 0;
  double fps = 0;               // 0: unknown or variable
  double durationSeconds = -1;  // -1: unknown or endless
  bool live = false;            // a camera or other live source: stale frames are dropped
  bool seekable = false;
  std::string decoder;          // the video decoder element ("nvh264dec", "avdec_h264"; "" when none)
  bool framesOnDevice = false;  // frames arrive in GPU memory (NVDEC): no host copy, no upload
  std::string decoderNote;      // why NVDEC was asked for and not used ("" otherwise)
  // Frames of more than 8 bits a channel (10-bit video, 16-bit PNG sequences): what becomes of their
  // depth, in one line ("" otherwise).
  std::string depthNote;
};

// Who decodes files, URIs and launch lines (run and export, with YUV frames accepted). Auto: NVDEC
// where a CUDA device and GStreamer's nvcodec decoders are present, the CPU otherwise (and when
// NVDEC fails to open the stream). Nvdec: NVDEC or a clear error. Cpu: GStreamer's software
// decoders, frames in host memory.
enum class Decoder { Auto, Nvdec, Cpu };
const char* decoderName(Decoder d);

// A decoded frame, mapped in host memory: RGBA8 (`pixels`), or NV12/I420 (`yuv`) when the source
// was opened with SourceOptions::acceptYuv; or, decoded by NVDEC, NV12/I420 in GPU memory
// (`onDevice`: yuv's planes are device pointers in convlive's CUDA context). It keeps the GStreamer sample alive: the
// views stay valid until the frame is destroyed. Move-only.
class SourceFrame {
 public:
  // RGBA frames: the pixels. YUV and grey frames: the frame's width and height, and no data (null).
  ConstImageView pixels;
  // YUV frames: the planes, how to read their colours, and the one block of memory they lie in (what
  // an upload copies: [bytes, bytes + byteCount); null when the planes lie in separate memories).
  // RGBA frames: yuv.planes[0] is null.
  ConstYuvView yuv;
  ColourSpec colour;
  const std::uint8_t* bytes = nullptr;
  std::size_t byteCount = 0;
  bool isYuv() const { return yuv.planes[0] != nullptr; }
  // Grey frames (SourceOptions::acceptGrey: GRAY8, GRAY16_LE): the plane, and its description (u8x1
  // or u16x1, rows greyDesc.rowPitch() bytes apart, greyDesc.span() bytes in all). Null otherwise.
  const void* grey = nullptr;
  ImageDesc greyDesc;
  bool isGrey() const { return grey != nullptr; }
  bool onDevice = false;                          // yuv's planes are GPU memory (NVDEC); bytes is null
  std::int64_t ptsNs = -1;                        // presentation time in the stream (-1: none)
  std::uint64_t index = 0;                        // counts frames since the source opened (or since the last seek)
  std::chrono::steady_clock::time_point arrival;  // when it reached the appsink
  bool pinned = false;               // its memory is page-locked (registered with CUDA): uploads can read it directly
  std::optional<double> pageLockMs;  // set when its memory was first seen and page-locked now: the ms that took
  std::shared_ptr<void> keep;        // the mapped sample
};

struct SourceOptions {
  bool sync = false;  // pace frames to the stream's clock (a player); false: as fast as they decode
  int maxQueued = 3;  // frames the appsink holds; live sources drop the oldest beyond it
  // The most buffers the test pattern draws into (0: as many as it likes). A pool hands its
  // buffers out in turn, so every buffer it has made stays in the cycle: with more buffers than
  // frames in flight, each frame is drawn into memory that has left the CPU's caches (4K I420 flat
  // out on an H200 host: 6 buffers drew at 0.55-0.72x the rate of 3). At a pull, the frames the
  // caller still holds and the last one pulled (the appsink keeps it until the next pull) must be
  // fewer than poolBuffers, or the pull waits until its timeout for a frame that cannot be drawn.
  // With newestOnly the pool gets one buffer more, for the newer frame that replaces a queued one.
  // Sources that keep frames of their own (decoders, cameras, launch lines) size their pools.
  int poolBuffers = 0;
  // Hold only the newest frame, as live sources do: a player whose consumer falls behind shows the
  // newest frame instead of working through a queue of stale ones.
  bool newestOnly = false;
  std::chrono::milliseconds openTimeout{10000};  // bound on reaching the first frame
  // Page-lock GStreamer's frame memory with cudaHostRegister the first time each pooled buffer is
  // seen (unregistered when GStreamer frees it), so uploads need no copy into a pinned slot.
  bool registerWithCuda = false;
  // Let NV12 and I420 frames through as they are (the appsink takes NV12, I420 or RGBA; a source
  // in another format is converted to one of them). False: every frame is converted to RGBA8.
  bool acceptYuv = false;
  Decoder decoder = Decoder::Cpu;  // with acceptYuv: who decodes files, URIs and launch lines
  // Let GRAY8 and GRAY16_LE frames through as they are (SourceFrame::grey), to be filtered as one
  // channel of 8 or 16 bits; every other format still arrives as acceptYuv says. False: grey
  // sources are converted like any other.
  bool acceptGrey = false;
  // Set to true (from any thread) to abandon an open still in progress: the constructor then
  // throws SourceError within about 50 ms. Null: the open runs to its first frame or its timeout.
  std::shared_ptr<const std::atomic<bool>> cancel;
};

// One running GStreamer pipeline. Methods are called from one thread at a time: the one that
// constructed it, or one it was handed to afterwards (the pipeline opens sources on a worker and
// hands them to its own thread). GStreamer decodes on its own threads meanwhile.
class Source {
 public:
  // Builds and starts the pipeline, and waits (bounded by openTimeout, or until cancel is set)
  // until it has its first frame. Throws SourceError with the reason when it cannot.
  Source(const SourceSpec& spec, const SourceOptions& options);
  ~Source();
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;

  enum class Pull { Frame, Timeout, EndOfStream };
  // Waits at most `timeout` for the next frame. Throws SourceError when the pipeline failed.
  Pull pull(SourceFrame& frame, std::chrono::milliseconds timeout);

  void setPaused(bool paused);
  // Flushing seek; the next frame is the one at (or just after) `seconds`. Throws SourceError when
  // the source cannot seek.
  void seek(double seconds);
  double positionSeconds() const;  // of the last frame pulled
  const SourceInfo& info() const;
  bool eos() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The cameras present (V4L2 devices), as "device: name" pairs. Any thread; takes a moment.
struct CameraInfo {
  std::string device, name;
};
std::vector<CameraInfo> listCameras();

// The videotestsrc pattern names accepted by SourceSpec::pattern, "moving" first.
std::vector<std::string> testPatterns();

// Whether a GStreamer element factory is installed ("x264enc", "vp8enc", ...).
bool hasElement(const char* factory);

// Initialises GStreamer once (any thread). Throws SourceError when it cannot.
void initGStreamer();

}  // namespace convlive
