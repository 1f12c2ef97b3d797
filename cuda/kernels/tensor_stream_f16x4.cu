// tensorstream's typed instances for f16 frames of 4 channels (the kernel: tensor_stream_typed.cuh,
// Kind kF16Values, C = 8 bytes a pixel): a warp on one 16-pixel strip, four planes, the factors as
// fp16 high + low parts.
#include "tensor_stream_typed.cuh"

namespace convlive::kernels::typedtensor {

void launchF16x4(const TypedTensorStreamLaunch& l, const MaskTerms& parts) {
  withU16Instance(parts.radius, l.absolute, [&](auto b0) {
    launchTypedTensorStream<8, 1, decltype(b0)::value, kClamp, true, false, kF16Values>(l, parts);
  });
}
LaunchDescription describeF16x4(const TypedTensorStreamLaunch& l, int radius) {
  return withU16Instance(radius, l.absolute, [&](auto b0) {
    return describeTypedTensorStream<8, 1, decltype(b0)::value, kClamp, true, true, false, kF16Values>(l, radius, 2);
  });
}

}  // namespace convlive::kernels::typedtensor
