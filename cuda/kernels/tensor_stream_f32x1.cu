// tensorstream's typed instances for f32 grey frames (the kernel: tensor_stream_typed.cuh, Kind
// kF32Values): a warp on two 16-pixel strips, the factors as fp16 high + low parts, each step's
// values scaled by a power of two and split into fp16 high + low parts.
#include "tensor_stream_typed.cuh"

namespace convlive::kernels::typedtensor {

// Blocks of 8 warps at r <= 8 take the instance held to 80 registers with a two-stage ring
// (tensorStreamF32Held): 48 512x512 planes r = 6..8 0.89x the time (0.0605 -> 0.054 ms at 128x64;
// 0.050 at 128x128, one wave), but 1.03-1.11x at 4K, on 16 1080p and 64 256x256 frames, whose best
// tiles are 4 warps wide.
void launchF32x1(const TypedTensorStreamLaunch& l, const MaskTerms& parts) {
  withU16Instance(parts.radius, l.absolute, [&](auto b0) {
    constexpr int B0 = decltype(b0)::value;
    if constexpr (B0 == 1)
      if (tensorStreamF32Held(l.warps, parts.radius))
        return launchTypedTensorStream<4, kTensorStreamF32Strips, 1, kClamp, true, false, kF32Values, true>(l, parts);
    launchTypedTensorStream<4, kTensorStreamF32Strips, B0, kClamp, true, false, kF32Values>(l, parts);
  });
}
LaunchDescription describeF32x1(const TypedTensorStreamLaunch& l, int radius) {
  return withU16Instance(radius, l.absolute, [&](auto b0) {
    constexpr int B0 = decltype(b0)::value;
    if constexpr (B0 == 1)
      if (tensorStreamF32Held(l.warps, radius))
        return describeTypedTensorStream<4, kTensorStreamF32Strips, 1, kClamp, true, true, false, kF32Values, true>(
            l, radius, 2);
    return describeTypedTensorStream<4, kTensorStreamF32Strips, B0, kClamp, true, true, false, kF32Values>(l, radius,
                                                                                                           2);
  });
}

}  // namespace convlive::kernels::typedtensor
