#include "cpu_path.hpp"

#include <exception>

#include "frame_staging.hpp"

namespace convlive {

void CpuPath::run(Slot& slot) {
  if (slot.filtersGrey()) return runGrey(slot);
  const ConstImageView src = rgbaOnHost(slot);
  const ImageView out{slot.hostOut.data(), src.width, src.height, std::size_t(src.width) * 4};
  const auto t0 = Clock::now();
  slot.plan.run(src, out);
  const auto t1 = Clock::now();
  hand(slot, src, out, msBetween(t0, t1), t1);
}

void CpuPath::runGrey(Slot& slot) {
  const ImageDesc& d = slot.frame.greyDesc;
  slot.hostGreyOut.resize(d.span());
  const auto t0 = Clock::now();
  slot.plan.run(slot.frame.grey, slot.hostGreyOut.data());
  const auto t1 = Clock::now();
  if (slot.greyAsIsFor(sink_)) {  // a display takes them as they are
    slot.cpuConvertMs = 0;
    hand(slot, slot.greyOutput(slot.hostGreyOut.data(), slot.frame.grey), msBetween(t0, t1), t1);
    return;
  }
  const ImageView out{slot.hostOut.data(), d.width, d.height, std::size_t(d.width) * 4};
  referenceGreyToRgba(slot.hostGreyOut.data(), d, out);
  const ConstImageView src = rgbaOnHost(slot);  // the source as RGBA, for the sink
  const auto t2 = Clock::now();
  slot.cpuConvertMs = msBetween(t1, t2);
  hand(slot, src, out, msBetween(t0, t1), t2);
}

void CpuPath::hand(Slot& slot, ConstImageView src, ConstImageView out, double filterMs, Clock::time_point ready) {
  hand(slot, slot.output(out, src, src), filterMs, ready);
}

void CpuPath::hand(Slot& slot, const OutputFrame& f, double filterMs, Clock::time_point ready) {
  std::exception_ptr sinkFailure;
  try {
    if (sink_.wantsHostFrames())
      sink_.deliver(f);
    else
      sink_.present(f);
  } catch (...) {
    sinkFailure = std::current_exception();
  }
  const auto t2 = Clock::now();
  FrameTimes t;
  t.wait = slot.waitMs;
  t.hostCopy = slot.hostCopyMs;
  t.convert = slot.cpuConvertMs;
  t.filter = filterMs;
  t.sink = msBetween(ready, t2);  // no GPU output work: the sink's time is the handover
  t.latency = msBetween(slot.frame.arrival, t2);
  t.direct = slot.direct;
  t.onDevice = slot.frame.onDevice;
  t.width = slot.width;
  t.height = slot.height;
  t.filtered = slot.plan.image();
  slot.sinkMs = t.sink;
  stats_.record(t);
  slot.frame = SourceFrame{};
  if (sinkFailure) std::rethrow_exception(sinkFailure);
}

}  // namespace convlive
