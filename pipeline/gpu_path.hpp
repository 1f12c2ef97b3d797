// Frames filtered on the GPU (internal to pipeline/; the pipeline thread only): each frame's
// upload, filter and output work enqueued on its slot's stream, bracketed by events, and the
// frame completed later, in order, when its work is done; its times are read from the events then,
// never by waiting on the GPU just to time it.
#pragma once

#include "convlive/pipeline.hpp"
#include "pipeline_stats.hpp"
#include "slot_ring.hpp"

namespace convlive {

class GpuPath {
 public:
  // `pinned`: uploads and downloads go through page-locked memory. `overlap` false: each frame
  // completes before enqueue() returns. The references must outlive the path.
  GpuPath(SlotRing& ring, FrameSink& sink, PipelineStats& stats, bool pinned, bool overlap);

  // Enqueues the frame the slot holds (its GPU side made, Slot::load) and joins the ring's frames
  // in flight. A sink that is not after host frames gets it in present() now; one that is gets it
  // in deliver() when it completes. Rethrows what the sink threw, after the slot has joined.
  void enqueue(Slot& slot);

  // Complete frames in flight, oldest first, handing host frames to the sink and recording the
  // times; a sink's exception comes out after its frame has been retired.
  void completeReady();                // those whose GPU work has finished, without waiting
  void completeThrough(Slot& target);  // up to and including `target`, waiting for each
  void drain();                        // all of them, waiting for each

 private:
  void enqueueDownload(Slot& slot);
  void complete(Slot& slot);

  SlotRing& ring_;
  FrameSink& sink_;
  PipelineStats& stats_;
  bool pinned_, overlap_;
};

}  // namespace convlive
