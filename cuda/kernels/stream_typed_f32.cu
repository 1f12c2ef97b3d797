// The typed stream kernel's instances for f32 values (the kernel: stream_typed.cuh).
#include "stream_typed.cuh"

namespace convlive::kernels::typed {

void launchF32(const TypedStreamLaunch& l, const MaskSep& m) { launchType<float>(l, m); }
LaunchDescription describeF32(const TypedStreamLaunch& l, int radius) { return describeType<float>(l, radius); }

}  // namespace convlive::kernels::typed
