// tensorstream's typed instances for f32 grey frames (the kernel: tensor_stream_typed.cuh, Kind
// kF32Values): a warp on two 16-pixel strips, the factors as fp16 high + low parts, each step's
// values scaled by a power of two and split into fp16 high + low parts.
#include "tensor_stream_typed.cuh"

namespace convlive::kernels::typedtensor {

void launchF32x1(const TypedTensorStreamLaunch& l, const MaskTerms& parts) {
  withU16Instance(parts.radius, l.absolute, [&](auto b0) {
    launchTypedTensorStream<4, kTensorStreamF32Strips, decltype(b0)::value, kClamp, true, false, kF32Values>(l, parts);
  });
}
LaunchDescription describeF32x1(const TypedTensorStreamLaunch& l, int radius) {
  return withU16Instance(radius, l.absolute, [&](auto b0) {
    return describeTypedTensorStream<4, kTensorStreamF32Strips, decltype(b0)::value, kClamp, true, true, false,
                                     kF32Values>(l, radius, 2);
  });
}

}  // namespace convlive::kernels::typedtensor
