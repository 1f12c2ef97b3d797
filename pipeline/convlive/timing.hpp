// Per-stage timings as plain data: the pipeline writes them, the viewer and the report read them.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace convlive {

// One stage's recent times in milliseconds. Average and peak are over the history window (the
// last `capacity` frames), so they follow what the pipeline does now.
class StageStats {
 public:
  explicit StageStats(std::string name = {}, std::size_t capacity = 300);
  void add(double ms);
  const std::string& name() const { return name_; }
  double last() const { return last_; }
  double average() const;
  double peak() const;
  std::uint64_t count() const { return count_; }
  // The window in time order, oldest first (for plots).
  std::vector<float> history() const;

 private:
  std::string name_;
  std::vector<float> ring_;
  std::size_t capacity_, next_ = 0;
  std::uint64_t count_ = 0;
  double last_ = 0;
};

// The rate of a stream of frames once it runs: frames per second from the end of the first
// `warmup` frames to the last one. The first frames of a run pay once for what later frames reuse
// (page-locking each new pooled source buffer, loading the kernels, allocating the slots), which
// dominates short runs; this rate, not frames / wall time, is what a source alone and the pipeline
// are compared by.
class SteadyRate {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::uint64_t kDefaultWarmup = 30;
  explicit SteadyRate(std::uint64_t warmup = kDefaultWarmup) : warmup_(warmup) {}
  void tick(Clock::time_point now);  // one more frame, done at `now`
  double fps() const;                // 0 until two frames past the warm-up
  std::uint64_t warmup() const { return warmup_; }
  std::uint64_t frames() const { return frames_; }

 private:
  std::uint64_t warmup_, frames_ = 0;
  Clock::time_point start_, last_;
};

// The stages of one frame, in order. Convert is the colour conversion of NV12/I420 frames (to RGBA
// after the upload, and back to I420 before an export's download; 0 for RGBA frames), and of grey
// frames to RGBA (after the filter, or before it for a variant that takes RGBA8 only). Output is
// the GPU's output work alone (the download, or the
// copy into the display texture); SinkWait is the host time the pipeline thread spent handing the
// frame to its sink (an export's encoder, or the viewer's wait for its render thread to take the
// frame): it delays the next frame but is not GPU time. Total is host copy + upload + convert +
// filter + output.
enum class Stage { Wait, HostCopy, Upload, Convert, Filter, Output, SinkWait, Total, Latency, Count };
const char* stageName(Stage s);

// A copy of the pipeline's figures at one moment.
struct Timings {
  std::vector<StageStats> stages;   // indexed by Stage
  std::uint64_t frames = 0;         // completed since the pipeline started
  std::uint64_t directUploads = 0;  // of those, uploaded straight from registered source memory (no host copy)
  std::uint64_t deviceFrames = 0;   // of those, decoded into GPU memory (NVDEC): no upload at all
  double fps = 0;                   // completed frames per second, over the recent window
  double steadyFps = 0;             // completed frames per second after the first SteadyRate::kDefaultWarmup
  double firstFrameMs = 0;          // from the first step() to the first frame completed
  std::uint64_t pageLocks = 0;      // source buffers page-locked (each once, when first seen)
  double pageLockMs = 0;            // host time those took, in all
  double mpixPerSecond = 0;         // fps x the frame's pixels
  double filterGBs = 0;             // the filter's effective bandwidth (bytes in + out / filter time)
  int width = 0, height = 0;        // of the last completed frame
  std::string filteredAs;           // what the filter ran on: "RGBA8", or a grey frame as it came ("u8x1", "u16x1")
  const StageStats& operator[](Stage s) const { return stages[std::size_t(s)]; }
};

}  // namespace convlive
