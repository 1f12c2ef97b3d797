// The typed stream kernel's instances for f32 values (the kernel: stream_typed.cuh).
#include "stream_typed.cuh"

namespace convlive::kernels::typed {

void launchF32(const TypedStreamLaunch& l, const MaskSep& m) { launchType<float>(l, m); }

}  // namespace convlive::kernels::typed
