// tensorstream's typed instances for f16 grey frames (the kernel: tensor_stream_typed.cuh, Kind
// kF16Values): a warp on four 16-pixel strips, the factors as fp16 high + low parts.
#include "tensor_stream_typed.cuh"

namespace convlive::kernels::typedtensor {

void launchF16x1(const TypedTensorStreamLaunch& l, const MaskTerms& parts) {
  withU16Instance(parts.radius, l.absolute, [&](auto b0) {
    launchTypedTensorStream<2, kTensorStreamU16Strips, decltype(b0)::value, kClamp, true, false, kF16Values>(l, parts);
  });
}
LaunchDescription describeF16x1(const TypedTensorStreamLaunch& l, int radius) {
  return withU16Instance(radius, l.absolute, [&](auto b0) {
    return describeTypedTensorStream<2, kTensorStreamU16Strips, decltype(b0)::value, kClamp, true, true, false,
                                     kF16Values>(l, radius, 2);
  });
}

}  // namespace convlive::kernels::typedtensor
