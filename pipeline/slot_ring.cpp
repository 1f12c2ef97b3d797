#include "slot_ring.hpp"

#include <utility>

namespace convlive {

OutputFrame Slot::output(ConstImageView filtered, ConstImageView source, ConstImageView sourceHost) const {
  OutputFrame f;
  f.index = frame.index;
  f.ptsNs = frame.ptsNs;
  f.filtered = filtered;
  f.source = source;
  f.sourceHost = sourceHost;
  if (frame.isYuv()) {
    if (!frame.onDevice) f.sourceYuv = frame.yuv;  // host memory only
    f.colour = frame.colour;
  }
  return f;
}

OutputFrame Slot::greyOutput(const void* filtered, const void* source) const {
  OutputFrame f = output({}, {}, {});
  f.filteredGrey = filtered;
  f.sourceGrey = source;
  f.greyDesc = frame.greyDesc;
  return f;
}

void Slot::load(SourceFrame&& next, double waited, const Plan& current, std::uint64_t generation, bool pinnedOut) {
  if (planGeneration != generation) {  // its own copy: one workspace per stream
    plan = current;
    planGeneration = generation;
  }
  if (plan.onGpu() && !gpu) {
    gpu = std::make_unique<GpuSlot>();
    width = height = 0;  // allocate its device frames
  }
  const int w = next.pixels.width, h = next.pixels.height;
  if (width != w || height != h) {  // a new size: free and reallocate
    const std::size_t bytes = std::size_t(w) * h * 4;
    if (gpu) {
      gpu->in = DeviceImage(w, h);
      gpu->out = DeviceImage(w, h);
      gpu->hostIn = PinnedBuffer();  // allocated when a frame needs copying into it
      gpu->hostOut = pinnedOut ? PinnedBuffer(bytes) : PinnedBuffer();
      gpu->yuvOut = DeviceYuvFrame();  // made at the new size when a sink first takes I420
    }
    hostOut.assign(bytes, 0);  // the cpu variant's output, and downloads in pageable mode
    width = w;
    height = h;
  }
  if (gpu && next.isGrey()) {  // kept from frame to frame; grown when a frame needs more
    gpu->greyIn.reserve(next.greyDesc.span());
    gpu->greyOut.reserve(next.greyDesc.span());
  }
  frame = std::move(next);
  waitMs = waited;
}

SlotRing::SlotRing(std::size_t slots) : slots_(slots) {}

Slot& SlotRing::takeUpcoming() {
  Slot& slot = slots_[next_];
  next_ = (next_ + 1) % slots_.size();
  return slot;
}

void SlotRing::enqueued(Slot& slot) {
  slot.busy = true;
  inFlight_.push_back(std::size_t(&slot - slots_.data()));
}

Slot& SlotRing::popOldest() {
  Slot& slot = slots_[inFlight_.front()];
  inFlight_.pop_front();
  return slot;
}

cudaStream_t SlotRing::marker() {
  if (!marker_) marker_.emplace();
  return marker_->get();
}

}  // namespace convlive
