// tensorstream's typed instances for u16 grey frames (the kernel: tensor_stream_typed.cuh, Kind
// kU16Values): a warp on four 16-pixel strips, the factors as fp16 high + low parts.
#include "tensor_stream_typed.cuh"

namespace convlive::kernels::typedtensor {

void launchU16x1(const TypedTensorStreamLaunch& l, const MaskTerms& parts) {
  withU16Instance(parts.radius, l.absolute, [&](auto b0) {
    launchTypedTensorStream<2, kTensorStreamU16Strips, decltype(b0)::value, kClamp, true, false, kU16Values>(l, parts);
  });
}
LaunchDescription describeU16x1(const TypedTensorStreamLaunch& l, int radius) {
  return withU16Instance(radius, l.absolute, [&](auto b0) {
    return describeTypedTensorStream<2, kTensorStreamU16Strips, decltype(b0)::value, kClamp, true, true, false,
                                     kU16Values>(l, radius, 2);
  });
}

}  // namespace convlive::kernels::typedtensor
