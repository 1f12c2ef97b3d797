// tensorstream's typed instances for u16 frames of 4 channels (the kernel: tensor_stream_typed.cuh,
// Kind kU16Values, C = 8 bytes a pixel): a warp on one 16-pixel strip, four planes, the factors as
// fp16 high + low parts.
#include "tensor_stream_typed.cuh"

namespace convlive::kernels::typedtensor {

void launchU16x4(const TypedTensorStreamLaunch& l, const MaskTerms& parts) {
  withU16Instance(parts.radius, l.absolute, [&](auto b0) {
    launchTypedTensorStream<8, 1, decltype(b0)::value, kClamp, true, false, kU16Values>(l, parts);
  });
}
LaunchDescription describeU16x4(const TypedTensorStreamLaunch& l, int radius) {
  return withU16Instance(radius, l.absolute, [&](auto b0) {
    return describeTypedTensorStream<8, 1, decltype(b0)::value, kClamp, true, true, false, kU16Values>(l, radius, 2);
  });
}

}  // namespace convlive::kernels::typedtensor
