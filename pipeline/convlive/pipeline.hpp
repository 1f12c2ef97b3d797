// The pipeline: source frames -> pinned slots -> CUDA streams (upload, filter, output) -> a sink.
//
// Threading: one thread (the pipeline's: the viewer's render loop, or the headless loop) calls
// step(), drain() and the read accessors. Controls (setPaused, seek, setFilter, switchSource, ...)
// may be called from any thread; they are queued and applied at the next frame boundary, so a
// change never races a frame in flight. GStreamer decodes on its own threads meanwhile, and a
// source asked for by switchSource opens on a worker thread of its own (see PendingSource).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "convlive/source.hpp"
#include "convlive/timing.hpp"
#include "convlive/variants.hpp"

namespace convlive {

// One filtered frame handed to a sink.
struct OutputFrame {
  std::uint64_t index = 0;  // frame counter since the source opened
  std::int64_t ptsNs = -1;  // presentation time in the stream (-1: none)
  bool onDevice = false;    // the views below are device memory (else host memory)
  ConstImageView filtered;  // the filtered frame
  ConstImageView source;    // the unfiltered frame, in the same kind of memory
  // The unfiltered frame in host memory (pinned slot or the decoded sample). Empty for NV12/I420
  // and grey sources on the GPU (they are converted to RGBA on the device only): read `source`, or
  // sourceYuv.
  ConstImageView sourceHost;
  cudaStream_t stream = nullptr;  // the slot's stream (onDevice only)
  // NV12/I420 sources: the frame as it came (host memory, as long as sourceHost) and its colours.
  ConstYuvView sourceYuv;
  ColourSpec colour;
  // Host-frame sinks that acceptYuvFrames(), fed by an NV12/I420 or grey source on the GPU: the
  // filtered frame converted to I420 on the GPU and downloaded (1.5 bytes a pixel); `filtered` is
  // then empty. Its colours are filteredColour (what the sink's yuvFramesColour asked for).
  ConstYuvView filteredYuv;
  ColourSpec filteredColour;
  // Grey frames filtered as grey, for a sink that acceptsGreyFrames(): the filtered and the
  // unfiltered frames as they are, one channel of u8 or u16 values as greyDesc says (rows
  // greyDesc.rowPitch() apart; device memory where onDevice, else host memory valid during the
  // call), not expanded to RGBA8; `filtered`, `source` and `sourceHost` are then empty.
  const void* filteredGrey = nullptr;
  const void* sourceGrey = nullptr;
  ImageDesc greyDesc{};
};

// Where filtered frames go: a display, an encoder, nowhere. Called on the pipeline thread. A sink
// may throw: step() (or drain()) then rethrows after the frame has been retired, the slot ring
// stays consistent, and the next step() goes on with the next frame.
class FrameSink {
 public:
  virtual ~FrameSink() = default;
  // True: the pipeline copies each filtered frame back to host memory (through the slot's pinned
  // buffer) and calls deliver() in frame order. False: present() gets the frame where it is.
  virtual bool wantsHostFrames() const = 0;
  // Host-frame sinks: the frame is in host memory; the views are valid during the call only.
  virtual void deliver(const OutputFrame&) {}
  // Host-frame sinks that take I420 (OutputFrame::filteredYuv) when the source is NV12/I420 or grey
  // and the frame ran on the GPU, so that it comes back at 1.5 bytes a pixel. Asked once per frame.
  virtual bool acceptsYuvFrames() const { return false; }
  // The colours those I420 frames are to be written with, given the source's: the source's own by
  // default; an encoder whose format fixes them (MJPEG: full-range BT.601) says so.
  virtual ColourSpec yuvFramesColour(ColourSpec source, int /*width*/, int /*height*/) const { return source; }
  // Other sinks that take grey frames filtered as grey as they are (OutputFrame::filteredGrey,
  // 1 or 2 bytes a pixel: a display showing them through a one-channel texture) instead of expanded
  // to RGBA8 (4 bytes a pixel, two expansions a frame, on the GPU or the CPU). Asked once per frame.
  virtual bool acceptsGreyFrames() const { return false; }
  // Other sinks, right after the filter was enqueued. onDevice: enqueue the output work on
  // frame.stream without synchronising; the views stay valid until that work has run. Without a
  // device, the views are host memory and valid during the call only.
  virtual void present(const OutputFrame&) {}
};

// A sink that drops every frame (benchmarks, decode-and-filter runs): grey frames too as they are,
// with no expansion that nothing would read.
class NullSink : public FrameSink {
 public:
  bool wantsHostFrames() const override { return false; }
  bool acceptsGreyFrames() const override { return true; }
};

// How frames come from the source. Auto: NV12/I420 as the decoder gives them where there is a CUDA
// device (uploaded at 1.5 bytes a pixel, converted to RGBA on the GPU), RGBA8 (converted by
// GStreamer on the CPU) without one. Rgba: always RGBA8 (the old path, for comparison). Yuv:
// NV12/I420 everywhere (without a device they are converted on the CPU by the colour reference).
// Auto and Yuv take grey sources (GRAY8, GRAY16_LE: mono cameras, grey pictures) as they are: they
// are uploaded at 1 or 2 bytes a pixel, filtered as one channel of 8 or 16 bits, and handed to the
// sink as RGBA8 (R = G = B; 16 bits scaled to 8), or as they are to a sink that acceptsGreyFrames().
enum class InputFormat { Auto, Rgba, Yuv };
const char* inputFormatName(InputFormat f);  // "auto", "rgba", "yuv"

struct PipelineConfig {
  SourceSpec source;
  // Rgba by default: sinks written for RGBA sources (the viewer's tests read sourceHost) keep
  // working; the run and export commands ask for Auto.
  InputFormat inputFormat = InputFormat::Rgba;
  // Who decodes files, URIs and launch lines when NV12/I420 frames are taken (auto: NVDEC where it
  // is present, its frames staying in GPU memory).
  Decoder decoder = Decoder::Auto;
  std::string variant = "auto";  // a name from the variant table, or auto
  FilterParams params;
  int slots = 3;       // pinned slots in the ring (1..16): frames in flight at once
  bool pinned = true;  // false: upload from the decoded (pageable) frame, download into pageable memory
  // With pinned: page-lock GStreamer's pooled frame buffers once (cudaHostRegister) and upload
  // straight from them; false: copy each frame into the slot's pinned buffer (the measured copy).
  bool registerSourceMemory = true;
  bool overlap = true;  // false: each frame finishes before the next starts (to show what overlap gains)
  bool sync = false;    // pace to the stream's clock (a player) instead of running as fast as possible
  bool loop = false;    // at end of stream, start again (sources that can seek)
  // With sync: when frames arrive faster than they are filtered, drop the older ones (a viewer
  // shows the newest; an export or a benchmark wants every frame and leaves this off).
  bool newestFrameOnly = false;
  std::chrono::milliseconds openTimeout{10000};
};

// The test pattern's pool for a ring of `slots` (SourceOptions::poolBuffers). At a pull the ring
// holds at most slots - 1 frames (the upcoming slot is made free first), the newest of them also
// the appsink's last sample; with one slot the ring holds none and the appsink the last. So this
// leaves one buffer to draw into and none beyond (4K I420 flat out on an H200 host: 3 buffers for
// 3 slots drew at 0.96x the source alone, 4 at 0.89x, the 6 an unbounded pool grew to at 0.55-0.72x).
inline int sourcePoolBuffers(int slots) { return std::max(slots, 2); }

// A source that switchSource is opening in the background, for a progress line ("opening file
// 'clip.mp4' (2.1 s)"). `what` is empty when none is.
struct PendingSource {
  std::string what;           // SourceSpec::describe() of the source being opened
  double secondsWaiting = 0;  // since switchSource asked for it
};

enum class StepResult {
  Frame,        // a frame was taken from the source and enqueued
  Idle,         // no frame arrived within the wait
  Paused,       // paused: nothing was pulled
  EndOfStream,  // the source ended (and loop is off); every frame has been delivered
  Error,        // the source failed: lastError() says why; switchSource() may recover
};

class Pipeline {
 public:
  // Opens the source (bounded by openTimeout; on the calling thread, so that a command fails
  // fast with the reason) and allocates the ring. Throws SourceError when the source cannot open,
  // std::invalid_argument for bad settings. `sink` must outlive the pipeline. The destructor
  // cancels a source still opening and returns within a moment (about 50 ms plus GStreamer's
  // time to stop it).
  Pipeline(const PipelineConfig& config, FrameSink& sink);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // Applies pending controls, completes finished frames (never blocks on the GPU just to time
  // them), and takes one frame from the source, waiting at most `wait` for it.
  StepResult step(std::chrono::milliseconds wait = std::chrono::milliseconds(100));
  // Completes every frame in flight (blocks until the GPU is done with them).
  void drain();

  // Controls: any thread; applied at the next step.
  void setPaused(bool paused);
  void seek(double seconds);
  void setLoop(bool loop);
  // Starts opening `spec` on a worker thread and returns at once; the current source keeps
  // playing. Once the new one has its first frame, the next step() swaps it in at a frame
  // boundary (frames in flight from the old one go out first). A failed open leaves the old
  // source playing and its reason in lastError(). A newer switchSource cancels an older one still
  // opening.
  void switchSource(const SourceSpec& spec);
  // Checks the change against the current frame size now: returns "" when taken (it applies to
  // the next frame), else the reason, and nothing changes.
  std::string setFilter(const std::string& variant, const FilterParams& params);

  // Reads: any thread.
  Timings timings() const;
  SourceInfo sourceInfo() const;
  std::string variantName() const;  // the variant running (auto resolved)
  // Grey sources (GRAY8, GRAY16_LE, taken as they are unless inputFormat is Rgba): "" when the
  // variant filters their frames as they come (one channel); else why not (it takes RGBA8 only, or
  // cannot hold the 1 LSB bound on them): they are then expanded to RGBA8 (8 bits) first.
  std::string greyExpandedWhy() const;
  // What auto chose for the last filter set and why ("measured: stream 32x16 0.054 ms, runner-up
  // fused 64x32 0.097 ms (1.80x) at 3840x2160"); empty when a variant was named.
  std::string autoChoice() const;
  FilterParams filterParams() const;
  std::string lastError() const;        // "" when none since the last successful source switch
  PendingSource pendingSource() const;  // the source switchSource is still opening, if any
  std::string memoryMode() const;       // "pinned", "pageable", or "pageable (no CUDA device: CPU variant)"
  bool paused() const;
  double positionSeconds() const;
  std::uint64_t framesIn() const;  // taken from the source

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace convlive
