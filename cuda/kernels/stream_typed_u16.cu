// The typed stream kernel's instances for u16 values (the kernel: stream_typed.cuh).
#include "stream_typed.cuh"

namespace convlive::kernels::typed {

void launchU16(const TypedStreamLaunch& l, const MaskSep& m) { launchType<unsigned short>(l, m); }
const void* kernelU16(int channels, int radius) { return kernelOfType<unsigned short>(channels, radius); }

}  // namespace convlive::kernels::typed
