// sweep's separable kernel compiled for each radius kSweepFixedMinRadius..kSweepFixedMaxRadius on
// u16 frames (the kernel: sweep.cuh); one file a type, so that the instances build in parallel.
#include "sweep.cuh"

namespace convlive::kernels {

const void* sweepFixedU16(int channels, int radius) { return fixedInstance<unsigned short>(channels, radius); }

}  // namespace convlive::kernels
