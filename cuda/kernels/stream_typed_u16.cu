// The typed stream kernel's instances for u16 values (the kernel: stream_typed.cuh).
#include "stream_typed.cuh"

namespace convlive::kernels::typed {

void launchU16(const TypedStreamLaunch& l, const MaskSep& m) { launchType<unsigned short>(l, m); }
LaunchDescription describeU16(const TypedStreamLaunch& l, int radius) {
  return describeType<unsigned short>(l, radius);
}

}  // namespace convlive::kernels::typed
