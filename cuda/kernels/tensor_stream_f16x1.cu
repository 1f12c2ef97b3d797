// tensorstream's typed instances for f16 grey frames (the kernel: tensor_stream_typed.cuh, Kind
// kF16Values): a warp on four 16-pixel strips, the factors as fp16 high + low parts.
#include "tensor_stream_typed.cuh"

namespace convlive::kernels::typedtensor {

// B0 = 1 held to 128 registers (an 8-byte spill): 0.92x the time at 4K r = 4..8, level on batches.
void launchF16x1(const TypedTensorStreamLaunch& l, const MaskTerms& parts) {
  withU16Instance(parts.radius, l.absolute, [&](auto b0) {
    constexpr int B0 = decltype(b0)::value;
    launchTypedTensorStream<2, kTensorStreamU16Strips, B0, kClamp, true, false, kF16Values, B0 == 1>(l, parts);
  });
}
LaunchDescription describeF16x1(const TypedTensorStreamLaunch& l, int radius) {
  return withU16Instance(radius, l.absolute, [&](auto b0) {
    constexpr int B0 = decltype(b0)::value;
    return describeTypedTensorStream<2, kTensorStreamU16Strips, B0, kClamp, true, true, false, kF16Values, B0 == 1>(
        l, radius, 2);
  });
}

}  // namespace convlive::kernels::typedtensor
