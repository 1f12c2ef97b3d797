// The typed stream kernel's instances for u8 values (the kernel: stream_typed.cuh).
#include "stream_typed.cuh"

namespace convlive::kernels::typed {

void launchU8(const TypedStreamLaunch& l, const MaskSep& m) { launchType<unsigned char>(l, m); }
LaunchDescription describeU8(const TypedStreamLaunch& l, int radius) { return describeType<unsigned char>(l, radius); }

}  // namespace convlive::kernels::typed
