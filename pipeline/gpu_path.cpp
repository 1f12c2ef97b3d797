#include "gpu_path.hpp"

#include <algorithm>
#include <exception>

#include "convlive/check.hpp"
#include "frame_staging.hpp"

namespace convlive {

GpuPath::GpuPath(SlotRing& ring, FrameSink& sink, PipelineStats& stats, bool pinned, bool overlap)
    : ring_(ring), sink_(sink), stats_(stats), pinned_(pinned), overlap_(overlap) {}

// For host-frame sinks: the filtered frame back into host memory, as I420 when the sink takes it
// and the source was YUV or grey (converted on the GPU first), else as RGBA. Records outConverted.
void GpuPath::enqueueDownload(Slot& slot) {
  GpuSlot& g = *slot.gpu;
  const cudaStream_t s = g.stream.get();
  const int w = slot.width, h = slot.height;
  // Grey frames too: their I420 (Y the grey value, U = V = 128) is 1.5 bytes a pixel to RGBA's 4.
  slot.yuvOut = sink_.wantsHostFrames() && (slot.frame.isYuv() || slot.frame.isGrey()) && sink_.acceptsYuvFrames();
  if (slot.yuvOut) {
    if (g.yuvOut.empty()) g.yuvOut = DeviceYuvFrame(packedYuvLayout(YuvFormat::I420, w, h));
    slot.yuvOutColour = sink_.yuvFramesColour(slot.frame.colour, w, h);
    rgbaToYuv(g.out.view(), g.yuvOut.view(), slot.yuvOutColour, s);
  }
  g.outConverted.record(s);
  if (!sink_.wantsHostFrames()) return;
  void* to = pinned_ ? g.hostOut.get() : slot.hostOut.data();
  const std::size_t rowBytes = std::size_t(w) * 4;
  if (slot.yuvOut)
    CL_CUDA(cudaMemcpyAsync(to, g.yuvOut.view().planes[0], g.yuvOut.layout().bytes, cudaMemcpyDeviceToHost, s));
  else
    CL_CUDA(cudaMemcpy2DAsync(to, rowBytes, g.out.view().data, g.out.pitch(), rowBytes, h, cudaMemcpyDeviceToHost, s));
}

void GpuPath::enqueue(Slot& slot) {
  GpuSlot& g = *slot.gpu;
  const cudaStream_t s = g.stream.get();
  enqueueUpload(slot, pinned_);
  const bool grey = slot.filtersGrey();
  // A display that shows grey frames as they are takes them without the two expansions below.
  const bool greyShown = slot.greyAsIsFor(sink_);
  if (grey)
    slot.plan.run(g.greyIn.get(), g.greyOut.get(), s);
  else
    slot.plan.run(g.in.view(), g.out.view(), s);
  g.filtered.record(s);
  if (grey && !greyShown) {  // to RGBA8 for the sink: the filtered frame, and the source for a display sink
    greyToRgba(g.greyOut.get(), slot.frame.greyDesc, g.out.view(), s);
    if (!sink_.wantsHostFrames()) greyToRgba(g.greyIn.get(), slot.frame.greyDesc, g.in.view(), s);
  }
  enqueueDownload(slot);
  // The frame's GPU work is enqueued: whatever the sink does, the slot joins the ring so that
  // it completes in order, and a sink's exception comes out only after that.
  std::exception_ptr sinkFailure;
  slot.sinkMs = 0;
  slot.presented = false;
  if (!sink_.wantsHostFrames()) {
    OutputFrame f = greyShown ? slot.greyOutput(g.greyOut.get(), g.greyIn.get())
                              : slot.output(g.out.view(), g.in.view(), slot.uploadedFrom);
    f.onDevice = true;
    f.stream = s;
    const auto t0 = Clock::now();
    try {
      sink_.present(f);
    } catch (...) {
      sinkFailure = std::current_exception();
    }
    slot.sinkMs = msBetween(t0, Clock::now());
    // The sink may have made the slot's stream wait for work it enqueues later (the viewer's
    // copy into the display texture, enqueued when its render thread takes the frame). An event
    // on an otherwise idle stream marks on the GPU's clock when present() returned, so the output
    // stage counts from then (or from the filter's end, if later) instead of counting that wait.
    g.handed.record(ring_.marker());
    slot.presented = true;
  }
  g.done.record(s);
  ring_.enqueued(slot);
  if (sinkFailure) std::rethrow_exception(sinkFailure);
  if (!overlap_) completeThrough(slot);
}

void GpuPath::completeReady() {
  while (Slot* oldest = ring_.oldest()) {
    const cudaError_t q = cudaEventQuery(oldest->gpu->done.get());
    if (q == cudaErrorNotReady) return;
    CL_CUDA(q);
    complete(*oldest);
  }
}

void GpuPath::completeThrough(Slot& target) {
  while (target.busy && ring_.oldest()) complete(*ring_.oldest());
}

void GpuPath::drain() {
  while (Slot* oldest = ring_.oldest()) complete(*oldest);
}

void GpuPath::complete(Slot& slot) {
  GpuSlot& g = *slot.gpu;
  g.done.synchronize();
  ring_.popOldest();
  FrameTimes t;
  t.upload = g.uploaded.elapsedSince(g.start);
  t.convert = g.converted.elapsedSince(g.uploaded) + g.outConverted.elapsedSince(g.filtered);
  t.filter = g.filtered.elapsedSince(g.converted);
  // `handed` is on the ring's marker stream, not ordered with the slot's: idle, it completes at once,
  // but not always before `done` is seen (compute-sanitizer saw cudaErrorNotReady here): wait for it.
  if (slot.presented) g.handed.synchronize();
  const double handedAfterFilter = slot.presented ? std::max(0.f, g.handed.elapsedSince(g.outConverted)) : 0.0;
  t.output = std::max(0.0, g.done.elapsedSince(g.outConverted) - handedAfterFilter);
  const ConstImageView staged = slot.uploadedFrom;
  // The slot is retired whatever the sink does; its exception comes out afterwards.
  std::exception_ptr sinkFailure;
  if (sink_.wantsHostFrames()) {
    const std::uint8_t* outData = pinned_ ? static_cast<const std::uint8_t*>(g.hostOut.get()) : slot.hostOut.data();
    const auto t0 = Clock::now();
    try {
      OutputFrame f =
          slot.output(ConstImageView(outData, slot.width, slot.height, std::size_t(slot.width) * 4), staged, staged);
      if (slot.yuvOut) {
        f.filtered = {};
        f.filteredYuv = yuvViewAt(g.yuvOut.layout(), outData);
        f.filteredColour = slot.yuvOutColour;
      }
      sink_.deliver(f);
    } catch (...) {
      sinkFailure = std::current_exception();
    }
    slot.sinkMs = msBetween(t0, Clock::now());
  }
  // Latency: host time from arrival to the upload's start, then the GPU's time to the end (the
  // slot's stream is idle when a frame is enqueued, so its start event runs at once).
  t.latency = msBetween(slot.frame.arrival, slot.enqueued) + g.done.elapsedSince(g.start);
  t.wait = slot.waitMs;
  t.hostCopy = slot.hostCopyMs;
  t.sink = slot.sinkMs;
  t.direct = slot.direct;
  t.onDevice = slot.frame.onDevice;
  t.width = slot.width;
  t.height = slot.height;
  t.filtered = slot.plan.image();
  stats_.record(t);
  slot.busy = false;
  slot.frame = SourceFrame{};
  if (sinkFailure) std::rethrow_exception(sinkFailure);
}

}  // namespace convlive
