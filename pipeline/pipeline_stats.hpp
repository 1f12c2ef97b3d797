// The pipeline's figures (internal to pipeline/): each completed frame's stage times go in on the
// pipeline thread; any thread takes a copy (Timings) to show or report.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>

#include "convlive/image.hpp"
#include "convlive/timing.hpp"

namespace convlive {

using Clock = std::chrono::steady_clock;
inline double msBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// One completed frame's times in milliseconds (the stages of convlive/timing.hpp's Stage), and
// what it was.
struct FrameTimes {
  double wait = 0, hostCopy = 0, upload = 0, convert = 0, filter = 0, output = 0, sink = 0, latency = 0;
  bool direct = false;    // uploaded straight from registered source memory
  bool onDevice = false;  // decoded into GPU memory
  int width = 0, height = 0;
  ImageDesc filtered;  // what the filter ran on (RGBA8, or a grey frame as it came)
};

class PipelineStats {
 public:
  PipelineStats();

  // Pipeline thread. A frame was pulled at `pulledAt` (the first one starts firstFrameMs), after
  // its source buffer was page-locked for `pageLockMs` when it has a value.
  void framePulled(Clock::time_point pulledAt, std::optional<double> pageLockMs);
  // Pipeline thread: a frame completed now.
  void record(const FrameTimes& t);

  // Any thread.
  Timings timings() const;

 private:
  mutable std::mutex mutex_;  // guards stats_ (the rest is the pipeline thread's alone)
  Timings stats_;
  std::deque<Clock::time_point> completions_;     // recent completion times, for fps
  SteadyRate steady_;                             // completions after the warm-up, for steadyFps
  std::optional<Clock::time_point> firstPulled_;  // when the first frame was pulled (for firstFrameMs)
};

}  // namespace convlive
