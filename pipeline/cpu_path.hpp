// Frames filtered on the CPU (internal to pipeline/; the pipeline thread only): a CPU variant's
// plan, or any plan on a machine without a CUDA device. Each frame is done, handed to the sink and
// timed before run() returns; nothing stays in flight.
#pragma once

#include "convlive/pipeline.hpp"
#include "pipeline_stats.hpp"
#include "slot_ring.hpp"

namespace convlive {

class CpuPath {
 public:
  // The references must outlive the path.
  CpuPath(FrameSink& sink, PipelineStats& stats) : sink_(sink), stats_(stats) {}

  // Filters the frame the slot holds into slot.hostOut and hands it to the sink (deliver() or
  // present(), with host views valid during the call), then lets the frame go. Frames still on
  // the GPU must have completed first, so that the sink sees frames in order. Rethrows what the
  // sink threw, after the frame was recorded.
  void run(Slot& slot);

 private:
  // A grey frame filtered as it came, then expanded to RGBA8 for the sink (or handed as it is to a
  // display that acceptsGreyFrames()).
  void runGrey(Slot& slot);
  // Hands the filtered frame to the sink and records its times (`ready`: when it was filtered and
  // converted for the sink).
  void hand(Slot& slot, ConstImageView src, ConstImageView out, double filterMs, Clock::time_point ready);
  void hand(Slot& slot, const OutputFrame& f, double filterMs, Clock::time_point ready);

  FrameSink& sink_;
  PipelineStats& stats_;
};

}  // namespace convlive
