// The ring of slots frames go through on their way from the source to the sink (internal to
// pipeline/). Pipeline thread only.
//
// Each slot holds one frame while it is in flight: its CUDA stream and events, its device frames,
// its pinned staging buffers and its own copy of the filter's plan. Frames in flight complete in
// the order they were enqueued, so that sinks see them in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "convlive/colour.hpp"
#include "convlive/pipeline.hpp"
#include "convlive/plan.hpp"
#include "convlive/resources.hpp"
#include "pipeline_stats.hpp"

namespace convlive {

// The CUDA side of a slot: its stream, events, device frames and pinned staging buffers.
struct GpuSlot {
  Stream stream;
  // converted: after the NV12/I420 (or grey) -> RGBA conversion (right after the upload for RGBA
  // frames, and for grey ones filtered as they came); outConverted: after the conversion back to
  // I420, or a grey frame's filtered and source planes to RGBA (right after the filter when there
  // is none).
  Event start, uploaded, converted, filtered, outConverted, done;
  Event handed;  // on the ring's marker stream when the sink's present() returned
  DeviceImage in, out;
  DeviceBuffer yuvIn;            // YUV frames as uploaded (the source's layout)
  DeviceBuffer greyIn, greyOut;  // grey frames as uploaded (the source's row pitch), and filtered
  DeviceYuvFrame yuvOut;         // the filtered frame as I420, for sinks that take it (made when first needed)
  PinnedBuffer hostIn, hostOut;  // pinned mode only
};

// One frame's place in the ring. While `busy`, its frame is in flight and nothing in it may change.
struct Slot {
  std::unique_ptr<GpuSlot> gpu;           // null until a frame runs on the GPU in it
  std::vector<std::uint8_t> hostOut;      // pageable mode and the cpu variant: the filtered frame
  std::vector<std::uint8_t> hostRgba;     // YUV and grey frames on the CPU: the frame converted to RGBA
  std::vector<std::uint8_t> hostGreyOut;  // grey frames filtered on the CPU as they came
  std::vector<std::uint8_t> hostStaging;  // YUV frames in pageable mode whose planes lie apart: packed here
  YuvLayout yuvLayout;                    // YUV frames: the planes in the uploaded block
  bool yuvOut = false;                    // the frame goes to the sink as I420 (filteredYuv) ...
  ColourSpec yuvOutColour;                // ... with these colours
  Plan plan;                              // a copy of the pipeline's plan for this slot's stream
  std::uint64_t planGeneration = 0;       // which of the pipeline's plans it copies
  int width = 0, height = 0;
  bool busy = false;
  SourceFrame frame;                              // kept until done: pageable uploads and sourceHost read it
  double waitMs = 0, hostCopyMs = 0, sinkMs = 0;  // sinkMs: host time in the sink's present/deliver
  double cpuConvertMs = 0;                        // YUV and grey frames on the CPU: the conversion to RGBA
  ConstImageView uploadedFrom;  // the host frame the upload read: the pinned copy or the sample itself
  bool direct = false;          // uploaded straight from registered source memory
  Clock::time_point enqueued;   // host time just before the upload was enqueued
  bool presented = false;       // the sink's present() ran for the frame in flight (gpu->handed recorded)

  // Grey frames whose plan takes them as they came (else they are expanded to RGBA8 first).
  bool filtersGrey() const { return frame.isGrey() && !plan.image().isRgba8(); }
  // The frame as a sink sees it, with the views given (valid as long as the caller says).
  OutputFrame output(ConstImageView filtered, ConstImageView source, ConstImageView sourceHost) const;
  // Whether `sink` takes this slot's frame as grey planes, not expanded to RGBA8: a grey frame its
  // plan filters as it came, for a sink presented with frames that acceptsGreyFrames().
  bool greyAsIsFor(const FrameSink& sink) const {
    return filtersGrey() && !sink.wantsHostFrames() && sink.acceptsGreyFrames();
  }
  // The grey frame as such a sink sees it: the filtered and the source planes given (frame.greyDesc
  // describes both), no RGBA8 views.
  OutputFrame greyOutput(const void* filtered, const void* source) const;
  // Makes the slot ready for `frame` (waited for `waitMs`), run by a copy of `plan`, whose
  // generation says whether the slot's copy is still current: the GPU side made when the plan runs
  // there, the buffers (re)allocated when the size changed. `pinnedOut`: downloads go into pinned
  // memory.
  void load(SourceFrame&& frame, double waitMs, const Plan& plan, std::uint64_t generation, bool pinnedOut);
};

class SlotRing {
 public:
  explicit SlotRing(std::size_t slots);

  // The slot the next frame goes in (in turn); it may still be busy with an older frame.
  Slot& upcoming() { return slots_[next_]; }
  // upcoming(), and the turn moves on.
  Slot& takeUpcoming();

  // Frames in flight, oldest first. A slot joins (and turns busy) when its frame has been enqueued;
  // popOldest() takes it out of the order when its frame completes, and the caller clears `busy`
  // once it is done with the frame.
  void enqueued(Slot& slot);
  Slot* oldest() { return inFlight_.empty() ? nullptr : &slots_[inFlight_.front()]; }
  Slot& popOldest();

  // A stream that is never given work: an event recorded on it marks "now" on the GPU's clock.
  cudaStream_t marker();

 private:
  std::vector<Slot> slots_;
  std::size_t next_ = 0;
  std::deque<std::size_t> inFlight_;  // busy slots, oldest first
  std::optional<Stream> marker_;      // made when first needed
};

}  // namespace convlive
