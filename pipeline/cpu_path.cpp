#include "cpu_path.hpp"

#include <exception>

#include "frame_staging.hpp"

namespace convlive {

void CpuPath::run(Slot& slot) {
  const ConstImageView src = rgbaOnHost(slot);
  const ImageView out{slot.hostOut.data(), src.width, src.height, std::size_t(src.width) * 4};
  const auto t0 = Clock::now();
  slot.plan.run(src, out);
  const auto t1 = Clock::now();
  const OutputFrame f = slot.output(out, src, src);
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
  t.filter = msBetween(t0, t1);
  t.sink = msBetween(t1, t2);  // no GPU output work: the sink's time is the handover
  t.latency = msBetween(slot.frame.arrival, t2);
  t.direct = slot.direct;
  t.onDevice = slot.frame.onDevice;
  t.width = slot.width;
  t.height = slot.height;
  slot.sinkMs = t.sink;
  stats_.record(t);
  slot.frame = SourceFrame{};
  if (sinkFailure) std::rethrow_exception(sinkFailure);
}

}  // namespace convlive
