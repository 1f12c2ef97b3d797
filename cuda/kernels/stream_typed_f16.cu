// The typed stream kernel's instances for f16 values (the kernel: stream_typed.cuh).
#include "stream_typed.cuh"

namespace convlive::kernels::typed {

void launchF16(const TypedStreamLaunch& l, const MaskSep& m) { launchType<__half>(l, m); }
LaunchDescription describeF16(const TypedStreamLaunch& l, int radius) { return describeType<__half>(l, radius); }

}  // namespace convlive::kernels::typed
