// The typed stream kernel's instances for u8 values written as f32 (the kernel: stream_typed.cuh).
#include "stream_typed.cuh"

namespace convlive::kernels::typed {

void launchU8F32(const TypedStreamLaunch& l, const MaskSep& m) { launchType<unsigned char, float>(l, m); }
LaunchDescription describeU8F32(const TypedStreamLaunch& l, int radius) {
  return describeType<unsigned char, float>(l, radius);
}

}  // namespace convlive::kernels::typed
